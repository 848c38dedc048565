"""`codebench export`: a reader that never writes into a run; an unknown format, a folder format without -o, an output
over an input, a missing run, a run given twice and a missing library are each one error line, exit 2, nothing
written."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from ..cli import run_cli
from .refusal import refused, snapshot


def test_an_export_reads_the_run_and_writes_only_its_output(run_dir: Path, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    before = snapshot((run_dir,))
    code, out, err = run_cli(capsys, "export", str(run_dir), "--to", "jsonl")
    assert code == 0 and err == "", err
    kinds = [json.loads(line)["kind"] for line in out.splitlines()]
    assert kinds == sorted(kinds, key=["samples", "executions", "games", "usage", "instances"].index) and "executions" in kinds
    code, _, err = run_cli(capsys, "export", str(run_dir), "--to", "jsonl", "-o", str(tmp_path / "rows.jsonl"))
    assert code == 0 and f"export written: {tmp_path / 'rows.jsonl'} ({len(kinds)} rows)" in err
    assert snapshot((run_dir,)) == before


def test_an_unknown_format(run_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    refused(capsys, "export", str(run_dir), "--to", "xlsx", contains="--to 'xlsx': choose jsonl, csv, parquet, inspect",
            inputs=(run_dir,))


@pytest.mark.parametrize("fmt", ["csv", "parquet", "inspect"])
def test_a_folder_format_needs_its_folder(run_dir: Path, capsys: pytest.CaptureFixture[str], fmt: str) -> None:
    refused(capsys, "export", str(run_dir), "--to", fmt, contains=f"--to {fmt} writes a folder of files: give it with -o FOLDER",
            inputs=(run_dir,))


@pytest.mark.parametrize(("fmt", "target", "message"), [
    ("jsonl", "run.sqlite", "is also an input"), ("jsonl", "run.sqlite-wal", "is also an input"), ("jsonl", ".", "is a directory"),
    ("csv", "run.sqlite", "is not a directory"),
    ("csv", "/proc/nonexistent/f", "cannot make the folder -o /proc/nonexistent/f")])  # an absolute target stays as it is
def test_an_output_over_an_input_or_where_none_can_be(run_dir: Path, capsys: pytest.CaptureFixture[str], fmt: str, target: str,
                                                       message: str) -> None:
    refused(capsys, "export", str(run_dir), "--to", fmt, "-o", str(run_dir / target), contains=message, inputs=(run_dir,))


def test_a_file_of_a_folder_format_over_an_input(run_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "samples.csv").symlink_to(run_dir / "run.sqlite")  # the folder's first file is a link to the database
    refused(capsys, "export", str(run_dir), "--to", "csv", "-o", str(tmp_path), contains="samples.csv is also an input",
            inputs=(run_dir, tmp_path))


def test_a_missing_run_and_a_run_given_twice(run_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    refused(capsys, "export", str(tmp_path / "nope"), "--to", "jsonl", contains="holds no run.sqlite: give the --out directory",
            inputs=(tmp_path,))
    refused(capsys, "export", str(run_dir), str(run_dir), "--to", "jsonl", contains="is given twice: give each run once",
            inputs=(run_dir,))


@pytest.mark.parametrize(("fmt", "module", "extra"), [("parquet", "pyarrow", "export"), ("inspect", "inspect_ai", "inspect")])
def test_a_missing_library_names_its_extra(run_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                           monkeypatch: pytest.MonkeyPatch, fmt: str, module: str, extra: str) -> None:
    monkeypatch.setitem(sys.modules, module, None)  # import fails as if not installed
    refused(capsys, "export", str(run_dir), "--to", fmt, "-o", str(tmp_path / "out"),
            contains=f"this format needs {module}: pip install codebench-puzzles[{extra}]", inputs=(run_dir,))
    assert not (tmp_path / "out").exists()
