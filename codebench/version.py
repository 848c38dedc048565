"""The package's version, alone in a module below every other so any part may record it (the run's plan does) without
importing the package's public API."""

__version__ = "0.1.0"
