"""codebench's puzzle library: generators, strict validators, reference solvers and schemas.

Usable on its own; it never imports codebench, Docker, the network or a model client.
"""

from ._catalog import PUZZLES, get_puzzle, puzzle_names
from ._errors import ConfigError, InstanceFormatError, PuzzleError, UnknownPuzzleError
from ._json import StrictJSONError, dumps_canonical, loads_strict
from ._protocol import LEVELS, MAX_SEED, Issue, IssueCode, Puzzle, Record, Verdict, with_repeated_keys

__all__ = [
    "LEVELS",
    "MAX_SEED",
    "PUZZLES",
    "ConfigError",
    "InstanceFormatError",
    "Issue",
    "IssueCode",
    "Puzzle",
    "PuzzleError",
    "Record",
    "StrictJSONError",
    "UnknownPuzzleError",
    "Verdict",
    "dumps_canonical",
    "get_puzzle",
    "loads_strict",
    "puzzle_names",
    "with_repeated_keys",
]
