"""`codebench.report` and `codebench.compare`: the library calls behind `codebench report` and `codebench compare` give
their very bytes, and refuse what the commands refuse, as `codebench.errors` types. `codebench report --help` lists
exactly the registry's sections."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import matplotlib
import pytest

import codebench
from codebench.analysis.report import REGISTRY, SECTIONS
from codebench.analysis.usage import Price
from codebench.errors import InputError
from codebench.reports import read_report

from ..cli import run_cli
from .conftest import V1, mock_runs
from .refusal import refused

PUZZLES = ["--mode", "instruction", "--puzzles", "waterjug,hanoi", "--levels", "1-2", "--instances-per-level", "2",
           "--samples", "2"]


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Two runs of `mixed` in instruction mode on the same instances at two temperatures (other requests), priced."""
    a, b = mock_runs(tmp_path_factory.mktemp("made"), *((name, ["--model", "mixed", *PUZZLES, "--temperature", temperature,
                                                                 "--price", "mixed=1/4"])
                                                       for name, temperature in (("a", "0"), ("b", "0.5"))))
    return a, b


def written(capsys: pytest.CaptureFixture[str], tmp_path: Path, *argv: str) -> str:
    """What the command writes with -o (its stdout is the same text and the console's line end)."""
    output = tmp_path / "out.txt"
    code, out, err = run_cli(capsys, *argv)
    assert code == 0, err
    code, _, err = run_cli(capsys, *argv, "-o", str(output))
    assert code == 0, err
    text = output.read_text(encoding="utf-8")
    assert out == text + "\n"
    return text


@pytest.mark.parametrize("fmt", ["table", "md", "csv", "json"])
def test_report_from_python_is_the_command_s_output(made: tuple[Path, Path], tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str], fmt: str) -> None:
    v1 = tmp_path / "v1"
    shutil.copytree(V1, v1)
    for runs in ([v1], [made[0]], [made[1], v1]):
        argv = ["report", *map(str, runs), "--format", fmt]
        assert codebench.report(runs, format=fmt) == written(capsys, tmp_path, *argv)
        assert codebench.report(runs, format=fmt, section="cost") == written(capsys, tmp_path, *argv, "--section", "cost")
    priced = written(capsys, tmp_path, "report", str(made[0]), "--format", fmt, "--price", "mixed=3/9")
    assert codebench.report(str(made[0]), format=fmt, prices={"mixed": Price(3, 9)}) == priced
    assert priced != codebench.report(made[0], format=fmt)  # the price given replaces the stored one


def test_the_html_page_from_python_is_the_command_s(made: tuple[Path, Path], tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    page = tmp_path / "page.html"
    with matplotlib.rc_context({"svg.hashsalt": "alike"}):  # each drawing's SVG ids salted alike
        code, _, err = run_cli(capsys, "report", str(made[0]), "--html", str(page))
        assert code == 0, err
        assert read_report(made[0], samples=True).html() == page.read_text(encoding="utf-8")
    with pytest.raises(InputError, match="samples=True"):
        read_report(made[0]).html()


@pytest.mark.parametrize("fmt", ["table", "json"])
def test_compare_from_python_is_the_command_s_output(made: tuple[Path, Path], tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str], fmt: str) -> None:
    sides = ["--a", "1/mixed:instruction", "--b", "2/mixed:instruction"]
    text = written(capsys, tmp_path, "compare", *map(str, made), *sides, "--format", fmt)
    assert codebench.compare(made, "1/mixed:instruction", "2/mixed:instruction", format=fmt) == text
    assert "A = 1/mixed:instruction, B = 2/mixed:instruction; 12 pairs on 6 instances" in codebench.compare(
        made, "1/mixed:instruction", "2/mixed:instruction")


def test_the_library_refuses_what_the_commands_refuse(made: tuple[Path, Path], tmp_path: Path) -> None:
    a, b = made
    copy = tmp_path / "copy"
    shutil.copytree(a, copy)
    refusals = [
        (lambda: codebench.report([a, a]), f"{a} is given twice: give each run once"),
        (lambda: codebench.report([a, copy]), f"{a} and {copy} hold the same samples"),
        (lambda: codebench.report([a, b]), f"{a} and {b} both hold mixed in instruction mode"),
        (lambda: codebench.report(a, prices={"nobody": Price(1, 2)}), "--price nobody: no model of these runs is called that"),
        (lambda: codebench.report(tmp_path), f"{tmp_path} holds no run.sqlite"),
        (lambda: codebench.report(a, format="html"), "--format 'html': choose table, md, csv, json"),
        (lambda: codebench.report(a, section="nope"), "--section 'nope': choose one of " + ", ".join(SECTIONS)),
        (lambda: codebench.compare([a, a], "1/mixed:instruction", "2/mixed:instruction"), f"{a} is given twice"),
        (lambda: codebench.compare([a, b]), "name the sides with --a and --b"),
        (lambda: codebench.compare([a, b], "1/mixed:instruction"), "give both --a and --b, or neither"),
        (lambda: codebench.compare(a, "mixed:instruction", "mixed:instruction"), "name one side"),
        (lambda: codebench.compare([a, copy], "1/mixed:instruction", "2/mixed:instruction"), "hold the same samples"),
        (lambda: codebench.compare(a, format="md"), "--format 'md': choose table, json"),
    ]
    for call, message in refusals:
        with pytest.raises(InputError) as refused_:
            call()
        assert message in str(refused_.value)


def test_a_partial_run_is_reported_and_named(tmp_path: Path) -> None:
    v1 = tmp_path / "v1"
    shutil.copytree(V1, v1)
    found = read_report(v1)
    assert found.report.partial
    assert found.render().startswith(f"codebench report: PARTIAL: {v1}: 18 results unresolved (api_error:18)")


def test_the_report_help_lists_exactly_the_registry_s_sections(made: tuple[Path, Path],
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "report", "--help")
    assert code == 0
    shown = " ".join(line.strip(" │") for line in out.partition("--section")[2].partition("--price")[0].splitlines())
    shown = re.sub(r"\s+", " ", shown)
    assert re.findall(r"(?:: |; )([a-z-]+) \(", shown) == list(SECTIONS) == [entry.name for entry in REGISTRY]
    assert all(f"{entry.name} ({entry.help})" in shown for entry in REGISTRY)
    refused(capsys, "report", str(made[0]), "--section", "nope", inputs=made,
            contains="--section 'nope': choose one of " + ", ".join(SECTIONS))
