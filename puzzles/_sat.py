"""A bounded SAT call shared by the families that use python-sat (sat, coloring, sudoku).

python-sat's bounded search reports Ctrl-C as its own `error("Caught keyboard interrupt")` rather than as
KeyboardInterrupt; this turns it back, so an interrupted search never looks like a puzzle or program failure.
Imports python-sat when first called.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def solve_within(solver: Any, budget: int | None, assumptions: Sequence[int] = ()) -> bool | None:
    """`solver.solve()`, or with a conflict budget `solve_limited()`: True, False, or None when the budget ran out.

    Raises:
        KeyboardInterrupt: Ctrl-C during the search, whichever way python-sat reported it.
    """
    import pysolvers  # deferred with the rest of python-sat

    if budget is None:
        return solver.solve(assumptions=list(assumptions))
    solver.conf_budget(budget)
    try:
        return solver.solve_limited(assumptions=list(assumptions))
    except pysolvers.error as exc:
        if "keyboard interrupt" in str(exc).lower():
            raise KeyboardInterrupt from None
        raise
