"""The explicit list of puzzle families: adding one is a module, one line here and one test file."""

from __future__ import annotations

from typing import Any

from ._errors import UnknownPuzzleError
from ._protocol import Puzzle, clip
from .checkers import Checkers
from .coloring import GraphColoring
from .cryptarithm import Cryptarithm
from .hanoi import Hanoi
from .river import RiverCrossing
from .rubik import RubiksCube
from .sat import Sat
from .sudoku import Sudoku
from .waterjug import WaterJug

PUZZLES: tuple[Puzzle[Any], ...] = (  # the paper's order
    Hanoi(),
    Checkers(),
    RiverCrossing(),
    Sat(),
    Cryptarithm(),
    GraphColoring(),
    WaterJug(),
    Sudoku(),
    RubiksCube(),
)

_BY_NAME = {puzzle.name: puzzle for puzzle in PUZZLES}
if len(_BY_NAME) != len(PUZZLES):
    raise RuntimeError("two puzzles share a name")


def puzzle_names() -> list[str]:
    """Names of every registered puzzle, in catalog order."""
    return [puzzle.name for puzzle in PUZZLES]


def get_puzzle(name: str) -> Puzzle[Any]:
    """The puzzle registered as `name`.

    Raises:
        UnknownPuzzleError: no such puzzle (the message lists the known names).
    """
    try:
        return _BY_NAME[name]
    except (KeyError, TypeError):  # TypeError: a name read from a record may be a list or an object
        raise UnknownPuzzleError(f"unknown puzzle {clip(name)}; known puzzles: {', '.join(puzzle_names())}") from None
