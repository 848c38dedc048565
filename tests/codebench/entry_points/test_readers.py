"""Readers never write: `report` (every format, the HTML page) and `compare` over a run copied with its `-wal` but
without its `-shm`, and over a run on a read-only mount, answer as over the same run checkpointed, and leave its
directory byte for byte as it was (no `-shm` created beside the store)."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest

from codebench.run.store import Store

from ..cli import run_cli
from .refusal import snapshot

V1 = Path(__file__).parents[1] / "data" / "v1_run"
ROOT = Path(__file__).resolve().parents[3]
READS = [["--format", fmt] for fmt in ("table", "md", "csv", "json")]
COMPARE = ["--a", "mixed:code", "--b", "wrong:code", "--format", "json"]


def _copied_with_its_log(tmp_path: Path) -> tuple[Path, Path]:
    """(the run checkpointed, a copy taken while its last commits were only in the -wal: no -shm copied)."""
    run = tmp_path / "run"
    shutil.copytree(V1, run)
    Store(run / "run.sqlite").close()  # the current schema
    copy = tmp_path / "copy"
    copy.mkdir()
    with closing(sqlite3.connect(run / "run.sqlite")) as db:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA wal_autocheckpoint=0")
        with db:  # a commit that only the log holds: a reader that skipped it would report other numbers
            db.execute("UPDATE executions SET status = 'timeout' WHERE rowid % 3 = 0")
        for name in ("run.sqlite", "run.sqlite-wal"):
            shutil.copy2(run / name, copy / name)
    assert not (run / "run.sqlite-wal").exists()  # closing folded the log into the file
    return run, copy


def _answers(capsys: pytest.CaptureFixture[str], folder: Path, html: Path) -> list[str]:
    answers = []
    for argv in _reads(folder, html):
        code, out, err = run_cli(capsys, *argv)
        assert code == 0, err
        answers.append(out.replace(str(folder), "RUN"))
    return answers


def _reads(folder: Path, html: Path) -> list[list[str]]:
    """Every format, compare, and the HTML page (written outside the run)."""
    return [*(["report", str(folder), *read] for read in READS), ["compare", str(folder), *COMPARE],
            ["report", str(folder), "--html", str(html)]]


def test_a_run_copied_with_its_log_and_no_shm_is_read_whole_and_left_as_it_was(tmp_path: Path,
                                                                                capsys: pytest.CaptureFixture[str]) -> None:
    run, copy = _copied_with_its_log(tmp_path)
    before = snapshot((copy,))
    assert _answers(capsys, copy, tmp_path / "copy.html") == _answers(capsys, run, tmp_path / "run.html")
    assert snapshot((copy,)) == before


def test_a_run_on_a_read_only_mount_is_read_not_called_damaged(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Bound read-only in a mount namespace of its own (root can write past a chmod; not past a read-only mount)."""
    run, copy = _copied_with_its_log(tmp_path)
    before = snapshot((copy,))
    expected = _answers(capsys, run, tmp_path / "run.html")
    script = "; ".join(f"{sys.executable} -m codebench {' '.join(argv)}" for argv in _reads(copy, tmp_path / "copy.html"))
    done = subprocess.run(["unshare", "--mount", "--map-root-user", "sh", "-ec",
                           f"mount --bind {copy} {copy}; mount -o remount,bind,ro {copy}; touch {copy}/x 2>/dev/null && exit 9; "
                           f"{script}; {sys.executable} -m codebench report {copy} -o {copy}/r.md || echo refused $?"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "is damaged" not in done.stderr and f"-o {copy}/r.md: cannot write into {copy} (a read-only file system)" in done.stderr
    assert done.stdout.replace(str(copy), "RUN") == "".join(expected) + "refused 2\n"
    assert snapshot((copy,)) == before
