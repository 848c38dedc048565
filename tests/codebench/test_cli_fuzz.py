"""Random command lines never end in a traceback: every outcome is a normal exit (0, 1) or one `error:` line (2).

The vocabulary mixes the real subcommands and options with hostile values (markup, huge and negative numbers,
missing and special paths, unicode); commands that would start a sandbox or call a model are left out
(`run` only with --dry-run)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codebench.cli import main

VALUES = ["0", "1", "-1", "7", "1-6", "6-1", "1-1000000000", "x", "", "[bold]", "[/]", "n=3", "n=[3]", "n=99999999999", "=",
          "hanoi", "sudoku", "nope", "1e309", "nan", "é\u2028", "/dev/full", "/dev/zero", "/nonexistent/dir/f", ".", "-", "--", "json"]
COMMANDS = [
    ["puzzles", "list"], ["puzzles", "generate"], ["puzzles", "show"], ["puzzles", "solve"], ["puzzles", "validate"],
    ["puzzles", "import"], ["report"], ["run", "--dry-run", "--base-url", "http://127.0.0.1:9/v1"],
]
OPTIONS = ["--level", "--seed", "--count", "--param", "-o", "--answers", "--json", "--format", "--levels", "--samples",
           "--puzzles", "--model", "--cpu", "--seed", "--instances-per-level", "--mode", "--preset", "--out", "--colors",
           "--idle-timeout", "--request-timeout", "--max-retries",
           "--no-such-option", "-x"]


@st.composite
def command_lines(draw: st.DrawFn, folder: Path) -> list[str]:
    argv = list(draw(st.sampled_from(COMMANDS)))
    for _ in range(draw(st.integers(0, 5))):
        if draw(st.booleans()):
            argv.append(draw(st.sampled_from(OPTIONS)))
        value = draw(st.sampled_from([*VALUES, str(folder / "in.jsonl"), str(folder / "out.jsonl"), str(folder)]))
        argv.append(value)
    if "--count" in argv:  # keep generation short: the point is the parsing, not the work
        index = argv.index("--count")
        argv[index + 1: index + 2] = ["2"]
    if "run" in argv and "--out" not in argv:
        argv += ["--out", str(folder / "run")]
    return argv


def test_random_command_lines_never_print_a_traceback(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "in.jsonl").write_text('{"id": "hanoi/L1/s0", "puzzle": "hanoi", "instance": {"n": 3}}\n{oops\n')
    before = (tmp_path / "in.jsonl").read_bytes()

    @settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(command_lines(tmp_path))
    def check(argv: list[str]) -> None:
        with pytest.raises(SystemExit) as ended:
            main(argv)
        out, err = capsys.readouterr()
        assert ended.value.code in (0, 1, 2, None), (argv, err[-500:])
        assert "Traceback" not in out + err, (argv, err[-2000:])
        if ended.value.code == 2 and "Usage:" not in out + err:  # a group without a command prints its help
            assert err.startswith("error: ") and len(err.strip().split("\n")) == 1, (argv, err)

    check()
    assert (tmp_path / "in.jsonl").read_bytes() == before
