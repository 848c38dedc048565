"""Running the CLI in-process for tests: main(argv) → (exit code, stdout, stderr)."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from codebench.cli import main


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(list(argv))
    captured = capsys.readouterr()
    return int(exit_info.value.code or 0), captured.out, captured.err


def run_command(command: list[str], env: dict[str, str], timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """Run the CLI as its own process; a non-zero exit fails the test with what the command wrote to stderr."""
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"exit {done.returncode}:\n{done.stderr[-4000:]}"
    return done


def stored_count(out: Path, sql: str) -> int:
    """The number `sql` counts in the run database of `out`; 0 before the run has made it."""
    try:
        with sqlite3.connect(out / "run.sqlite", timeout=5) as db:
            return db.execute(sql).fetchone()[0]
    except sqlite3.Error:
        return 0  # not created yet


def kill_midway(command: list[str], out: Path, env: dict[str, str], stored: Callable[[Path], int], at_least: int) -> None:
    """Run `command --out OUT` as its own process and SIGKILL it once `stored(out)` reaches `at_least` (or it ended
    first, or two minutes passed): a run killed in the middle of its work, for a resume to finish."""
    killed = subprocess.Popen([*command, "--out", str(out)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while stored(out) < at_least and time.monotonic() < deadline and killed.poll() is None:
        time.sleep(0.01)
    killed.send_signal(signal.SIGKILL)
    killed.wait()
