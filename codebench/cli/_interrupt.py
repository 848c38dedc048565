"""Ctrl-C during long work: say what is kept and how to go on, then exit 130 (typer alone would exit silently)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import typer
from rich.console import Console

from ..errors import EXIT_INTERRUPTED


@contextmanager
def interruptible(kept: str) -> Iterator[None]:
    """Turn KeyboardInterrupt (the sandbox and the store already closed by their own `with`) into exit 130."""
    try:
        yield
    except KeyboardInterrupt:
        Console(stderr=True, soft_wrap=True).print(f"interrupted: {kept}", markup=False, highlight=False)
        raise typer.Exit(EXIT_INTERRUPTED) from None
