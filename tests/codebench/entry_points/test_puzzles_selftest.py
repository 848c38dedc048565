"""`codebench puzzles selftest`: the seed count is bounded and the puzzles must exist."""

from __future__ import annotations

import pytest

from .refusal import refused


@pytest.mark.parametrize(("argv", "message"), [
    (["--seeds", "0"], "0 is not in the range 1<=x<=10000"),
    (["--seeds", "100000"], "100000 is not in the range 1<=x<=10000"),
    (["--puzzle", "towers"], "unknown puzzle 'towers'"),
])
def test_bad_requests(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    refused(capsys, "puzzles", "selftest", *argv, contains=message)
