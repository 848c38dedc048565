"""Ctrl-C and SIGTERM: long work says what is kept and how to go on, and every command exits 130 (SIGINT) or
143 (SIGTERM) without a traceback. SIGTERM is turned into the same KeyboardInterrupt as Ctrl-C, so the
sandbox's and the store's `with` blocks clean up alike; typer alone would exit 130 silently for both."""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

import typer
from rich.console import Console

from ..errors import EXIT_INTERRUPTED, EXIT_TERMINATED

_terminated = False


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    global _terminated
    _terminated = True
    raise KeyboardInterrupt


def install() -> None:
    """Route SIGTERM through KeyboardInterrupt (from the main thread only: signal handlers live there)."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _on_sigterm)


def exit_code(code: int | str | None) -> int | str | None:
    """The exit code to leave with: an interrupted exit becomes 143 when SIGTERM caused it."""
    return EXIT_TERMINATED if _terminated and code == EXIT_INTERRUPTED else code


class Stopping:
    """While active, Ctrl-C and SIGTERM only ask the work to stop at its next record boundary (a second one stops at
    once): nothing is interrupted inside a library call (python-sat's solvers corrupt their memory when a
    KeyboardInterrupt lands between their C calls). `code` is the exit code the signal asks for, or None."""

    def __init__(self) -> None:
        self.code: int | None = None
        self.before: dict[int, Any] = {}

    def __call__(self) -> bool:
        return self.code is not None

    def _asked(self, signum: int, frame: FrameType | None) -> None:
        if self.code is not None:
            raise KeyboardInterrupt
        self.code = EXIT_TERMINATED if signum == signal.SIGTERM else EXIT_INTERRUPTED

    def __enter__(self) -> Stopping:
        if threading.current_thread() is threading.main_thread():
            self.before = {number: signal.signal(number, self._asked) for number in (signal.SIGINT, signal.SIGTERM)}
        return self

    def __exit__(self, *exc: object) -> None:
        for number, handler in self.before.items():
            signal.signal(number, handler)
        if self.code is not None and exc[0] is None:
            raise typer.Exit(self.code)


@contextmanager
def interruptible(kept: str) -> Iterator[None]:
    """Turn KeyboardInterrupt (the sandbox and the store already closed by their own `with`) into one line and an exit."""
    try:
        yield
    except KeyboardInterrupt:
        what = "terminated" if _terminated else "interrupted"
        Console(stderr=True, soft_wrap=True).print(f"{what}: {kept}", markup=False, highlight=False)
        sys.stderr.flush()
        raise typer.Exit(EXIT_INTERRUPTED) from None
