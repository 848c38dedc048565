"""Every file a command writes goes through one writer (`files.open_output`): a regular file is written beside
itself under a new name created exclusively and renamed over, so a link or a pipe planted at the temporary name (the old
fixed one, or the very name drawn) is never written through; a pipe the user names is written directly and stays a pipe;
a link or pipe planted at a figure's name in the --plots folder is replaced, never followed; an interrupt leaves each
figure whole or as it was, and says what was not written."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from codebench import files
from codebench.analysis import plots
from codebench.cli import _interrupt

from .cli import run_cli

V1 = Path(__file__).parent / "data" / "v1_run"


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


def test_a_link_to_a_device_is_written_through_and_stays_a_link(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """As /dev/stdout is a link to the terminal or a pipe: written directly, never replaced by a regular file."""
    link = tmp_path / "sink.png"
    link.symlink_to("/dev/null")
    code, _, err = run_cli(capsys, "puzzles", "play", "sudokill", "--seed", "7", "--png", str(link), "-o", str(tmp_path / "g.json"))
    assert code == 0, err
    assert link.is_symlink() and os.readlink(link) == "/dev/null" and Path("/dev/null").is_char_device()


def test_the_temporary_name_is_created_exclusively_past_a_planted_link_and_pipe(capsys: pytest.CaptureFixture[str],
                                                                               tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The names drawn are made to be taken already: a link to an outside file, then a pipe nobody reads (opening it
    would hang); the writer goes on to a third name."""
    outside = tmp_path / "outside.txt"
    outside.write_text("precious\n")
    game = tmp_path / "game.json"
    drawn = [game.with_name(f".game.json.{n}.partial") for n in ("link", "pipe", "free")]
    drawn[0].symlink_to(outside)
    os.mkfifo(drawn[1])
    monkeypatch.setattr(files, "_partial_names", lambda path: iter(drawn) if path == game else _never(path))
    code, _, err = run_cli(capsys, "puzzles", "play", "sudokill", "--seed", "7", "-o", str(game))
    assert code == 0, err
    assert outside.read_text() == "precious\n" and drawn[0].is_symlink() and drawn[1].is_fifo() and not drawn[2].exists()
    assert game.read_text().startswith("{")


def _never(path: Path) -> Iterator[Path]:
    raise AssertionError(f"no other output expected: {path}")


def test_a_link_and_a_pipe_planted_at_figure_names_are_replaced_not_followed(capsys: pytest.CaptureFixture[str],
                                                                             tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("precious\n")
    folder = tmp_path / "plots"
    folder.mkdir()
    (folder / "status_mix.png").symlink_to(outside)
    os.mkfifo(folder / "status_mix.svg")  # nobody reads it: written through, the report would hang
    code, _, err = run_cli(capsys, "report", str(V1), "--plots", str(folder))
    assert code == 0, err
    assert outside.read_text() == "precious\n"
    assert (folder / "status_mix.png").read_bytes().startswith(b"\x89PNG") and (folder / "status_mix.svg").is_file()


def test_sigterm_while_drawing_leaves_whole_figures_and_says_what_was_not_written(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "plots"
    folder.mkdir()
    (folder / "collapse_heatmap.png").write_bytes(b"an older figure")
    save = plots._save

    def cut_short(figure: object, target: object, fmt: str) -> None:
        if Path(f"/proc/self/fd/{target.fileno()}").readlink().name.startswith(".collapse_heatmap.png."):  # type: ignore[union-attr]
            target.write(b"\x89PNG half a figure")  # type: ignore[union-attr]
            os.kill(os.getpid(), signal.SIGTERM)  # the handler `main` installs turns it into an interrupt here
        save(figure, target, fmt)

    monkeypatch.setattr(plots, "_save", cut_short)
    monkeypatch.setattr(_interrupt, "_terminated", False)
    before = signal.getsignal(signal.SIGTERM)
    try:
        code, _, err = run_cli(capsys, "report", str(V1), "-o", str(tmp_path / "r.md"), "--plots", str(folder),
                               "--html", str(tmp_path / "page.html"))
    finally:
        signal.signal(signal.SIGTERM, before)
    assert code == 143
    assert err.splitlines()[-1] == (f"terminated: not written: --plots {folder} (in part), --html {tmp_path}/page.html; no "
                                    "file is left cut short: run the report again")
    assert (folder / "collapse_heatmap.png").read_bytes() == b"an older figure"
    assert (folder / "status_mix.png").read_bytes().startswith(b"\x89PNG") and (tmp_path / "r.md").is_file()
    assert not (tmp_path / "page.html").exists() and not [p for p in folder.iterdir() if p.name.startswith(".")]


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@pytest.mark.parametrize("argv", [["puzzles", "generate", "hanoi", "--level", "1"], ["report", str(V1), "--format", "csv"]],
                         ids=["generate", "report"])
def test_dev_stdout_redirected_to_a_file_is_written_at_its_end(argv: list[str], tmp_path: Path) -> None:
    """`-o /dev/stdout > F` writes into F as a shell user expects (a link to a regular file is refused otherwise), and
    `>> F` keeps what F held."""
    out = tmp_path / "out.txt"
    out.write_text("kept\n")
    with out.open("a") as appended:
        done = subprocess.run([sys.executable, "-m", "codebench", *argv, "-o", "/dev/stdout"], stdout=appended,
                              stderr=subprocess.PIPE, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    text = out.read_text()
    assert text.startswith("kept\n") and len(text) > 100, text[:200]
