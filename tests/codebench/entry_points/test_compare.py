"""`codebench compare`: a side names one run's model in one mode, or is refused naming what was typed and the sides
found; a side held by two runs must say which (N/MODEL:MODE); a side is never compared with itself, whether named
twice, given as one run directory twice, or as two runs holding the same samples (a copy)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ..cli import run_cli
from .conftest import mock_runs
from .refusal import refused

PUZZLES = ["--mode", "instruction", "--puzzles", "waterjug", "--levels", "1", "--instances-per-level", "2", "--samples", "2"]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Two runs of `mixed` in instruction mode on the same instances, at two temperatures (other requests)."""
    a, b = mock_runs(tmp_path_factory.mktemp("compare"), *((name, ["--model", "mixed", *PUZZLES, "--temperature", temperature])
                                                          for name, temperature in (("a", "0"), ("b", "0.5"))))
    return a, b


def test_run_against_run_names_each_side_s_run(runs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    a, b = map(str, runs)
    code, out, err = run_cli(capsys, "compare", a, b, "--a", "1/mixed:instruction", "--b", "2/mixed:instruction")
    assert code == 0 and "A = 1/mixed:instruction, B = 2/mixed:instruction; 4 pairs on 2 instances" in out, err
    refused(capsys, "report", a, b, inputs=runs, contains=f"{a} and {b} both hold mixed in instruction mode")


def test_a_side_held_by_two_runs_must_say_which(runs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    a, b = map(str, runs)
    refused(capsys, "compare", a, b, "--a", "mixed:instruction", "--b", "2/mixed:instruction", inputs=runs,
            contains="--a mixed:instruction: runs 1 and 2 both hold mixed in instruction mode: name one, as "
                     "1/mixed:instruction or 2/mixed:instruction")


def test_a_side_is_not_compared_with_itself(runs: tuple[Path, Path], tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    a, b = map(str, runs)
    refused(capsys, "compare", a, "--a", "mixed:instruction", "--b", "mixed:instruction", inputs=runs,
            contains="--a mixed:instruction and --b mixed:instruction name one side: compare two models, two modes or two "
                     "runs")
    refused(capsys, "compare", a, b, "--a", "2/mixed:instruction", "--b", "2/mixed:instruction", inputs=runs,
            contains="--a 2/mixed:instruction and --b 2/mixed:instruction name one side")
    refused(capsys, "compare", a, a, "--a", "1/mixed:instruction", "--b", "2/mixed:instruction", inputs=runs,
            contains=f"{a} is given twice: give each run once")
    copy = tmp_path / "copy"
    shutil.copytree(a, copy)
    refused(capsys, "compare", a, str(copy), "--a", "1/mixed:instruction", "--b", "2/mixed:instruction", inputs=(*runs, copy),
            contains="--a 1/mixed:instruction and --b 2/mixed:instruction hold the same samples (4 content keys in common")


@pytest.mark.parametrize(("side", "why"), [("nobody:instruction", "no run holds nobody in instruction mode"),
                                           ("mixed:instrution", "no run holds mixed in instrution mode"),
                                           ("2/mixed:code", "run 2 does not hold mixed in code mode")])
def test_an_unknown_side_names_what_was_typed_and_the_sides_found(runs: tuple[Path, Path], side: str, why: str,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    a, b = map(str, runs)
    refused(capsys, "compare", a, b, "--a", "1/mixed:instruction", "--b", side, inputs=runs,
            contains=f"--b {side}: {why} (sides found: 1/mixed:instruction, 2/mixed:instruction)")


@pytest.mark.parametrize(("side", "message"), [
    ("0/mixed:instruction", "--a '0/mixed:instruction': runs are numbered from 1"),
    ("²/mixed:instruction", "no run holds ²/mixed in instruction mode"),  # not a run number: part of a model's name
    ("3/mixed:instruction", "--a '3/mixed:instruction': there are only 2 run(s) on the command line")])
def test_a_run_number_is_one_of_the_runs_given(runs: tuple[Path, Path], side: str, message: str,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    refused(capsys, "compare", *map(str, runs), "--a", side, "--b", "2/mixed:instruction", inputs=runs, contains=message)
