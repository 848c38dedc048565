"""`codebench puzzles solve`: outputs that would destroy inputs, broken files, and well-formed records that are
inconsistent or beyond the solve bounds (refused before any search, naming the rule)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from .refusal import refused


def test_solving_into_the_input(records: Path, capsys: pytest.CaptureFixture[str]) -> None:
    refused(capsys, "puzzles", "solve", str(records), "-o", str(records), contains="is also an input", inputs=(records,))


@pytest.mark.parametrize("target", ["folder", "/dev/full"])
def test_unwritable_outputs(records: Path, capsys: pytest.CaptureFixture[str], target: str) -> None:
    output = str(records.parent) if target == "folder" else target
    refused(capsys, "puzzles", "solve", str(records), "-o", output, inputs=(records.parent,),
            contains="is a directory" if target == "folder" else "No space left on device")


def test_a_failure_midway_leaves_the_old_output_whole(records: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = records.parent / "broken.jsonl"
    lines = records.read_text().splitlines()
    broken.write_text("\n".join([lines[0], lines[1], "{not json", lines[2]]) + "\n")
    output = records.parent / "solved.jsonl"
    output.write_text("what was there before\n")
    refused(capsys, "puzzles", "solve", str(broken), "-o", str(output), contains="broken.jsonl:3: not valid JSON",
            inputs=(records.parent,))  # nothing new beside the output, the old output whole


@pytest.mark.parametrize(("text", "message"), [
    ("", "x.jsonl"),  # replaced by a missing path below
    ("[1, 2]\n", "expected a JSON object, got list"),
    ('{"id": "x", "puzzle": "hanoi"}\n', "record lacks"),
    ('{"id": "x", "puzzle": "hanoi", "level": 1, "seed": 0, "params": {}, "instance": {"n": "three"}, "meta": {}}\n',
     "does not fit the hanoi schema"),
    ('{"id": "x", "puzzle": "towers", "level": 1, "seed": 0, "params": {}, "instance": {}, "meta": {}}\n', "unknown puzzle 'towers'"),
    ('{"id": "x", "id": "y", "puzzle": "hanoi", "level": 1, "seed": 0, "params": {}, "instance": {}, "meta": {}}\n',
     "repeated key at /id"),
])
def test_files_that_are_not_records(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, message: str) -> None:
    path = tmp_path / "x.jsonl"
    if text:
        path.write_text(text)
    err = refused(capsys, "puzzles", "solve", str(path), contains=message if text else "cannot read", inputs=(tmp_path,))
    assert "x.jsonl:1: " in err or not text  # names the line


@pytest.mark.parametrize(("puzzle", "changes", "message"), [
    ("hanoi", {"n": 40}, "n=40"),
    ("waterjug", {"capacities": {"A": 10**9, "B": 10**9 - 1}, "target": 5}, "the solve bound"),
    ("sudoku", {"grid": [[1, 1, 0, 0]] + [[0] * 4] * 3}, "the givens conflict: row 0 repeats 1"),
    ("sudoku", {"grid": [[1, 2, 0, 0], [0, 0, 3, 0], [0] * 4, [0] * 4]}, "consistent but have no completion"),
    ("rubik", {"state": "U" * 54}, "state does not have 9 facelets of each of URFDLB"),
    ("checkers", {"n": 5}, "board 'R_B' does not match n=5"),
])
def test_inconsistent_or_unbounded_records_are_refused_before_any_search(
        edited: Callable[..., Path], capsys: pytest.CaptureFixture[str], puzzle: str, changes: dict[str, object],
        message: str) -> None:
    path = edited(puzzle, **changes)
    err = refused(capsys, "puzzles", "solve", str(path), contains=message, inputs=(path,))
    assert "will not be solved" in err or "record" in err
