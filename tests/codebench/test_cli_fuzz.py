"""Random command lines never end in a traceback: every outcome is a normal exit (0, 1) or one `error:` line (2, 3).

One test per group of commands, each with its own vocabulary: the real options and values mixed with hostile ones
(markup, escape sequences, huge, negative and non-finite numbers, missing and special paths, unicode). The report and
compare groups read two small real runs made once per module (instruction mode against the mock model, puzzles and a
game), and no command line may change them (readers never write). Commands that would start a sandbox or call a
model are left out (`run` only with --dry-run, `puzzles play` with built-in players or program files that cannot be
read); configs hold good and hostile `models:` entries.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codebench.cli import main
from codebench.model.mock_server import start_mock_server
from codebench.types import harmless

from .entry_points.refusal import snapshot

HOSTILE = ["0", "1", "-1", "7", "1-6", "6-1", "1-1000000000", "x", "", "[bold]", "[/]", "\x1b[2J\x1b]0;owned\x07", "n=3",
           "n=[3]", "n=99999999999", "=", "hanoi", "sudoku", "nope", "1e309", "nan", "inf", "99999999999999999999",
           "é\u2028\u202e", "/dev/full", "/dev/zero", "/proc/nonexistent/f", ".", "-", "--", "json"]
NUMBERS = ["0", "1", "2", "-1", "0.001", "1.5", "3001", "1e309", "nan", "inf", "-inf", "99999999999999999999", "x", ""]
GAMES = ["largertarget", "cardnim", "sudokill", "superplym", "tidytower", "maxmaximalcocktails-puzzleplex", "all", "ALL",
         "sudokill,cardnim", "largertarget,largertarget", "hanoi", "nope", "", ",", "[red]x"]
SECRET = "s" * 32


@dataclass(frozen=True)
class Group:
    """A family of command lines: how they start, their options (None: a flag) and their positional values."""

    starts: tuple[tuple[str, ...], ...]
    options: dict[str, tuple[str, ...] | None]
    positional: tuple[str, ...] = ()
    examples: int = 100
    found: tuple[tuple[str, ...], ...] = ()  # lines this test found failing once: tried every time, before the random ones


def paths(folder: Path) -> dict[str, str]:
    """The files and folders the vocabulary names, by role."""
    return {name: str(folder / name) for name in
            ("in.jsonl", "out.jsonl", "out.txt", "plots", "page.html", "board.png", "secret", "short-secret", "latin1",
             "folder.py", "missing.py", "bad.py", "run")}


def groups(folder: Path, runs: tuple[Path, ...], configs: tuple[str, ...]) -> dict[str, Group]:
    p = paths(folder)
    first, second, failed = (str(run) for run in runs)
    outputs = (p["out.txt"], p["out.jsonl"], p["plots"], p["page.html"], p["board.png"], "/dev/null", "/dev/full",
               str(folder), "/proc/nonexistent/f")
    into_inputs = (f"{first}/run.sqlite", first, f"{first}/report.html")  # every report and compare line reads `first`,
    # so these are its inputs there (a report of `second` alone may write over `first`'s database: it was asked to)
    sides = ("oracle:instruction", "wrong:instruction", "1/oracle:instruction", "2/oracle:instruction",
             "3/oracle:instruction", "0/oracle:instruction", "-1/oracle:instruction", "1/wrong:instruction",
             "2/wrong:instruction", "99999999999999999999/oracle:instruction", "x/oracle:instruction",
             "oracle:code", "oracle:both", "oracle:instrucion", "nosuch:instruction", "oracle", "oracle:", ":instruction",
             "1/", "/", ":", "", "[bold]oracle:instruction", "oracle\x1b[2J:instruction")
    prices = ("oracle=1/2", "wrong=0/0", "nosuch=1/2", "oracle=-1/2", "oracle=nan/1", "oracle=1e309/1", "oracle=1/",
              "oracle", "=1/2", "[b]x=1/2", "oracle=1/2/3")
    dry = ("run", "--dry-run", "--base-url", "http://127.0.0.1:9/v1", "--out", p["run"])
    secrets = (p["secret"], p["short-secret"], p["latin1"], "/nonexistent/secret", str(folder), "/dev/null", "/dev/zero")
    run_options: dict[str, tuple[str, ...] | None] = {
        "--games": tuple(GAMES), "--opponents": ("ref", "random", "models", "ref,random,models", "ref,ref", "nope", "", ","),
        "--move-cpu": tuple(NUMBERS), "--game-cpu": tuple(NUMBERS), "--game-secret-file": secrets,
        "--legal-hint": None, "--no-history": None, "--history": None,
        "--backend": ("docker", "local", "unsafe-local", "dokcer", "", "[red]"), "--executor": ("local", "ray", "x"),
        "--mode": ("code", "instruction", "both", "x", ""), "--model": ("oracle", "oracle,wrong", "oracle,oracle", "", ",",
                                                                     "[bold]m\x1b[2J"),
        "--puzzles": ("", "hanoi", "hanoi,hanoi", "nope", "[b]"),  # not all nine: a dry run plans every instance
        "--levels": ("1", "2", "1-3", "0", "7", "3-1", "1-1000000000", "x"),
        "--instances-per-level": tuple(NUMBERS), "--samples": tuple(NUMBERS), "--workers": tuple(NUMBERS),
        "--cpu": tuple(NUMBERS), "--max-tokens-total": tuple(NUMBERS), "--max-cost": tuple(NUMBERS), "--price": prices,
        "--format-retries": tuple(NUMBERS), "--seed": tuple(NUMBERS), "--out": (p["run"], p["out.txt"], "/dev/null", first),
        "--adaptive": None, "--target-width": tuple(NUMBERS), "--search-budget": tuple(NUMBERS),
        "--search-parallel": tuple(NUMBERS),
    }
    return {
        "puzzles": Group(
            starts=(("puzzles", "list"), ("puzzles", "generate"), ("puzzles", "show"), ("puzzles", "solve"),
                    ("puzzles", "validate"), ("puzzles", "import")),
            options={option: () for option in ("--level", "--seed", "--count", "--param", "-o", "--answers", "--json",
                                               "--format", "--levels", "--puzzles", "--colors", "--no-such-option", "-x")},
            positional=(p["in.jsonl"], p["out.jsonl"], str(folder)), examples=250),
        "compare": Group(
            starts=(("compare", first), ("compare", first, second), ("compare", first, first), ("compare", second, first),
                    ("compare", first, failed)),
            options={"--a": sides, "--b": sides, "--format": ("table", "json", "md", "x", ""), "-o": outputs + into_inputs},
            positional=(first, second, failed, f"{first}/run.sqlite", "/nonexistent", str(folder))),
        "report": Group(
            starts=(("report", first), ("report", first, second), ("report", first, first), ("report", second, first),
                    ("report", failed, first), ("report", first, failed)),
            options={"--format": ("table", "md", "csv", "json", "html", "x", ""), "-o": outputs + into_inputs,
                     "--output": outputs + into_inputs, "--plots": outputs + into_inputs, "--html": outputs + into_inputs,
                     "--section": ("cells", "collapse", "levels", "failures", "traces", "cross-task", "correlations",
                                   "tokens", "token-correlation", "cost", "optimality", "difficulty", "games", "adaptive",
                                   "protocol", "x", ""),
                     "--price": prices},
            positional=(first, second, failed, f"{first}/run.sqlite", "/nonexistent", str(folder)), examples=80,
            found=(("report", first, "-o", "é\u2028\u202e"),
                   ("report", first, failed, "--html", "/dev/full", "--output", p["out.txt"], "--plots", p["plots"]),
                   ("report", first, "--plots", "/proc/nonexistent/f", "--output", p["out.txt"]))),
        "play": Group(
            starts=tuple(("puzzles", "play", game) for game in ("largertarget", "cardnim", "sudokill", "superplym",
                                                                 "tidytower", "optimaltouring", "rubyrisks", "hanoi", "nope",
                                                                 "", "[red]x")),
            options={"--level": ("1", "0", "-1", "4", "99999999999999999999", "x", "1.5"),
                     "--seed": ("0", "7", "-1", "99999999999999999999", "x"),
                     "--players": ("ref,random", "random,ref", "ref", "random", "ref,ref,ref", "ref,nope", "", ",",
                                   f"{p['missing.py']},ref", f"{p['folder.py']},ref", f"{p['bad.py']},random",
                                   f"ref,{p['bad.py']}", "[b]x.py,ref"),
                     "--json": None, "-o": outputs, "--output": outputs, "--png": outputs,
                     "--backend": ("docker", "local", "unsafe-local", "dokcer", ""), "--game-cpu": tuple(NUMBERS),
                     "--move-cpu": tuple(NUMBERS), "--memory": ("512", "0", "-1", "99999999999", "x")},
            found=(("puzzles", "play", "cardnim", "--players", "ref,random", "-o", "\x1b[2J\x1b]0;owned\x07", "--json"),)),
        "run games": Group(
            starts=((*dry, "--model", "oracle", "--puzzles", "", "--games", "largertarget"),
                    (*dry, "--model", "oracle,wrong", "--mode", "instruction", "--puzzles", "hanoi", "--levels", "1"),
                    (*dry, "--puzzles", "", "--games", "all")),
            options=run_options),
        "run config": Group(
            starts=tuple((*dry, "--puzzles", "hanoi", "--levels", "1", "--config", config) for config in configs),
            options={option: run_options[option] for option in ("--model", "--games", "--opponents", "--price",
                                                                  "--legal-hint", "--mode", "--backend", "--move-cpu")},
            examples=120,
            found=tuple((*dry, "--puzzles", "hanoi", "--levels", "1", "--config", config, *extra) for config, extra in (
                (f"{folder}/configs/deep-request.yaml", ()), (f"{folder}/configs/deep-models.yaml", ()),
                (f"{folder}/configs/alias-bomb.yaml", ()), (f"{folder}/configs/newline.yaml", ("--price", "[b]x=1/2"))))),
    }


SMALL = "puzzles: [hanoi]\nlevels: [1]\n"  # a dry run plans every instance: keep the plan small
CONFIGS = {  # name -> YAML text (bytes: not UTF-8)
    "good.yaml": "mode: instruction\npuzzles: [hanoi]\nlevels: [1]\nmodels:\n  - oracle\n  - {name: wrong, label: w}\n",
    "games.yaml": "mode: instruction\npuzzles: []\ngames: [largertarget]\nopponents: [models, ref]\nlegal_hint: true\n"
                  "history: false\nmodels: [oracle, {name: wrong, images: false}]\n",
    "endpoints.yaml": "models:\n  - {name: oracle, base_url: 'http://127.0.0.1:9/v1', api_key_env: CODEBENCH_FUZZ_UNSET,\n"
                      "     request: {reasoning_effort: low}, idle_timeout: 5, max_retries: 1}\n",
    "preset.yaml": "models: [{name: oracle, preset: nope}, {name: wrong, preset: openai}]\n",
    "models-scalar.yaml": "models: 5\n",
    "models-string.yaml": "models: oracle\n",
    "models-mapping.yaml": "models: {name: oracle}\n",
    "name-int.yaml": "models: [{name: 5}]\n",
    "name-missing.yaml": "models: [{label: x}]\n",
    "empty-entry.yaml": "models: [{}, null, [], '']\n",
    "label-list.yaml": "models: [{name: oracle, label: [1]}]\n",
    "unknown-key.yaml": "models: [{name: oracle, temperature: 0.5}]\n",
    "request-string.yaml": "models: [{name: oracle, request: x}]\n",
    "base-url-int.yaml": "models: [{name: oracle, base_url: 7}]\n",
    "timeouts.yaml": "models: [{name: oracle, idle_timeout: -1, request_timeout: .nan, max_retries: 1e309}]\n",
    "twice.yaml": "models: [oracle, oracle]\n",
    "same-label.yaml": "models: [{name: oracle, label: x}, {name: wrong, label: x}]\n",
    "blank-name.yaml": "models: [{name: '  '}, {name: '', label: ''}]\n",
    "markup.yaml": SMALL + "models: [{name: \"[bold red]x\\e[2J\\e]0;t\\a\", label: \"[link=file:///etc]y[/link]\\u202e\"}]\n",
    "newline.yaml": SMALL + "models: [{name: \"a\\nerror: fake\\r\\x85b\"}]\n",
    "huge-name.yaml": SMALL + "models: [{name: " + "x" * 100_000 + "}]\n",
    "many-models.yaml": SMALL + "models: [" + ", ".join(f"m{i}" for i in range(5000)) + "]\n",
    "huge-numbers.yaml": "samples: 99999999999999999999\nseed: -1\ntemperature: 1e309\nlevels: 1\n"
                         "models: [{name: oracle, max_retries: 99999999999999999999}]\n",
    "aliases.yaml": "a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
                    "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nmodels: [*c, *c, *c]\n",
    "alias-bomb.yaml": "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(  # 10^9 values once expanded
        f"{name}: &{name} [{', '.join([f'*{previous}'] * 10)}]\n" for previous, name in zip("abcdefgh", "bcdefghi"))
        + "models: *i\n",
    "nested.yaml": SMALL + "models: [{name: oracle, request: " + "{a: " * 200 + "1" + "}" * 200 + "}]\n",
    "deep-request.yaml": SMALL + "models: [{name: oracle, request: " + "{a: " * 3000 + "1" + "}" * 3000 + "}]\n",
    "deep-models.yaml": "models: " + "[" * 5000 + "]" * 5000 + "\n",
    "prices.yaml": "models: [oracle]\nprices: {oracle: {input_per_mtok: -1, output_per_mtok: x}, nosuch: 5}\n",
    "not-a-mapping.yaml": "- models\n- oracle\n",
    "not-yaml.yaml": "models: [oracle\n  : :\n",
    "empty.yaml": "",
    "latin1.yaml": b"models: [\xe9t\xe9]\n",
}


def prepare(folder: Path) -> tuple[str, ...]:
    """Write the vocabulary's input files; the configs' paths (and two that are no config file)."""
    p = paths(folder)
    Path(p["in.jsonl"]).write_text('{"id": "hanoi/L1/s0", "puzzle": "hanoi", "instance": {"n": 3}}\n{oops\n')
    Path(p["secret"]).write_text(SECRET + "\n")
    Path(p["short-secret"]).write_text("short\n")
    Path(p["latin1"]).write_bytes(b"\xe9" * 40)
    Path(p["folder.py"]).mkdir()
    Path(p["bad.py"]).write_bytes(b"class Strategy:\n    pass  # \xff\xfe\n")
    configs = folder / "configs"
    configs.mkdir()
    for name, text in CONFIGS.items():
        (configs / name).write_bytes(text if isinstance(text, bytes) else text.encode())
    return (*(str(configs / name) for name in CONFIGS), str(configs), "/nonexistent/run.yaml", "/dev/zero")


def make_runs(folder: Path) -> tuple[Path, ...]:
    """Two small runs sharing instances (models oracle and wrong, then oracle; hanoi and one game), and one whose every
    request failed (the endpoint does not know the model)."""
    common = ["--mode", "instruction", "--puzzles", "hanoi", "--levels", "1", "--instances-per-level", "2", "--samples", "1",
              "--max-retries", "0"]
    runs = (folder / "first", folder / "second", folder / "failed")
    env = {**os.environ, "DOCKER_HOST": "unix:///nonexistent/docker.sock"}
    with start_mock_server() as server:
        for run, extra in zip(runs, (["--model", "oracle,wrong", "--games", "largertarget", "--opponents", "ref"],
                                     ["--model", "oracle"], ["--model", "missing"])):
            done = subprocess.run([sys.executable, "-m", "codebench", "run", "--base-url", server.url, *common, *extra,
                                   "--out", str(run)], env=env, capture_output=True, text=True, timeout=300)
            assert (run / "run.sqlite").is_file(), done.stderr[-2000:]
    return runs


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, tuple[Path, ...], dict[str, Group]]:
    folder = tmp_path_factory.mktemp("fuzz")
    configs = prepare(folder)
    runs = make_runs(tmp_path_factory.mktemp("runs"))
    return folder, runs, groups(folder, runs, configs)


@st.composite
def command_lines(draw: st.DrawFn, group: Group) -> list[str]:
    argv = list(draw(st.sampled_from(group.starts)))
    names = sorted(group.options)
    for _ in range(draw(st.integers(0, 5))):
        choice = draw(st.integers(0, 9))
        if choice == 0 and group.positional:  # a stray positional argument
            argv.append(draw(st.sampled_from(group.positional)))
            continue
        option = draw(st.sampled_from(names))
        argv.append(option)
        values = group.options[option]
        if values is None:  # a flag
            continue
        argv.append(draw(st.sampled_from(list(values) if values and choice < 8 else HOSTILE + list(group.positional))))
    if "--count" in argv:  # keep generation short: the point is the parsing, not the work
        index = argv.index("--count")
        argv[index + 1: index + 2] = ["2"]
    return argv


@pytest.mark.parametrize("name", ["puzzles", "compare", "report", "play", "run games", "run config"])
def test_random_command_lines_never_print_a_traceback(world: tuple[Path, tuple[Path, ...], dict[str, Group]], name: str,
                                                      capsys: pytest.CaptureFixture[str],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    folder, runs, by_name = world
    group = by_name[name]
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")  # nothing here may start a sandbox
    monkeypatch.chdir(folder)
    inputs = (Path(paths(folder)["in.jsonl"]), folder / "configs")
    before, stores = snapshot(inputs), snapshot(runs)

    def check_line(argv: list[str]) -> None:
        with pytest.raises(SystemExit) as ended:
            main(argv)
        out, err = capsys.readouterr()
        assert ended.value.code in (0, 1, 2, 3, None), (argv, err[-500:])
        assert "Traceback" not in out + err, (argv, err[-2000:])
        assert harmless(out + err) == out + err, (argv, (out + err)[-2000:])  # no escape sequence, bidi override, C1 code
        if ended.value.code in (2, 3) and "Usage:" not in out + err:  # a group without a command prints its help
            assert err.startswith("error: ") and len(err.strip().split("\n")) == 1, (argv, err)

    found = []  # each found line's failure, reported at the end: the random lines still run
    for line in group.found:
        try:
            check_line(list(line))
        except (Exception, pytest.fail.Exception) as exc:
            found.append(f"{exc!r}"[:2000])

    @settings(max_examples=group.examples, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(command_lines(group))
    def check(argv: list[str]) -> None:
        check_line(argv)

    check()
    assert snapshot(inputs) == before, "a command changed an input file"
    after = snapshot(runs)  # an output may be written into a run directory; its database stays as it was, alone
    assert {name: after.get(name) for name in stores} == stores, "a command changed a run's files"
    assert not [name for name in set(after) - set(stores) if Path(name).name.startswith("run.sqlite")], sorted(after)
    assert not found, "\n".join(found)
