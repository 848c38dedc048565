"""`codebench run`'s options as a careless user gives them: every refusal names the option, config key or `models:`
entry the user typed and what it accepts; options that do not apply to the run are refused with the reason; a plan
that would play nothing is refused before the run directory exists."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from codebench.run.options import ModelOption, PriceOption, RunOptions

from ..cli import run_cli
from .refusal import refused

DEAD_URL = "http://127.0.0.1:9/v1"  # nothing listens: nothing here may call it
INTERNALS = ("input should", ".str", "list[", "instance of", "dictionary", "function-")  # pydantic's words, not the user's


def _run(tmp_path: Path, *argv: str) -> tuple[str, ...]:
    return ("run", "--base-url", DEAD_URL, "--out", str(tmp_path / "out"), *argv)


def _refused_both_ways(capsys: pytest.CaptureFixture[str], tmp_path: Path, *argv: str, contains: str) -> str:
    """Refused with --dry-run and without, and nothing written either way (no run directory)."""
    refused(capsys, *_run(tmp_path, *argv), "--dry-run", contains=contains, inputs=(tmp_path,))
    return refused(capsys, *_run(tmp_path, *argv), contains=contains, inputs=(tmp_path,))


def _plan(capsys: pytest.CaptureFixture[str], tmp_path: Path, *argv: str) -> dict[str, object]:
    code, out, err = run_cli(capsys, *_run(tmp_path, *argv), "--dry-run")
    assert code == 0, err
    return json.loads(out)


@pytest.mark.parametrize("games", ["cardnim", "all"])
def test_opponents_models_with_one_model_is_refused_before_the_run_exists(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                          games: str) -> None:
    err = _refused_both_ways(capsys, tmp_path, "--model", "m", "--games", games, "--opponents", "models",
                             contains="--opponents models: a model meets only the other models of the run, and it has one (m)")
    assert "add ref or random to --opponents, or give another --model" in err
    assert _plan(capsys, tmp_path, "--model", "m,n", "--games", "cardnim", "--opponents", "models")["games"] == {"cardnim": 3 * 6 * 4}


def test_puzzles_all_is_every_puzzle(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    plan = _plan(capsys, tmp_path, "--model", "m", "--puzzles", "all", "--levels", "1", "--instances-per-level", "1")
    assert sorted(plan["puzzles"]) == sorted(["hanoi", "checkers", "river", "sat", "cryptarithm", "coloring", "waterjug",
                                              "sudoku", "rubik"])


@pytest.mark.parametrize("games", ["", " , "])
def test_games_naming_none_is_not_a_run_of_every_puzzle(tmp_path: Path, capsys: pytest.CaptureFixture[str], games: str) -> None:
    """--games '' (an empty shell variable) named games, none of them: it used to run all nine puzzles instead."""
    _refused_both_ways(capsys, tmp_path, "--model", "m", "--games", games, contains="nothing to run")


def test_games_all_play_the_listed_levels_each_has(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    games = _plan(capsys, tmp_path, "--model", "m", "--games", "all", "--levels", "3", "--instances-per-level", "1")["games"]
    assert isinstance(games, dict) and "cardnim" in games and "tidytower" in games
    assert not {"exclusivityparticles", "exclusivityprobes", "beatorbombsto"} & set(games)  # levels 1-2 only
    games = _plan(capsys, tmp_path, "--model", "m", "--games", "all", "--levels", "2-4", "--instances-per-level", "1")["games"]
    assert isinstance(games, dict) and "exclusivityparticles" in games  # plays its level 2


@pytest.mark.parametrize(("argv", "message"), [
    (["--games", "cardnim,exclusivityparticles", "--levels", "3"],
     "--levels 3: the game exclusivityparticles has levels 1-2; include one of them"),
    (["--games", "all", "--levels", "5"], "--levels 5: no game of the run has any of them (their levels: 1-4)"),
])
def test_a_named_game_without_any_listed_level_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str],
                                                          message: str) -> None:
    _refused_both_ways(capsys, tmp_path, "--model", "m", *argv, contains=message)


@pytest.mark.parametrize(("argv", "message"), [
    (["--legal-hint"], "--legal-hint applies only to instruction-mode games: add --games"),
    (["--no-history"], "--history/--no-history applies only to instruction-mode games: add --games"),
    (["--move-cpu", "2"], "--move-cpu applies only to code-mode games: add --games"),
    (["--game-cpu", "20"], "--game-cpu applies only to code-mode games: add --games"),
    (["--game-secret-file", "{secret}"], "--game-secret-file applies only to games: add --games"),
    (["--opponents", "ref"], "--opponents applies only to two-player games: add --games"),
    (["--games", "tidytower", "--opponents", "ref"], "--opponents applies only to two-player games (tidytower is played alone)"),
    (["--games", "cardnim", "--mode", "instruction", "--move-cpu", "2"],
     "--move-cpu applies only to code-mode games: add --mode code or both"),
    (["--games", "cardnim", "--mode", "code", "--legal-hint"],
     "--legal-hint applies only to instruction-mode games: add --mode instruction or both"),
    (["--format-retries", "2"], "--format-retries applies only to instruction mode: add --mode instruction or both"),
    (["--mode", "instruction", "--cpu", "2"], "--cpu applies only to code mode's puzzles: add --mode code or both"),
    (["--mode", "code", "--games", "cardnim", "--cpu", "2"], "--cpu applies only to code mode's puzzles: add --puzzles"),
    (["--mode", "instruction", "--workers", "2"], "--workers applies only to code mode: add --mode code or both"),
    (["--mode", "instruction", "--backend", "local"], "--backend applies only to code mode: add --mode code or both"),
    (["--mode", "instruction", "--executor", "ray"], "--executor applies only to code mode: add --mode code or both"),
    (["--puzzles", "hanoi", "--param", "rubik.reveal_scramble=true"], "--param rubik.reveal_scramble: rubik is not among this "
                                                                      "run's puzzles (hanoi)"),
])
def test_an_option_that_does_not_apply_is_refused_with_the_reason(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                  argv: list[str], message: str) -> None:
    secret = tmp_path / "secret"
    secret.write_text("0123456789abcdef0123456789abcdef\n")
    _refused_both_ways(capsys, tmp_path, "--model", "m", *(part.format(secret=secret) for part in argv), contains=message)


def test_a_config_key_that_does_not_apply_is_named_as_written(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "run.yaml"
    config.write_text("model: m\nlegal_hint: true\n")
    _refused_both_ways(capsys, tmp_path, "--config", str(config),
                       contains=f"legal_hint (in {config}) applies only to instruction-mode games: add --games")
    config.write_text("model: m\nmode: instruction\nmemory: 256\n")
    _refused_both_ways(capsys, tmp_path, "--config", str(config), contains=f"memory (in {config}) applies only to code mode: "
                       "add --mode code or both")
    (tmp_path / "taken").write_text("keep me\n")
    config.write_text(f"model: m\nbase_url: {DEAD_URL}\nout: {tmp_path / 'taken'}\n")
    refused(capsys, "run", "--config", str(config), "--dry-run", inputs=(tmp_path,),
            contains=f"out (in {config}) {tmp_path / 'taken'} is not a directory")
    config.write_text(f"models: [{{name: m, base_url: '{DEAD_URL}'}}]\n")
    _refused_both_ways(capsys, tmp_path, "--config", str(config), contains="--base-url applies only to models without an "
                       "endpoint of their own, and every models entry names its own")


WRONG = "[[1]]"  # a list of lists: no option, models entry field or price field takes it


def _config_refused(capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str, contains: str) -> str:
    """A run of the config file `text` alone (no flag to override it) is refused, nothing written."""
    config = tmp_path / "run.yaml"
    config.write_text(text)
    return refused(capsys, "run", "--config", str(config), "--dry-run", contains=contains.replace("{config}", str(config)),
                   inputs=(tmp_path,))


@pytest.mark.parametrize("key", sorted(RunOptions.model_fields))
def test_every_config_key_of_the_wrong_type_is_named_with_what_it_takes(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                        key: str) -> None:
    given = {"model": "m", "base_url": DEAD_URL, "out": str(tmp_path / "out"), key: WRONG}
    if key == "models":
        del given["model"]
    err = _config_refused(capsys, tmp_path, "".join(f"{name}: {value}\n" for name, value in given.items()),
                          f"{key} (in {{config}}) [[1]]")
    assert "give " in err and not any(word in err for word in INTERNALS), err


@pytest.mark.parametrize("field", sorted(ModelOption.model_fields))
def test_every_models_entry_field_of_the_wrong_type_names_the_entry(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                    field: str) -> None:
    entry = {"name": "m", field: WRONG}
    where = "models entry 1" if field == "name" else "models entry 1 (m)"
    err = _config_refused(capsys, tmp_path, "models:\n  - {" + ", ".join(f"{name}: {value}" for name, value in entry.items())
                          + "}\n", f"{where} in {{config}}: {field} [[1]]")
    assert "give " in err and not any(word in err for word in INTERNALS), err


@pytest.mark.parametrize("field", sorted(PriceOption.model_fields))
def test_every_price_field_of_the_wrong_type_names_the_model(tmp_path: Path, capsys: pytest.CaptureFixture[str], field: str) -> None:
    price = {"input_per_mtok": 1, "output_per_mtok": 2, field: WRONG}
    err = _config_refused(capsys, tmp_path, f"model: m\nbase_url: {DEAD_URL}\nprices: {{m: {{"
                          + ", ".join(f"{name}: {value}" for name, value in price.items()) + "}}\n",
                          f"prices (in {{config}}) of m: {field} [[1]]")
    assert "give " in err and not any(word in err for word in INTERNALS), err


@pytest.mark.parametrize(("text", "message"), [
    ("model: m\nlevels: 1\n", "levels (in {config}) 1: give a list such as [1, 3, 5], or a range such as '1-6'"),
    ("model: m\nlevels: '1-9'\n", "levels (in {config}) '1-9': '1-9' must go upwards within 1-6"),
    ("model: m\nlevels: [9]\n", "levels (in {config}): [9] outside the levels 1-6"),
    ("model: m\nsamples: 0\n", "samples (in {config}) 0: give a whole number from 1 to 10000"),
    ("model: m\ntemperature: hot\n", "temperature (in {config}) 'hot': give a number from 0 to 2"),
    ("model: m\nmode: essay\n", "mode (in {config}) 'essay': choose one of code, instruction, both"),
    ("model: m\nbackend: dokcer\n", "backend (in {config}) 'dokcer': choose one of docker, local, unsafe-local"),
    ("model: m\nexecutor: 3\n", "executor (in {config}) 3: give one of local, ray"),
    ("model: m\npuzzles: towers\n", "puzzles (in {config}): unknown puzzle 'towers'; known puzzles: hanoi"),
    ("model: m\ngames: chess\n", "games (in {config}): unknown game 'chess'"),
    ("model: m\nopponents: [humans]\n", "opponents (in {config}) 'humans': choose from ref, random, models"),
    ("model: m\nsampels: 3\n", "unknown run option 'sampels' in {config}; known:"),
    ("models: [{name: m, colour: red}]\n", "models entry 1 (m) in {config}: unknown field 'colour'; known: name, label"),
    ("models: [{name: m, idle_timeout: 0}]\n", "models entry 1 (m) in {config}: idle_timeout 0: give a number above 0"),
    ("models: [{name: m, preset: nope}]\n", "models entry 1 (m) in {config}: preset 'nope' is unknown: choose one of openai"),
    ("models: [{name: m, base_url: 'ftp://x'}]\n", "models entry 1 (m) in {config}: base_url 'ftp://x' is not an http(s) URL"),
    ("models: [{name: m, api_key_env: CODEBENCH_NO_SUCH_VARIABLE}]\n",
     "models entry 1 (m) in {config}: api_key_env 'CODEBENCH_NO_SUCH_VARIABLE': environment variable "
     "CODEBENCH_NO_SUCH_VARIABLE is not set"),
    ("models: [{name: m, request: {seed: 3}}]\n", "models entry 1 (m) in {config}: request: 'seed' is set by codebench"),
    ("model: m\nrequest: {seed: 3}\n", "request (in {config}): 'seed' is set by codebench"),
    ("models: [{name: \"a\\nerror: fake\"}]\n", "models entry 1 in {config}: name 'a\\nerror: fake' holds a control character"),
    ("models: [{name: m, label: \"\\e[2Jx\"}]\n", "models entry 1 in {config}: label '\\x1b[2Jx' holds a control character"),
    ("model: m\npuzzles: [rubik]\nparams: {rubik: {reveal_scramble: 1}}\n",
     "params (in {config}) rubik: parameter reveal_scramble=1: expected true or false"),
])
def test_config_values_are_named_as_written(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, message: str) -> None:
    err = _config_refused(capsys, tmp_path, text + f"out: {tmp_path / 'out'}\n", message)
    assert not any(word in err for word in INTERNALS), err


@pytest.mark.parametrize(("argv", "message"), [
    (["--samples", "0"], "--samples 0: give a whole number from 1 to 10000"),
    (["--cpu", "-1"], "--cpu -1: give a number above 0, at most 3600"),
    (["--games", "cardnim", "--move-cpu", "-1"], "--move-cpu -1: give a number above 0, at most 3600"),
    (["--games", "cardnim", "--move-cpu", "5000"], "--move-cpu 5000: give a number above 0, at most 3600"),
    (["--games", "cardnim", "--game-cpu", "0"], "--game-cpu 0: give a number above 0, at most 36000"),
    (["--temperature", "9"], "--temperature 9: give a number from 0 to 2"),
    (["--max-retries", "21"], "--max-retries 21: give a whole number from 0 to 20"),
    (["--backend", "dokcer"], "--backend 'dokcer': choose one of docker, local, unsafe-local"),
    (["--preset", "nope"], "--preset 'nope' is unknown: choose one of openai"),
    (["--price", "x=1/2"], "--price x: no model of this run is called that (models: m)"),
    (["--model", "a\u202eb"], "--model 'a\\u202eb' holds a control character"),
    (["--puzzles", "rubik", "--param", "rubik.reveal_scramble=maybe"],
     "--param rubik: parameter reveal_scramble='maybe': expected true or false"),
])
def test_flags_are_named_as_typed(tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    err = _refused_both_ways(capsys, tmp_path, "--model", "m", *argv, contains=message)
    assert not any(word in err for word in INTERNALS) and "run option" not in err, err


@pytest.mark.parametrize(("argv", "message"), [
    (["--backend", "dokcer"], "--backend 'dokcer': choose one of docker, local, unsafe-local"),
    (["--move-cpu", "-1"], "--move-cpu -1.0: give a positive number of CPU seconds per move, at most 3600"),
    (["--move-cpu", "5000"], "--move-cpu 5000.0: give a positive number of CPU seconds per move, at most 3600"),
    (["--game-cpu", "nan"], "--game-cpu nan: give a positive number of CPU seconds per game, at most 36000"),
    (["--memory", "1"], "--memory 1: give MiB per program player, 16-65536"),
])
@pytest.mark.parametrize("players", ["ref,random", "program"])
def test_play_checks_its_options_whoever_plays(tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str,
                                              players: str) -> None:
    if players == "program":
        program = tmp_path / "strategy.py"
        program.write_text("class Strategy:\n    pass\n")
        players = f"{program},ref"
    err = refused(capsys, "puzzles", "play", "cardnim", "--players", players, *argv, contains=message, inputs=(tmp_path,))
    assert "--cpu " not in err, err


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_mock_server_exits_130_on_ctrl_c_and_143_on_sigterm(signum: int, code: int) -> None:
    process = subprocess.Popen([sys.executable, "-m", "codebench", "mock-server", "--port", "0"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert process.stdout is not None and "listening" in process.stdout.readline()
    process.send_signal(signum)
    _, err = process.communicate(timeout=60)
    assert process.returncode == code and "Traceback" not in err, err


@pytest.mark.parametrize("key", sorted(RunOptions.model_fields))
def test_any_config_value_is_taken_or_refused_in_the_users_words(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                 key: str) -> None:
    for value in ("{a: [1]}", "'x'", "-1", "2.5", "true", "null", "''", "[]", "'1-9'", "[0]"):
        config = tmp_path / "run.yaml"
        given = {"model": "m", "base_url": DEAD_URL, "out": str(tmp_path / "out"), "games": "cardnim", key: value}
        config.write_text("".join(f"{name}: {text}\n" for name, text in given.items()))
        code, out, err = run_cli(capsys, "run", "--config", str(config), "--dry-run")
        assert code in (0, 2) and "Traceback" not in out + err, (value, err)
        assert code == 0 or (err.startswith("error: ") and len(err.strip().splitlines()) == 1), (value, err)
        assert not any(word in err for word in INTERNALS), (value, err)
        assert not (tmp_path / "out").exists()


def _laughs(levels: int) -> str:
    """A "billion laughs": each anchor a list of ten aliases of the one before, 10**levels values expanded."""
    anchors = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"] + [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]"
                                                            for i in range(1, levels)]
    return "request: {" + ", ".join(anchors) + "}\n"


@pytest.mark.parametrize(("text", "message"), [
    ("request: " + "{a: " * 3000 + "1" + "}" * 3000 + "\n", "its values nest deeper than YAML can read (at most 64 levels)"),
    ("models: " + "[" * 5000 + "]" * 5000 + "\n", "its values nest deeper than YAML can read"),
    ("request: " + "{a: " * 100 + "1" + "}" * 100 + "\n", "its values nest 101 levels deep (at most 64)"),
    ("request: &a {x: *a}\n", "a value holds itself (an alias inside its own anchor)"),
    (_laughs(7), "it holds 12,345,682 values once its aliases are expanded (at most 1,000,000)"),
])
def test_a_config_too_deep_self_referring_or_exploding_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str,
                                                                  message: str) -> None:
    _config_refused(capsys, tmp_path, f"model: m\nbase_url: {DEAD_URL}\nout: {tmp_path / 'out'}\n" + text,
                    f"--config {{config}}: {message}")
