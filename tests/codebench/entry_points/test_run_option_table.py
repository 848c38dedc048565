"""`codebench run`'s options are declared once (`spec.OPTIONS`): its flags, the config file's keys, the checked schema
and their defaults all come from that table, and agree with what a library caller's `RunSpec` assumes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import typer

from codebench.cli import app
from codebench.run.options import RunOptions, spec_from_options
from codebench.run.spec import OPTIONS, RunOption, RunSpec

from ..cli import run_cli

COMMAND_OWN = {"config", "dry_run"}  # what `run` takes besides the run's options


def run_command() -> Any:
    """The command typer makes of `run` (its own click's: typer carries one)."""
    return typer.main.get_command(app).commands["run"]  # type: ignore[attr-defined]


def test_the_flags_and_the_config_keys_are_the_declared_options() -> None:
    flags = {param.name: param for param in run_command().params}
    assert set(flags) - COMMAND_OWN == {option.name for option in OPTIONS if not option.config_only}
    assert set(RunOptions.model_fields) == {option.name for option in OPTIONS}
    for option in OPTIONS:
        if not option.config_only:
            param = flags[option.name]
            assert [*param.opts, *param.secondary_opts] == [d for decl in option.flags for d in decl.split("/")], option.name


def test_help_shows_every_default(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "run", "--help")
    assert code == 0
    for param in run_command().params:
        if param.name not in COMMAND_OWN:
            assert param.help and " Default: " in param.help, param.name
    assert out.count("Default:") >= sum(not option.config_only for option in OPTIONS) - 1  # rich may wrap one


def test_the_command_lines_defaults_are_the_librarys(tmp_path: Path) -> None:
    """A run given only its model by flag is the `RunSpec` a library caller makes with only its model."""
    out = tmp_path / "run"
    from_flags = spec_from_options({"model": "m", "out": out}, {})
    assert from_flags == RunSpec(models=("m",), out=out)  # every field but where options were given (not a result)
    assert not out.exists()


@pytest.mark.parametrize("option", [option for option in OPTIONS if option.ge is not None or option.gt is not None],
                         ids=lambda option: option.name)
def test_a_bound_is_checked_by_flag_and_config_alike(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                               option: RunOption) -> None:
    low = option.ge if option.ge is not None else option.gt
    below = low - 1 if option.ge is not None else low
    shown = str(int(below)) if float(below).is_integer() else str(below)
    config = tmp_path / "run.yaml"
    config.write_text(f"model: m\n{option.name}: {shown}\n")
    refusals = []
    for argv in ([*option.flags[0].split("/")[:1], shown], ["--config", str(config)]):
        if option.config_only and argv[0] != "--config":
            continue
        code, _, err = run_cli(capsys, "run", "--model", "m", *argv, "--out", str(tmp_path / "out"), "--dry-run")
        assert code == 2 and err.startswith("error: "), (argv, err)
        refusals.append(err.split(": give ", 1)[1])
    assert len(set(refusals)) == 1, refusals  # one check, one message: only the option's name differs
