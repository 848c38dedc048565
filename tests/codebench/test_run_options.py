"""`codebench run` options without a model or a sandbox: --dry-run, --config, usage errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .cli import run_cli

DEAD_URL = "http://127.0.0.1:9/v1"  # nothing listens: a dry run must not call it


def test_dry_run_prints_the_plan_and_calls_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "run", "--model", "a,b", "--base-url", DEAD_URL, "--puzzles", "hanoi,sat",
                           "--levels", "1-3", "--instances-per-level", "2", "--samples", "4", "--out", str(tmp_path), "--dry-run")
    plan = json.loads(out)
    assert code == 0 and plan["requests"] == 2 * 2 * 4 and plan["requests_stored"] == 0
    assert plan["executions_at_most"] == 2 * 2 * 4 * 3 * 2 and plan["puzzles"] == {"hanoi": 6, "sat": 6}
    assert list(tmp_path.iterdir()) == []  # a dry run writes nothing, not even an empty database


def test_config_file_values_are_overridden_by_flags(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "run.yaml"
    config.write_text(f"model: cfg-model\nbase_url: {DEAD_URL}\npuzzles: [hanoi]\nlevels: [1, 2]\nsamples: 3\n"
                      "instances_per_level: 1\n")
    code, out, _ = run_cli(capsys, "run", "--config", str(config), "--samples", "2", "--out", str(tmp_path), "--dry-run")
    plan = json.loads(out)
    assert code == 0 and plan["requests"] == 2 and plan["puzzles"] == {"hanoi": 2}


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--puzzles", "towers"], "unknown puzzle 'towers'"),
        (["--mode", "instruction"], "--mode 'instruction'"),
        (["--levels", "x"], "--levels 'x'"),
        (["--samples", "0"], "--samples and --instances-per-level must be at least 1"),
        (["--api-key-env", "CODEBENCH_NO_SUCH_VARIABLE"], "CODEBENCH_NO_SUCH_VARIABLE"),
        (["--cpu", "-1"], "--cpu -1.0: give a positive number (CPU seconds per instance)"),
    ],
)
def test_bad_options_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    code, _, err = run_cli(capsys, "run", "--model", "m", "--base-url", DEAD_URL, *argv, "--out", str(tmp_path), "--dry-run")
    assert code == 2 and message in " ".join(err.split())


def test_report_of_a_folder_without_a_run_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(capsys, "report", str(tmp_path))
    assert code == 2 and "holds no run.sqlite" in " ".join(err.split())


def test_config_file_with_unknown_or_mistyped_values_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "run.yaml"
    config.write_text("model: m\nsampels: 3\n")
    code, _, err = run_cli(capsys, "run", "--config", str(config), "--base-url", DEAD_URL, "--dry-run", "--out", str(tmp_path))
    assert code == 2 and "unknown run option(s) sampels" in " ".join(err.split())
    config.write_text("model: m\nsamples: many\n")
    code, _, err = run_cli(capsys, "run", "--config", str(config), "--base-url", DEAD_URL, "--dry-run", "--out", str(tmp_path))
    assert code == 2 and "bad run option" in " ".join(err.split())
