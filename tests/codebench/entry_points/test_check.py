"""`codebench check`: everything wrong with its options, the solver file, the baseline or the outputs is refused
before a sandbox starts; a missing engine exits 3 with the fix; nothing is ever written over the solver."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from .refusal import refused


@pytest.fixture
def solver(tmp_path: Path) -> Path:
    path = tmp_path / "solver.py"
    path.write_text("def solve(instance):\n    return {}\n")
    return path


@pytest.mark.parametrize(("argv", "message"), [
    (["--puzzle", "towers"], "unknown puzzle 'towers'"),
    (["--puzzle", "hanoi,sat"], "unknown puzzle 'hanoi,sat'"),
    (["--levels", "1-x"], "--levels '1-x': expected a range such as 1-6"),
    (["--levels", "7"], "'7' must go upwards within 1-6"),
    (["--seeds", "0-1000000000"], "names more than 10000 values"),
    (["--cpu", "0"], "--cpu 0.0: give a positive number of CPU seconds per instance, at most 3600"),
    (["--cpu", "nan"], "--cpu nan: give a positive number"),
    (["--cpu", "inf"], "--cpu inf: give a positive number"),
    (["--memory", "1"], "--memory 1: give MiB per instance, 16-65536"),
    (["--memory", "1000000"], "--memory 1000000: give MiB per instance, 16-65536"),
    (["--backend", "vm"], "--backend 'vm': choose one of docker, local, unsafe-local"),
    (["--workers", "0"], "--workers 0: give a whole number from 1 to 1024"),
    (["--executor", "cluster"], "--executor 'cluster': choose one of local, ray"),
    (["--ray-address", "auto"], "--ray-address needs --executor ray"),
    (["--workers", "100000"], "--workers 100000: give a whole number from 1 to 1024"),
    (["--update-baseline"], "--update-baseline needs --baseline FILE"),
    (["--baseline", "missing.json"], "does not exist: write it first with --update-baseline"),
])
def test_bad_options_are_refused_before_a_sandbox_starts(solver: Path, capsys: pytest.CaptureFixture[str], argv: list[str],
                                                         message: str) -> None:
    started = time.monotonic()
    refused(capsys, "check", str(solver), *(["--puzzle", "hanoi"] if "--puzzle" not in argv else []), *argv, contains=message,
            inputs=(solver.parent,))
    assert time.monotonic() - started < 5


@pytest.mark.parametrize(("content", "message"), [
    (None, "cannot read {path}: No such file or directory"),
    (b"\xff\xfe", "cannot read {path}: not UTF-8 text"),
    ("folder", "cannot read {path}: Is a directory"),
])
def test_solver_files_that_cannot_be_read(tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes | str | None,
                                          message: str) -> None:
    path = tmp_path / "solver.py"
    if content == "folder":
        path.mkdir()
    elif isinstance(content, bytes):
        path.write_bytes(content)
    refused(capsys, "check", str(path), "--puzzle", "hanoi", contains=message.format(path=path), inputs=(tmp_path,))
    refused(capsys, "check", "/dev/zero", "--puzzle", "hanoi", contains="/dev/zero is larger than 256 MiB")


@pytest.mark.parametrize(("text", "message"), [
    ("{", "cannot read baseline"),
    ("[1]", 'is not a codebench baseline (expected {"puzzle", "results"})'),
    ('{"puzzle": "sat", "results": {}}', "is for puzzle 'sat', not 'hanoi'"),
])
def test_baselines_that_are_not_baselines(solver: Path, capsys: pytest.CaptureFixture[str], text: str, message: str) -> None:
    baseline = solver.parent / "baseline.json"
    baseline.write_text(text)
    refused(capsys, "check", str(solver), "--puzzle", "hanoi", "--baseline", str(baseline), contains=message,
            inputs=(solver.parent,))


@pytest.mark.parametrize("which", ["junit", "baseline"])
def test_check_never_writes_over_the_solver(solver: Path, capsys: pytest.CaptureFixture[str], which: str) -> None:
    extra = ["--junit", str(solver)] if which == "junit" else ["--baseline", str(solver), "--update-baseline"]
    refused(capsys, "check", str(solver), "--puzzle", "hanoi", *extra, contains="is also an input", inputs=(solver.parent,))


def test_a_junit_path_that_is_a_folder(solver: Path, capsys: pytest.CaptureFixture[str]) -> None:
    refused(capsys, "check", str(solver), "--puzzle", "hanoi", "--junit", str(solver.parent),
            contains=f"--junit {solver.parent} is a directory: give a file name", inputs=(solver.parent,))


def test_a_missing_engine_exits_3_with_the_fix(solver: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
    refused(capsys, "check", str(solver), "--puzzle", "hanoi", "--levels", "1", "--seeds", "1", code=3,
            contains="start the Docker engine: sudo scripts/ensure-docker", inputs=(solver.parent,))
