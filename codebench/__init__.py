"""codebench: reasoning benchmarks on puzzles of controllable difficulty, for answers and for programs.

The public API is loaded on first use, so a part that needs only one module (a sandbox worker, the types) does not load
the run, the store and the reports with it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .version import __version__

if TYPE_CHECKING:
    from .run.results import LoadedRun, load_run

__all__ = ["LoadedRun", "__version__", "load_run"]


def __getattr__(name: str) -> Any:
    if name in ("LoadedRun", "load_run"):
        from .run import results
        return getattr(results, name)
    raise AttributeError(f"module 'codebench' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
