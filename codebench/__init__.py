"""codebench: reasoning benchmarks on puzzles of controllable difficulty, for answers and for programs."""

from .run.results import LoadedRun, load_run

__version__ = "0.1.0"

__all__ = ["LoadedRun", "__version__", "load_run"]
