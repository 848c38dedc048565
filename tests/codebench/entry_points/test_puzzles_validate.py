"""`codebench puzzles validate`: answers files that are missing, ambiguous or malformed, records whose instance
breaks its rules, and user text that must not be read as markup."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from ..cli import run_cli
from .refusal import refused


def test_missing_and_endless_files(records: Path, capsys: pytest.CaptureFixture[str]) -> None:
    refused(capsys, "puzzles", "validate", str(records), "--answers", str(records.parent / "nope.jsonl"),
            contains="cannot read", inputs=(records.parent,))
    refused(capsys, "puzzles", "validate", str(records.parent / "nope.jsonl"), contains="cannot read", inputs=(records.parent,))
    refused(capsys, "puzzles", "validate", "/dev/zero", contains="/dev/zero is larger than 256 MiB")


@pytest.mark.parametrize(("text", "message"), [
    ('{"id": "hanoi/L1/s0", "answer": {"moves": []}}\n{"id": "hanoi/L1/s0", "answer": {"moves": []}}\n',
     "answers.jsonl:2: a second answer for 'hanoi/L1/s0'"),
    ('{"id": ["hanoi/L1/s0"], "answer": {}}\n', 'answers.jsonl:1: expected {"id": "<record id>", "answer": ...}'),
    ('{"id": "hanoi/L1/s0"}\n', 'answers.jsonl:1: expected {"id": "<record id>", "answer": ...}'),
    ("{nope\n", "answers.jsonl:1: not valid JSON"),
])
def test_answers_that_are_ambiguous_or_malformed(records: Path, capsys: pytest.CaptureFixture[str], text: str, message: str) -> None:
    answers = records.parent / "answers.jsonl"
    answers.write_text(text)
    refused(capsys, "puzzles", "validate", str(records), "--answers", str(answers), contains=message, inputs=(records.parent,))


def test_a_record_id_must_be_a_string(tmp_path: Path, records: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = json.loads(records.read_text().splitlines()[0])
    path = tmp_path / "listed.jsonl"
    path.write_text(json.dumps({**record, "id": ["a"]}) + "\n")
    refused(capsys, "puzzles", "validate", str(path), contains="'id' must be a string, got list", inputs=(path,))


@pytest.mark.parametrize(("puzzle", "changes", "message"), [
    ("rubik", {"state": "U" * 54}, "state does not have 9 facelets of each of URFDLB"),
    ("checkers", {"n": 5}, "does not match n=5"),
    ("sat", {"num_vars": 10**9}, "num_vars=1000000000: expected an integer 1..100000"),
])
def test_an_answer_to_an_impossible_instance_gets_no_verdict(edited: Callable[..., Path], capsys: pytest.CaptureFixture[str],
                                                             puzzle: str, changes: dict[str, object], message: str) -> None:
    path = edited(puzzle, **changes)
    refused(capsys, "puzzles", "validate", str(path), contains=message, inputs=(path,))


def test_a_line_separator_inside_json_is_not_a_line_break(tmp_path: Path, records: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = json.loads(records.read_text().splitlines()[0])
    path = tmp_path / "separator.jsonl"
    path.write_text(json.dumps({**record, "id": "a\u2028b", "answer": {"moves": []}}, ensure_ascii=False) + "\n", encoding="utf-8")
    code, out, err = run_cli(capsys, "puzzles", "validate", str(path))
    assert code == 1 and "0 valid, 1 invalid" in out, err


def test_user_text_is_never_read_as_markup(tmp_path: Path, records: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = json.loads(records.read_text().splitlines()[0])
    path = tmp_path / "markup.jsonl"
    path.write_text(json.dumps({**record, "id": "[bold red]x[/]", "answer": {"moves": [], "[u]": 1}}) + "\n")
    code, out, _ = run_cli(capsys, "puzzles", "validate", str(path))
    assert code == 1 and "[bold red]x[/]" in out and "'[u]'" in out
    code, out, _ = run_cli(capsys, "puzzles", "validate", str(path), "--json")
    assert code == 1 and json.loads(out)["id"] == "[bold red]x[/]" and "'[u]'" in out


@pytest.mark.parametrize(("value", "message"), [
    ("1" * 5000, "an integer of 5000 digits is longer than this parser reads"),
    ("[" * 100_000 + "]" * 100_000, "the text nests arrays and objects deeper than this parser reads"),
    ("NaN", "NaN is not valid JSON"),
    ("-Infinity", "-Infinity is not valid JSON"),
])
def test_a_line_no_json_parser_should_read_is_refused_by_line(records: Path, capsys: pytest.CaptureFixture[str], value: str,
                                                              message: str) -> None:
    answers = records.parent / "answers.jsonl"
    answers.write_text(f'{{"id": "hanoi/L1/s0", "answer": {value}}}\n')
    refused(capsys, "puzzles", "validate", str(records), "--answers", str(answers), contains=f"answers.jsonl:1: not valid JSON ({message}",
            inputs=(records.parent,))


def test_a_lone_surrogate_is_an_answer_that_fails(records: Path, capsys: pytest.CaptureFixture[str]) -> None:
    answers = records.parent / "answers.jsonl"
    answers.write_text('{"id": "hanoi/L1/s0", "answer": "\\ud800"}\n')
    code, out, _ = run_cli(capsys, "puzzles", "validate", str(records), "--answers", str(answers), "--json")
    verdicts = [json.loads(line) for line in out.splitlines()]
    assert code == 1 and verdicts[0]["issues"][0]["code"] == "malformed" and len(verdicts) == 3


def test_a_record_id_with_escape_sequences_is_shown_escaped(records: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A shared records file names its record with a clear-screen, a retitle and a bidi override: they are shown as escapes."""
    record = json.loads(records.read_text().splitlines()[0])
    record["id"] = "x\x1b[2J\x1b]0;owned\x07\u202e"
    hostile = records.parent / "hostile.jsonl"
    hostile.write_text(json.dumps(record) + "\n")
    code, out, err = run_cli(capsys, "puzzles", "validate", str(hostile))
    assert code == 1, err  # it has no answer
    assert "\x1b" not in out + err and "\u202e" not in out + err and "x\\x1b[2J" in out, out
