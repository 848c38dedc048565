"""Careless input at every entry point: one `error:` line, exit 2, and every input byte-identical afterwards.
Plus interrupts: Ctrl-C on a long generate ends with exit 130, whole lines and no traceback."""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .cli import run_cli

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def records(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    path = tmp_path / "x.jsonl"
    code, _, _ = run_cli(capsys, "puzzles", "generate", "hanoi", "--level", "1", "--count", "3", "-o", str(path))
    assert code == 0
    return path


def refused(capsys: pytest.CaptureFixture[str], *argv: str, contains: str) -> str:
    code, out, err = run_cli(capsys, *argv)
    assert code == 2, (out, err)
    assert err.startswith("error: ") and len(err.strip().split("\n")) == 1 and "Traceback" not in err, err
    assert contains in " ".join(err.split()), err
    return err


def test_solving_into_the_input_is_refused_and_the_input_kept(records: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = records.read_bytes()
    refused(capsys, "puzzles", "solve", str(records), "-o", str(records), contains="is also an input")
    assert records.read_bytes() == before


@pytest.mark.parametrize("target", ["folder", "/dev/full"])
def test_unwritable_outputs_are_refused(records: Path, capsys: pytest.CaptureFixture[str], target: str) -> None:
    output = str(records.parent) if target == "folder" else target
    refused(capsys, "puzzles", "solve", str(records), "-o", output,
            contains="is a directory" if target == "folder" else "No space left on device")


def test_a_failure_midway_leaves_the_old_output_whole(records: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = records.parent / "broken.jsonl"
    lines = records.read_text().splitlines()
    broken.write_text("\n".join([lines[0], lines[1], "{not json", lines[2]]) + "\n")
    output = records.parent / "solved.jsonl"
    output.write_text("what was there before\n")
    refused(capsys, "puzzles", "solve", str(broken), "-o", str(output), contains="broken.jsonl:3: not valid JSON")
    assert output.read_text() == "what was there before\n"
    assert sorted(p.name for p in records.parent.iterdir()) == ["broken.jsonl", "solved.jsonl", "x.jsonl"]


def test_a_missing_answers_file(records: Path, capsys: pytest.CaptureFixture[str]) -> None:
    refused(capsys, "puzzles", "validate", str(records), "--answers", str(records.parent / "nope.jsonl"),
            contains="cannot read")


def test_two_answers_for_one_record_are_refused(records: Path, capsys: pytest.CaptureFixture[str]) -> None:
    answers = records.parent / "answers.jsonl"
    answers.write_text('{"id": "hanoi/L1/s0", "answer": {"moves": []}}\n{"id": "hanoi/L1/s0", "answer": {"moves": []}}\n')
    before = answers.read_bytes()
    refused(capsys, "puzzles", "validate", str(records), "--answers", str(answers), contains="answers.jsonl:2: a second answer")
    assert answers.read_bytes() == before


def test_a_record_id_must_be_a_string(tmp_path: Path, records: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = json.loads(records.read_text().splitlines()[0])
    path = tmp_path / "listed.jsonl"
    path.write_text(json.dumps({**record, "id": ["a"]}) + "\n")
    refused(capsys, "puzzles", "validate", str(path), contains="'id' must be a string, got list")


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
    refused(capsys, "puzzles", "generate", "hanoi", "--level", "1", "--param", "[red]n=3", contains="[red]n")


@pytest.mark.parametrize(("argv", "message"), [
    (["--seeds", "0-1000000000"], "names more than 10000 values"),
    (["--levels", "7"], "'7' must go upwards within 1-6"),
    (["--cpu", "0"], "--cpu 0.0: give a positive number"),
    (["--baseline", "missing.json"], "does not exist: write it first with --update-baseline"),
    (["--backend", "nope"], "--backend 'nope': choose one of docker, local"),
    (["--workers", "0"], "--workers 0: a sandbox needs at least one worker"),
])
def test_check_refuses_bad_options_before_starting_a_sandbox(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                             argv: list[str], message: str) -> None:
    solver = tmp_path / "solver.py"
    solver.write_text("def solve(instance):\n    return {}\n")
    started = time.monotonic()
    refused(capsys, "check", str(solver), "--puzzle", "hanoi", *argv, contains=message)
    assert time.monotonic() - started < 5


@pytest.mark.parametrize("to_file", [True, False])
def test_ctrl_c_on_a_long_generate_exits_130_with_whole_lines(tmp_path: Path, to_file: bool) -> None:
    rng = random.Random(7)
    for attempt in range(5):
        output = tmp_path / f"out{attempt}.jsonl"
        command = [sys.executable, "-m", "codebench", "puzzles", "generate", "sudoku", "--level", "5", "--count", "100000"]
        with output.open("w") as stdout:
            process = subprocess.Popen([*command, "-o", str(output)] if to_file else command, cwd=ROOT, stderr=subprocess.PIPE,
                                       stdout=subprocess.DEVNULL if to_file else stdout, text=True,
                                       preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
            started = time.monotonic()  # after the first record (start-up is slow on a loaded machine), at a random moment
            growing = output.with_name(f".{output.name}.partial") if to_file else output  # -o writes beside, then renames
            while (not growing.exists() or not growing.stat().st_size) and time.monotonic() - started < 60:
                time.sleep(0.02)
            time.sleep(rng.uniform(0.0, 1.5))
            process.send_signal(signal.SIGINT)
            _, err = process.communicate(timeout=60)
        data = output.read_text()
        assert process.returncode == 130 and "Traceback" not in err, err
        assert data and data.endswith("\n") and all(json.loads(line)["puzzle"] == "sudoku" for line in data.splitlines())
        assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []  # no partial file left


def test_sigterm_on_a_long_generate_exits_143_with_whole_lines(tmp_path: Path) -> None:
    output = tmp_path / "hanoi.jsonl"
    process = subprocess.Popen([sys.executable, "-m", "codebench", "puzzles", "generate", "hanoi", "--level", "6", "--count", "100000",
                                "-o", str(output)], cwd=ROOT, stderr=subprocess.PIPE, text=True)
    time.sleep(2.0)
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=60)
    data = output.read_text()
    assert process.returncode == 143 and err == ""
    assert data.endswith("\n") and all(json.loads(line)["puzzle"] == "hanoi" for line in data.splitlines())


@pytest.mark.parametrize("which", ["junit", "baseline"])
def test_check_never_writes_over_the_solver(tmp_path: Path, capsys: pytest.CaptureFixture[str], which: str) -> None:
    solver = tmp_path / "solver.py"
    solver.write_text("def solve(instance):\n    return {}\n")
    before = solver.read_bytes()
    extra = ["--junit", str(solver)] if which == "junit" else ["--baseline", str(solver), "--update-baseline"]
    refused(capsys, "check", str(solver), "--puzzle", "hanoi", *extra, contains="is also an input")
    assert solver.read_bytes() == before


def test_report_never_writes_over_its_database(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = Path(__file__).parent / "data" / "v1_run" / "run.sqlite"
    before = data.read_bytes()
    refused(capsys, "report", str(data.parent), "-o", str(data), contains="is also an input")
    refused(capsys, "report", str(data.parent), "-o", str(tmp_path), contains="is a directory")
    assert data.read_bytes() == before


@pytest.mark.parametrize("argv", [["puzzles", "validate", "/dev/zero"], ["puzzles", "import", "/dev/zero"],
                                  ["check", "/dev/zero", "--puzzle", "hanoi"], ["run", "--config", "/dev/zero", "--dry-run"]])
def test_an_endless_input_is_refused_not_read_for_ever(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    refused(capsys, *argv, contains="/dev/zero is larger than 256 MiB")
