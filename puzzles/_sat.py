"""A SAT call shared by the families that use python-sat (sat, coloring, sudoku), safe to interrupt.

During a search python-sat installs a SIGINT handler that longjmps out of the C++ solver; the solver is then
broken and deleting it crashes the process (SIGSEGV in about 1 of 10 Ctrl-C). So SIGINT and SIGTERM are held
back while the solver runs (its searches are bounded by conflict budgets) and arrive, as Python's own
KeyboardInterrupt or handler, the moment it returns. Imports python-sat only through the solver passed in.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

HELD = {signal.SIGINT, signal.SIGTERM}


def solve_within(solver: Any, budget: int | None, assumptions: Sequence[int] = ()) -> bool | None:
    """`solver.solve()`, or with a conflict budget `solve_limited()`: True, False, or None when the budget ran out."""
    with _signals_held():
        if budget is None:
            return solver.solve(assumptions=list(assumptions))
        solver.conf_budget(budget)
        return solver.solve_limited(assumptions=list(assumptions))


def decisions(solver: Any) -> int:
    """The branching decisions the solver has made so far: the search nodes of a CDCL search (0: settled without one)."""
    return int(solver.accum_stats().get("decisions", 0))


@contextmanager
def _signals_held() -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread():
        yield  # python-sat installs no handler off the main thread
        return
    before = signal.pthread_sigmask(signal.SIG_BLOCK, HELD)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)
