"""`codebench report`: a reader never writes. Folders without a run, files that are not codebench run stores,
damaged stores, and outputs that would destroy the database are refused, and the run directory is left as it was."""

from __future__ import annotations

import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from codebench.errors import StoreError
from codebench.run.store import Store

from .refusal import refused

V1 = Path(__file__).parents[1] / "data" / "v1_run"


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "run"
    shutil.copytree(V1, folder)
    return folder


def test_a_folder_without_a_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    refused(capsys, "report", str(tmp_path), contains=f"{tmp_path} holds no run.sqlite: give the --out directory of a run",
            inputs=(tmp_path,))
    refused(capsys, "report", str(tmp_path / "nope"), contains="holds no run.sqlite", inputs=(tmp_path,))


@pytest.mark.parametrize(("content", "message"), [
    (b"", "holds no codebench run yet"),
    (b"garbage, not a database" * 100, "run.sqlite"),
    ("foreign", "run.sqlite"),
])
def test_files_that_are_not_codebench_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes | str,
                                           message: str) -> None:
    path = tmp_path / "run.sqlite"
    if content == "foreign":
        with closing(sqlite3.connect(path)) as db, db:
            db.execute("CREATE TABLE notes (body TEXT)")
    else:
        path.write_bytes(content)  # type: ignore[arg-type]
    refused(capsys, "report", str(tmp_path), contains=message, inputs=(tmp_path,))
    if content != b"":  # an empty file is where a run may start: only a writer may use it
        with pytest.raises(StoreError):
            Store(path)


@pytest.mark.parametrize("value", ["not json", '{"base_url": 1}', '{"base_url": "x", "limits": {"cpu_s": "fast"}}', "[1, 2]"])
def test_a_run_document_of_the_wrong_shape_is_a_damaged_store(run_dir: Path, capsys: pytest.CaptureFixture[str], value: str) -> None:
    Store(run_dir / "run.sqlite").close()
    with closing(sqlite3.connect(run_dir / "run.sqlite")) as db, db:
        db.execute("UPDATE meta SET value = ? WHERE key = 'run'", (value,))
    refused(capsys, "report", str(run_dir), contains="is damaged", inputs=(run_dir,))


@pytest.mark.parametrize(("target", "message"), [
    ("database", "is also an input"), ("folder", "is a directory"), ("/dev/full", "No space left on device")])
def test_outputs_that_would_destroy_or_cannot_be_written(run_dir: Path, capsys: pytest.CaptureFixture[str], target: str,
                                                         message: str) -> None:
    output = {"database": str(run_dir / "run.sqlite"), "folder": str(run_dir)}.get(target, target)
    refused(capsys, "report", str(run_dir), "-o", output, contains=message, inputs=(run_dir,))


def test_an_unknown_format(run_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    refused(capsys, "report", str(run_dir), "--format", "xml", contains="--format 'xml': choose table, md, csv, json",
            inputs=(run_dir,))
