"""codebench: reasoning benchmarks on puzzles of controllable difficulty, for answers and for programs."""

__version__ = "0.1.0"

__all__ = ["__version__"]
