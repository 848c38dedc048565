"""The one `error:` line is harmless whatever it quotes: a path, a name or a server's message with escape sequences
(clear screen, retitle, an OSC 8 link, a C1 CSI 6n that would type into the shell) is shown escaped, never raw."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from .refusal import refused

ESCAPES = "\x1b[2J\x1b]0;owned\x07\x1b]8;;evil.example\x1b\\link\x1b]8;;\x1b\\\x9b6n\u202e"  # no slash: a file name
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


@pytest.mark.parametrize("command", ["report", "compare"])
def test_a_run_directory_named_with_escape_sequences_is_named_harmlessly(command: str, tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / f"run{ESCAPES}"
    folder.mkdir()
    argv = [command, str(folder)] + ([str(tmp_path / "other")] if command == "compare" else [])
    err = refused(capsys, *argv, contains="\\x1b[2J\\x1b]0;owned\\x07", inputs=(tmp_path,))
    assert CONTROL.search(err) is None, err


@pytest.mark.parametrize("breaks", ["\n", "\u2028", "\r\n"])
def test_a_run_directory_named_with_a_line_break_cannot_forge_a_second_error_line(breaks: str, tmp_path: Path,
                                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / f"run{breaks}error: all is well"
    folder.mkdir()
    err = refused(capsys, "report", str(folder), contains="error: all is well", inputs=(tmp_path,))  # and on one line
    assert "\\n" in err or "\\u2028" in err, err
