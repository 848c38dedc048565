"""Fixtures shared by the entry-point modules: small record files made by the CLI itself."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from codebench.cli import main
from codebench.model.mock_server import start_mock_server

from ..cli import run_cli

V1 = Path(__file__).parents[1] / "data" / "v1_run"  # a small run, stored in the first schema


@pytest.fixture
def records(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """Three Hanoi level-1 records, without answers."""
    path = tmp_path / "x.jsonl"
    code, _, _ = run_cli(capsys, "puzzles", "generate", "hanoi", "--level", "1", "--count", "3", "-o", str(path))
    assert code == 0
    return path


@pytest.fixture
def edited(tmp_path: Path, capsys: pytest.CaptureFixture[str]):  # type: ignore[no-untyped-def]
    """edited(puzzle, level, **instance_changes) → a one-record file whose instance has those fields replaced."""
    def make(puzzle: str, level: int = 1, **changes: object) -> Path:
        code, out, _ = run_cli(capsys, "puzzles", "generate", puzzle, "--level", str(level))
        assert code == 0
        record = json.loads(out)
        record["instance"].update(changes)
        path = tmp_path / f"{puzzle}-edited.jsonl"
        path.write_text(json.dumps(record) + "\n")
        return path
    return make


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    """A copy of a small stored run, to read or spoil."""
    folder = tmp_path / "run"
    shutil.copytree(V1, folder)
    return folder


def mock_runs(folder: Path, *runs: tuple[str, list[str]]) -> list[Path]:
    """Runs of the mock model into `folder`, each (its directory's name, its options), served by one mock server."""
    with start_mock_server() as server:
        for name, options in runs:
            with pytest.raises(SystemExit) as done:
                main(["run", "--base-url", server.url, *options, "--out", str(folder / name)])
            assert not done.value.code
    return [folder / name for name, _ in runs]
