"""Every command decides whether all its outputs can be written before it does any work (`files.check_outputs`): a
missing folder, a directory where a file goes, a file where a folder goes, two outputs on one path, an output that is an
input, a link to a file: refused with one line naming the option typed, and nothing written."""

from __future__ import annotations

from pathlib import Path

import pytest

from .refusal import refused


def test_report_refuses_a_missing_html_folder_before_writing_the_report_or_the_plots(
        run_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    page = tmp_path / "nowhere" / "page.html"
    refused(capsys, "report", str(run_dir), "-o", str(tmp_path / "r.md"), "--plots", str(tmp_path / "plots"), "--html", str(page),
            contains=f"--html {page}: the folder {page.parent} does not exist", inputs=(tmp_path,))


@pytest.mark.parametrize(("where", "message"), [
    (["--plots", "X", "--html", "X"], "--html X is also the --plots folder: give each its own"),
    (["-o", "X", "--html", "X"], "--html X is also the -o file: give each its own"),
    (["--plots", "run/run.sqlite"], "--plots run/run.sqlite is not a directory: give a folder"),
    (["--plots", "run/run.sqlite/figures"], "--plots run/run.sqlite/figures: run/run.sqlite is not a directory"),
    (["--html", "run"], "--html run is a directory: give a file name"),
    (["-o", "run/run.sqlite-wal"], "-o run/run.sqlite-wal is also an input"),  # the store's log: writing it loses its commits
    (["-o", "missing/r.md"], "-o missing/r.md: the folder missing does not exist"),
])
def test_report_names_the_option_of_an_output_it_refuses(run_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                       monkeypatch: pytest.MonkeyPatch, where: list[str], message: str) -> None:
    monkeypatch.chdir(tmp_path)
    refused(capsys, "report", "run", *where, contains=message, inputs=(tmp_path,))


def test_a_link_given_as_an_output_is_refused_and_neither_it_nor_its_file_is_touched(
        run_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    kept = tmp_path / "kept.md"
    kept.write_text("precious\n")
    link = tmp_path / "latest.md"
    link.symlink_to(kept)
    refused(capsys, "report", str(run_dir), "-o", str(link), contains=f"-o {link} is a symbolic link to {kept}",
            inputs=(tmp_path,))
    assert link.is_symlink() and kept.read_text() == "precious\n"


def test_compare_names_its_output(run_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "missing" / "c.txt"
    refused(capsys, "compare", str(run_dir), "-o", str(out), contains=f"-o {out}: the folder", inputs=(tmp_path,))


@pytest.mark.parametrize(("out", "message"), [("file.txt", "--out file.txt is not a directory: give a folder"),
                                              ("file.txt/run", "--out file.txt/run: file.txt is not a directory")])
def test_run_refuses_an_out_that_cannot_be_a_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                    monkeypatch: pytest.MonkeyPatch, out: str, message: str) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "file.txt").write_text("notes\n")
    refused(capsys, "run", "--preset", "mock", "--model", "oracle", "--puzzles", "hanoi", "--levels", "1", "--out", out,
            contains=message, inputs=(tmp_path,))


def test_demo_refuses_a_page_it_could_not_write_before_it_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "demo" / "report.html").mkdir(parents=True)
    refused(capsys, "demo", "--out", str(tmp_path / "demo"), contains=f"--out {tmp_path}/demo/report.html is a directory",
            inputs=(tmp_path,))


@pytest.mark.parametrize(("argv", "message"), [
    (["puzzles", "generate", "hanoi", "--level", "1", "-o", "missing/x.jsonl"], "-o missing/x.jsonl: the folder missing does not"),
    (["puzzles", "solve", "x.jsonl", "-o", "x.jsonl"], "-o x.jsonl is also an input"),
    (["puzzles", "import", "x.jsonl", "-o", "."], "-o . is a directory: give a file name"),
    (["puzzles", "play", "sudokill", "-o", "g.json", "--png", "missing/b.png"], "--png missing/b.png: the folder missing does not"),
    (["puzzles", "play", "sudokill", "-o", "g.json", "--png", "g.json"], "--png g.json is also the -o file: give each its own"),
    (["check", "solver.py", "--puzzle", "hanoi", "--junit", "j.xml", "--baseline", "j.xml", "--update-baseline"],
     "--baseline j.xml is also the --junit file: give each its own"),
    (["check", "solver.py", "--puzzle", "hanoi", "--junit", "missing/j.xml"], "--junit missing/j.xml: the folder missing does not"),
])
def test_every_writing_command_names_the_output_it_refuses(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                          monkeypatch: pytest.MonkeyPatch, argv: list[str], message: str) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "x.jsonl").write_text("")
    (tmp_path / "solver.py").write_text("def solve(instance):\n    return []\n")
    refused(capsys, *argv, contains=message, inputs=(tmp_path,))
