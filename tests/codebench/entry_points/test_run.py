"""`codebench run` without a model or a sandbox: --dry-run, --config, and options refused before anything is written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ..cli import run_cli
from .refusal import refused

DEAD_URL = "http://127.0.0.1:9/v1"  # nothing listens: a dry run must not call it


def test_dry_run_prints_the_plan_and_calls_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "run", "--model", "a,b", "--base-url", DEAD_URL, "--puzzles", "hanoi,sat",
                           "--levels", "1-3", "--instances-per-level", "2", "--samples", "4", "--out", str(tmp_path), "--dry-run")
    plan = json.loads(out)
    assert code == 0 and plan["requests"] == 2 * 2 * 4 and plan["requests_stored"] == 0
    # models × samples × distinct instances: Hanoi's L1-L3 draw one instance each whatever the seed
    assert plan["executions_at_most"] == 2 * 4 * (3 + 6) and plan["puzzles"] == {"hanoi": 3, "sat": 6}
    assert plan["seeds_repeating_an_instance"] == {"hanoi": 3}
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
        (["--mode", "essay"], "--mode 'essay': choose one of code, instruction, both"),
        (["--levels", "x"], "--levels 'x'"),
        (["--samples", "0"], "--samples 0: give a whole number from 1 to 10000"),
        (["--instances-per-level", "1000000000"], "--instances-per-level 1000000000: give a whole number from 1 to 10000"),
        (["--levels", "1-1000000000"], "--levels '1-1000000000': '1-1000000000' must go upwards within 1-6"),
        (["--levels", "3-1"], "must go upwards within 1-6"),
        (["--api-key-env", "CODEBENCH_NO_SUCH_VARIABLE"], "CODEBENCH_NO_SUCH_VARIABLE"),
        (["--cpu", "-1"], "--cpu -1: give a number above 0, at most 3600"),
        (["--cpu", "inf"], "--cpu inf: give a number above 0, at most 3600"),
        (["--workers", "5000"], "--workers 5000: give a whole number from 1 to 1024"),
        (["--max-connections", "0"], "--max-connections 0: give a whole number from 1 to 1024"),
        (["--backend", "nope"], "--backend 'nope': choose one of docker, local, unsafe-local"),
        (["--executor", "cluster"], "--executor 'cluster': choose one of local, ray"),
        (["--ray-address", "auto"], "--ray-address needs --executor ray"),
        (["--temperature", "9"], "--temperature 9: give a number from 0 to 2"),
        (["--seeds", "1"], "No such option: --seeds"),
        (["--config", "/dev/zero"], "/dev/zero is larger than 256 MiB"),
        (["--config", "missing.yaml"], "cannot read --config missing.yaml"),
        (["--param", "rubik"], "--param 'rubik': expected KEY=VALUE, e.g. --param rubik.reveal_scramble=true"),
        (["--param", "reveal_scramble=true"], "--param 'reveal_scramble': expected PUZZLE.KEY=VALUE"),
        (["--param", "rubik.spin=1"], "--param rubik.spin: a run sets presentation parameters only (rubik: reveal_scramble)"),
        (["--param", "hanoi.n=3"], "--param hanoi.n: a run sets presentation parameters only (hanoi: none)"),
        (["--param", "towers.x=1"], "unknown puzzle 'towers'"),
        (["--puzzles", "rubik", "--param", "rubik.reveal_scramble=yes"], "reveal_scramble='yes': expected true or false"),
    ],
)
def test_bad_options_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    refused(capsys, "run", "--model", "m", "--base-url", DEAD_URL, *argv, "--out", str(tmp_path / "out"), "--dry-run",
            contains=message, inputs=(tmp_path,))
    refused(capsys, "run", "--model", "m", "--base-url", DEAD_URL, *argv, "--out", str(tmp_path / "out"),
            contains=message, inputs=(tmp_path,))  # and without --dry-run: refused before the run database exists


def test_an_out_that_is_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    taken = tmp_path / "results.txt"
    taken.write_text("keep me\n")
    refused(capsys, "run", "--model", "m", "--base-url", DEAD_URL, "--out", str(taken),
            contains=f"--out {taken} is not a directory", inputs=(tmp_path,))


def test_report_of_a_folder_without_a_run_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    refused(capsys, "report", str(tmp_path), contains="holds no run.sqlite", inputs=(tmp_path,))


@pytest.mark.parametrize(("text", "message"), [
    ("model: m\nsampels: 3\n", "unknown run option 'sampels' in {config}; known:"),
    ("model: m\nsamples: many\n", "samples (in {config}) 'many': give a whole number from 1 to 10000"),
    ("model: m\nsamples: 2.5\n", "samples (in {config}) 2.5: give a whole number from 1 to 10000"),
    ("model: m\nsamples: true\n", "samples (in {config}) True: give a whole number"),
    ("model: m\nseed: x\n", "seed (in {config}) 'x': give a whole number from 0 to 2147483647"),
    ("model: m\ntemperature: hot\n", "temperature (in {config}) 'hot': give a number from 0 to 2"),
    ("model: m\ntemperature: .nan\n", "temperature (in {config}) nan: give a number from 0 to 2"),
    ("model: m\nbase_url: [a, b]\n", "base_url (in {config}) ['a', 'b']: give text"),
    ("model: m\nlevels: [1, 9]\n", "levels (in {config}): [9] outside the levels 1-6"),
    ("model: m\nbackend: nope\n", "backend (in {config}) 'nope': choose one of docker, local, unsafe-local"),
    ("- a\n- b\n", "expected a mapping of option names to values"),
    ("model: [m\n", "cannot read --config"),
    ("models: [{name: m, colour: red}]\n", "models entry 1 (m) in {config}: unknown field 'colour'; known: name, label, preset"),
    ("models: [{label: m}]\n", "models entry 1 (m) in {config}: name is missing"),
    ("models: [m, {name: m, base_url: 'http://127.0.0.1:9/v1'}]\n",
     "models (in {config}): model 'm' is listed twice: give one of the entries a `label`"),
    ("models: [{name: m, preset: nope}]\n", "models entry 1 (m) in {config}: preset 'nope' is unknown"),
    ("model: m\nrequest: {temperature: 1}\n", "request (in {config}): 'temperature' is set by codebench"),
    ("models: [{name: m, request: {extra_body: {seed: 3}}}]\n", "models entry 1 (m) in {config}: request: 'seed' is set by codebench"),
    ("models: [{name: m, request: {extra_body: 3}}]\n", "models entry 1 (m) in {config}: request: extra_body must be a mapping"),
    ("model: m\nparams: {rubik: [1]}\n", "params (in {config}) {'rubik': [1]}: give a mapping of puzzle to its presentation parameters"),
    ("model: m\npreset: mock\nparams: {rubik: {reveal_scramble: 1}}\n", "expected true or false"),
])
def test_config_file_with_unknown_or_mistyped_values_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str,
                                                              message: str) -> None:
    config = tmp_path / "run.yaml"
    config.write_text(text)
    refused(capsys, "run", "--config", str(config), "--dry-run", "--out", str(tmp_path / "out"),
            contains=message.replace("{config}", str(config)), inputs=(tmp_path,))


def test_a_binary_config_file_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "run.yaml"
    config.write_bytes(bytes(range(256)))
    refused(capsys, "run", "--config", str(config), "--dry-run", "--out", str(tmp_path / "out"), contains="cannot read --config",
            inputs=(tmp_path,))
