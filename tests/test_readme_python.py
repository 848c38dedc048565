"""The README's "From Python" section runs as written, and its run equals `codebench run` with the same options."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from codebench.model.mock_server import start_mock_server

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.docker

VARYING = {"base_url", "key", "sample_id", "cpu_s", "wall_s", "latency_s", "peak_mib"}  # the endpoint (a free port), and measurements
# the README's RunSpec, as `codebench run` flags (a change to one side only fails the comparison)
CLI_OPTIONS = ["--model", "mixed", "--mode", "both", "--puzzles", "hanoi,river", "--levels", "1,2", "--instances-per-level", "2",
               "--samples", "2", "--out", "runs/py"]


def readme_python() -> str:
    """Every ```python block of the README's "From Python" section, in order: one script."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = re.search(r"^## From Python\n(.*?)^## ", text, re.S | re.M)
    assert section, "the README has no '## From Python' section"
    blocks = re.findall(r"^```python\n(.*?)^```", section.group(1), re.S | re.M)
    assert len(blocks) >= 2, "the section's examples are gone"
    return "\n".join(blocks)


def codebench(*args: str, cwd: Path) -> str:
    done = subprocess.run([sys.executable, "-m", "codebench", *args], cwd=cwd, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_readme_python_example_runs_and_equals_the_cli(tmp_path: Path) -> None:
    library, command = tmp_path / "library", tmp_path / "command"
    library.mkdir()
    command.mkdir()
    done = subprocess.run([sys.executable, "-c", readme_python()], cwd=library, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "every planned result is counted" in done.stdout and "no budget held anything back" in done.stdout
    with start_mock_server(behavior="mixed") as server:
        printed = codebench("run", *CLI_OPTIONS, "--base-url", server.url, cwd=command)
    assert printed.strip() and printed.strip() in done.stdout  # the table the run printed, as the library's call printed it
    for format in ("json", "csv", "md"):  # the same results, read back the same way (the run's name, runs/py, is shown)
        assert codebench("report", "runs/py", "--format", format, cwd=library) == codebench("report", "runs/py", "--format", format,
                                                                                           cwd=command), format
    rows = [exported(codebench("export", "runs/py", "--to", "jsonl", cwd=where)) for where in (library, command)]
    assert rows[0] == rows[1] and len(rows[0]) > 40


def exported(jsonl: str) -> list[dict]:
    """The rows without what names the endpoint (its URL is in each request's key) and what was measured."""
    return [{name: value for name, value in json.loads(line).items() if name not in VARYING} for line in jsonl.splitlines()]
