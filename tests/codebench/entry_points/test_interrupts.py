"""Interrupts: Ctrl-C at random moments of a long generate (10 times) and SIGTERM end with exit 130 / 143, whole
lines only in the output, no partial file left and no traceback."""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


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
            while not _written(output, to_file) and time.monotonic() - started < 60:
                time.sleep(0.02)
            time.sleep(rng.uniform(0.0, 1.5))
            process.send_signal(signal.SIGINT)
            _, err = process.communicate(timeout=60)
        data = output.read_text()
        assert process.returncode == 130 and "Traceback" not in err, err
        assert data and data.endswith("\n") and all(json.loads(line)["puzzle"] == "sudoku" for line in data.splitlines())
        assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []  # no partial file left


def _written(output: Path, to_file: bool) -> int:
    """Bytes written so far: -o writes beside the file under a new random name (.NAME.*.partial), then renames."""
    growing = output.parent.glob(f".{output.name}.*.partial") if to_file else [output]
    try:
        return sum(path.stat().st_size for path in growing)
    except FileNotFoundError:  # renamed, or not made yet
        return 0


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
