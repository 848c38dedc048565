"""`codebench demo`: its options are checked before the mock server starts, so a bad one is the only line printed."""

from __future__ import annotations

from pathlib import Path

import pytest

from .refusal import refused


@pytest.mark.parametrize(("argv", "message"), [
    (["--samples", "0"], "--samples 0: give a whole number from 1 to 10000"),
    (["--instances-per-level", "1000000"], "--instances-per-level 1000000: give a whole number from 1 to 10000"),
    (["--cpu", "-1"], "--cpu -1: give a number above 0, at most 3600"),
    (["--behavior", "genius"], "behaviour 'genius' is unknown: choose one of oracle"),
])
def test_bad_options(tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    refused(capsys, "demo", *argv, "--out", str(tmp_path / "demo"), contains=message, inputs=(tmp_path,))


def test_an_out_that_is_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    taken = tmp_path / "demo"
    taken.write_text("keep me\n")
    refused(capsys, "demo", "--out", str(taken), contains=f"--out {taken} is not a directory", inputs=(tmp_path,))
