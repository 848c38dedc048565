"""`--param KEY=VALUE` flags, shared by the commands that take them: a value is JSON where it parses, else a string."""

from __future__ import annotations

import json
from typing import Any

from ..errors import InputError


def parse_params(pairs: list[str], example: str = "n=12") -> dict[str, Any]:
    """KEY=VALUE pairs as a mapping (a later pair wins).

    Raises:
        InputError: a pair without `=` or without a key.
    """
    params: dict[str, Any] = {}
    for pair in pairs:
        key, sep, text = pair.partition("=")
        if not sep or not key.strip():
            raise InputError(f"--param {pair!r}: expected KEY=VALUE, e.g. --param {example}")
        try:
            params[key.strip()] = json.loads(text)
        except json.JSONDecodeError:
            params[key.strip()] = text
    return params


def puzzle_params(pairs: list[str]) -> dict[str, dict[str, Any]]:
    """PUZZLE.KEY=VALUE pairs as puzzle -> {key: value}.

    Raises:
        InputError: a pair that is not PUZZLE.KEY=VALUE.
    """
    example = "rubik.reveal_scramble=true"
    grouped: dict[str, dict[str, Any]] = {}
    for dotted, value in parse_params(pairs, example).items():
        puzzle, dot, key = dotted.partition(".")
        if not dot or not puzzle or not key:
            raise InputError(f"--param {dotted!r}: expected PUZZLE.KEY=VALUE, e.g. --param {example}")
        grouped.setdefault(puzzle, {})[key] = value
    return grouped
