"""`codebench puzzles show`: what it is asked to render must exist."""

from __future__ import annotations

import pytest

from .refusal import refused


@pytest.mark.parametrize(("argv", "message"), [
    (["nope", "--level", "1"], "unknown puzzle 'nope'; known puzzles: hanoi"),
    (["hanoi"], "give --level L, --complexity λ, or --param KEY=VALUE"),
    (["hanoi", "--level", "99"], "hanoi: level 99 does not exist; levels are 1-6"),
    (["hanoi", "--param", "n=40"], "parameter n=40: expected 1..24"),
    (["hanoi", "--level", "1", "--seed", "-1"], "seed -1: expected an integer 0..2^64-1"),
    (["rubik", "--level", "1", "--param", "reveal_scramble=maybe"], "expected true or false"),
    (["sudoku", "--param", "[b]size=9"], "unknown parameter(s) [b]size; this puzzle takes size"),
])
def test_bad_requests(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    refused(capsys, "puzzles", "show", *argv, contains=message)
