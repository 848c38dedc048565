"""Oracle solver programs: one standalone program per puzzle family, kept as source text.

Each `<name>.py` here is what a strong model would write in code mode: standard library only,
defining `solve(instance: dict) -> answer`. They are data, never imported: the sandbox tests run
them, and the mock model server answers code-mode prompts with them.
"""

from __future__ import annotations

from importlib import resources

from ..errors import InputError

ORACLES = ("hanoi", "checkers", "river", "sat", "cryptarithm", "coloring", "waterjug", "sudoku", "rubik")


def oracle_names() -> list[str]:
    """Families with an oracle program, in the puzzle catalog's order."""
    return list(ORACLES)


def oracle_source(name: str) -> str:
    """The source text of the oracle program for puzzle `name`.

    Raises:
        InputError: no oracle exists for `name` (the message lists the known names).
    """
    if name not in ORACLES:
        raise InputError(f"no oracle program for puzzle {name!r}; known: {', '.join(ORACLES)}")
    return resources.files(__package__).joinpath(f"{name}.py").read_text(encoding="utf-8")
