"""`codebench puzzles generate`: unknown puzzles, levels, parameters and outputs."""

from __future__ import annotations

from pathlib import Path

import pytest

from .refusal import refused


@pytest.mark.parametrize(("argv", "message"), [
    (["towers", "--level", "1"], "unknown puzzle 'towers'"),
    (["hanoi", "--level", "9"], "hanoi: level 9 does not exist; levels are 1-6"),
    (["hanoi", "--level", "1", "--param", "n=3"], "cannot be combined with a level"),
    (["hanoi"], "give --level L"),
    (["hanoi", "--param", "n=99"], "parameter n=99: expected 1..24"),
    (["hanoi", "--param", "n=x"], "parameter n='x': expected an integer"),
    (["hanoi", "--param", "disks"], "expected KEY=VALUE"),
    (["hanoi", "--param", "colour=3"], "unknown parameter(s) colour"),
    (["hanoi", "--level", "1", "--param", "[red]n=3"], "[red]n"),  # user text is not markup
    (["rubik", "--level", "1", "--param", "reveal_scramble=maybe"], "reveal_scramble='maybe': expected true or false"),
    (["hanoi", "--level", "1", "--seed", "-5"], "seed -5: expected an integer 0..2^64-1"),
    (["hanoi", "--level", "1", "--seed", "99999999999999999999999"], "expected an integer 0..2^64-1"),
])
def test_bad_requests(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    refused(capsys, "puzzles", "generate", *argv, contains=message)


@pytest.mark.parametrize("target", ["folder", "/dev/full"])
def test_unwritable_outputs(tmp_path: Path, capsys: pytest.CaptureFixture[str], target: str) -> None:
    output = str(tmp_path) if target == "folder" else target
    refused(capsys, "puzzles", "generate", "hanoi", "--level", "1", "-o", output, inputs=(tmp_path,),
            contains="is a directory" if target == "folder" else "No space left on device")


def test_a_count_past_the_last_seed_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    output = tmp_path / "out.jsonl"
    refused(capsys, "puzzles", "generate", "hanoi", "--level", "1", "--seed", str(2**64 - 1), "--count", "2", "-o", str(output),
            contains="runs past the last seed 2^64-1", inputs=(tmp_path,))
