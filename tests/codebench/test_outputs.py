"""Every file a command writes goes through one writer (`records.open_output`): a regular file is written beside
itself under a new random name and renamed over, so a link planted at the old fixed temporary name reaches nothing
outside; a pipe is written directly and stays a pipe."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from .cli import run_cli


def test_a_link_planted_beside_an_output_is_never_followed(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("precious\n")
    board = tmp_path / "run" / "board.png"
    board.parent.mkdir()
    for name in (".board.png.partial", ".game.json.partial"):  # where the writers used to put their bytes first
        (board.parent / name).symlink_to(outside)
    code, _, err = run_cli(capsys, "puzzles", "play", "sudokill", "--seed", "7", "--png", str(board), "-o",
                           str(board.parent / "game.json"))
    assert code == 0, err
    assert outside.read_text() == "precious\n" and board.read_bytes().startswith(b"\x89PNG")
    assert oct(board.stat().st_mode & 0o777) == oct(0o666 & ~_umask())  # as a plain open makes it, not mkstemp's 0600
    assert not [path for path in board.parent.iterdir() if path.name.endswith(".partial") and not path.is_symlink()]


def test_a_pipe_given_as_an_output_is_written_and_stays_a_pipe(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    fifo = tmp_path / "board.fifo"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()), daemon=True)  # no writer: no hang at exit
    reader.start()
    code, _, err = run_cli(capsys, "puzzles", "play", "sudokill", "--seed", "7", "--png", str(fifo), "-o",
                           str(tmp_path / "game.json"))
    reader.join(timeout=30)
    assert code == 0, err
    assert fifo.is_fifo() and received and received[0].startswith(b"\x89PNG")


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
