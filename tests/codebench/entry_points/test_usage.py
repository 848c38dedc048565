"""Typer's own usage errors, for every command there is: one `error:` line naming the command's help, exit 2."""

from __future__ import annotations

import pytest
import typer

from codebench.cli import app

from ..cli import run_cli
from .refusal import refused


def _commands(group: object, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], object]]:
    found = []
    for name, command in getattr(group, "commands", {}).items():
        found.append(((*path, name), command))
        found.extend(_commands(command, (*path, name)))
    return found


COMMANDS = _commands(typer.main.get_command(app))


def test_every_command_is_covered() -> None:
    names = {" ".join(path) for path, _ in COMMANDS}
    assert {"run", "report", "check", "demo", "mock-server", "puzzles generate", "puzzles solve", "puzzles validate",
            "puzzles import", "puzzles show", "puzzles list", "puzzles selftest", "sandbox build", "sandbox doctor",
            "sandbox cleanup"} <= names


@pytest.mark.parametrize("path", [path for path, _ in COMMANDS], ids=" ".join)
def test_an_unknown_option(capsys: pytest.CaptureFixture[str], path: tuple[str, ...]) -> None:
    refused(capsys, *path, "--no-such-option", contains="No such option: --no-such-option")


@pytest.mark.parametrize("path", [path for path, command in COMMANDS if any(
    getattr(p, "required", False) and p.param_type_name == "argument" for p in getattr(command, "params", []))], ids=" ".join)
def test_a_missing_argument(capsys: pytest.CaptureFixture[str], path: tuple[str, ...]) -> None:
    refused(capsys, *path, *(["--puzzle", "hanoi"] if path == ("check",) else []), contains="Missing argument")


@pytest.mark.parametrize(("argv", "message"), [
    (["puzzles", "generate", "hanoi", "--count", "many"], "Invalid value for '--count' / '-n': 'many'"),
    (["puzzles", "generate", "hanoi", "--count", "0"], "Invalid value for '--count' / '-n': 0 is not in the range x>=1"),
    (["run", "--samples", "2.5"], "Invalid value for '--samples': '2.5' is not a valid int"),
    (["check", "x.py"], "Missing option '--puzzle' / '-p'"),
    (["nope"], "No such command 'nope'"),
    (["sandbox", "status"], "No such command 'status'"),
    (["puzzles", "list", "extra"], "Got unexpected extra argument"),
])
def test_values_of_the_wrong_type_and_unknown_commands(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    err = refused(capsys, *argv, contains=message)
    assert "--help'" in err  # names where to look


@pytest.mark.parametrize("argv", [[], ["puzzles"], ["sandbox"]])
def test_a_group_without_a_command_shows_its_help(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    code, out, err = run_cli(capsys, *argv)
    assert code == 2 and "Usage:" in out + err and "Traceback" not in out + err
