"""The explicit list of puzzle families: adding one is a module, one line here and one test file. Other installed
packages add theirs through entry points (`_plugins`): found by name, never among "all puzzles"."""

from __future__ import annotations

from typing import Any

from ._errors import UnknownPuzzleError
from ._plugins import PUZZLE_GROUP, Plugins
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


def built_in_names() -> dict[str, str]:
    """Every built-in name, a puzzle's or a game's, and which it is: a plugin of either kind may take none of them."""
    from .games import game_names

    return {**dict.fromkeys(_BY_NAME, "puzzle"), **dict.fromkeys(game_names(variants=True), "game")}


PLUGINS = Plugins(PUZZLE_GROUP, Puzzle, ("instruction", "code"), built_in_names)


def puzzle_names(plugins: bool = False) -> list[str]:
    """The built-in puzzles' names in catalog order ("all puzzles"), and with `plugins` the usable plugins' after them."""
    return [puzzle.name for puzzle in PUZZLES] + ([plugin.name for plugin in PLUGINS.every() if plugin.problem is None] if plugins else [])


def get_puzzle(name: str) -> Puzzle[Any]:
    """The puzzle registered as `name`: a built-in, else an installed plugin's.

    Raises:
        UnknownPuzzleError: no such puzzle (the message lists the known names).
        PluginError: a plugin registers `name` but cannot be used (the message names its distribution and what to do).
    """
    try:
        return _BY_NAME[name]
    except (KeyError, TypeError):  # TypeError: a name read from a record may be a list or an object
        found = PLUGINS.usable(name) if isinstance(name, str) else None
    if found is None:
        raise UnknownPuzzleError(f"unknown puzzle {clip(name)}; known puzzles: {', '.join(puzzle_names(plugins=True))}")
    return found  # type: ignore[no-any-return]
