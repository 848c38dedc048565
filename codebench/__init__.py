"""codebench: reasoning benchmarks on puzzles of controllable difficulty, for answers and for programs.

The public API is loaded on first use, so a part that needs only one module (a sandbox worker, the types) does not load
the run, the store and the reports with it."""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from .version import __version__

if TYPE_CHECKING:
    from .evaluation import RunResult, evaluate
    from .reports import compare, report
    from .run.results import LoadedRun, load_run
    from .run.spec import RunSpec

_HOMES = {"RunSpec": ".run.spec", "evaluate": ".evaluation", "RunResult": ".evaluation", "LoadedRun": ".run.results",
          "load_run": ".run.results", "report": ".reports", "compare": ".reports"}
__all__ = ["LoadedRun", "RunResult", "RunSpec", "__version__", "compare", "evaluate", "load_run", "report"]


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module 'codebench' has no attribute {name!r}")
    return getattr(import_module(_HOMES[name], __name__), name)


def __dir__() -> list[str]:
    return __all__
