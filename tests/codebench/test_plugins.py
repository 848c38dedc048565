"""Plugins as a user installs them: two small distributions (`plugin_packages`) built and installed by pip into a fresh
venv that sees this checkout and the test environment's libraries (through a .pth file, nothing downloaded), then
codebench run there: `puzzles list` shows each plugin with its origin and warns of the broken ones, a broken one asked
for by name is one error line, `run` plays the plugin's puzzle in both modes and its game against the mock model (the
mock server runs in the venv too: it answers from the plugin), and `check` judges a hand-written solver of it.

Building and installing the two packages takes about 4 s here, the whole module about 20 s.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
from collections.abc import Iterator
from pathlib import Path

import pytest

from .plugin_packages import write_packages

ROOT = Path(__file__).resolve().parents[2]
TINY, BROKEN = "codebench-tinyplug", "codebench-brokenplug"
UNUSABLE = {"bare": "has no template instruction/bare.md.j2", "broken": "cannot be loaded (ModuleNotFoundError",
            "hanoi": "has the name of the built-in puzzle", "notapuzzle": "is 42, not a puzzles.Puzzle",
            "twin": f"is registered as a puzzle by {BROKEN} 2.0.0 too"}


def environment() -> dict[str, str]:
    """The test's environment without what would put another checkout or venv on the path."""
    return {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A venv holding the two plugin distributions, with this checkout and the test environment's site-packages after
    its own (a .pth file: their own .pth files are not read, so no other codebench install takes part)."""
    folder = tmp_path_factory.mktemp("plugins")
    tiny, broken = write_packages(folder / "src")
    venv = folder / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], capture_output=True,
                          text=True, check=True, env=environment()).stdout.strip()
    paths = dict.fromkeys([str(ROOT), sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]])
    (Path(site) / "codebench_under_test.pth").write_text("".join(f"{path}\n" for path in paths))
    installed = subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation", "--no-index",
                                str(tiny), str(broken)], capture_output=True, text=True, env=environment(), timeout=300)
    assert installed.returncode == 0, installed.stderr[-3000:]
    where = codebench(venv, "-c", "import codebench, puzzles; print(codebench.__file__, puzzles.__file__)", module=False)
    assert all(Path(file).is_relative_to(ROOT) for file in where.stdout.split()), where.stdout  # the checkout under test
    return venv


def codebench(venv: Path, *argv: str, module: bool = True, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """`python -m codebench ARGV` (`module` False: `python ARGV`) with the venv's interpreter."""
    command = [str(venv / "bin" / "python"), *(["-m", "codebench"] if module else []), *argv]
    return subprocess.run(command, capture_output=True, text=True, env={**environment(), "COLUMNS": "200"}, cwd=cwd, timeout=120)


@pytest.fixture(scope="module")
def mock_url(venv: Path) -> Iterator[str]:
    """The mock model server, run in the venv: it answers the plugin's puzzle and game from the plugin itself."""
    server = subprocess.Popen([str(venv / "bin" / "python"), "-m", "codebench", "mock-server", "--port", "0"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=environment())
    try:
        assert server.stdout is not None
        line = server.stdout.readline()
        assert "listening on " in line, line
        yield line.split("listening on ")[1].split()[0]
    finally:
        server.terminate()
        server.communicate(timeout=30)  # closes its pipe too


def test_puzzles_list_shows_where_each_comes_from_and_warns_of_unusable_plugins(venv: Path) -> None:
    listed = codebench(venv, "puzzles", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    origins = {row["name"]: (row["kind"], row["origin"]) for row in json.loads(listed.stdout)}
    assert origins["addup"] == ("single", f"{TINY} 0.1.0") and origins["pile"] == ("interactive", f"{TINY} 0.1.0")
    assert origins["hanoi"] == ("single", "built-in") and origins["cardnim"] == ("interactive", "built-in")
    assert set(origins) & set(UNUSABLE) == {"hanoi"} and len(origins) == 9 + 15 + 2
    warnings = listed.stderr.splitlines()
    assert len(warnings) == len(UNUSABLE), listed.stderr
    for line, (name, why) in zip(sorted(warnings), sorted(UNUSABLE.items())):
        assert line.startswith(f"warning: the puzzle plugin '{name}' of ") and why in line, line
        assert f"{BROKEN} 2.0.0" in line, line

    table = codebench(venv, "puzzles", "list")
    assert table.returncode == 0 and "built-in" in table.stdout
    assert [line.split()[1] for line in table.stdout.splitlines() if f"{TINY} 0.1.0" in line] == ["addup", "pile"]


@pytest.mark.parametrize("argv", [["puzzles", "show", "{name}", "--level", "1"], ["puzzles", "selftest", "--puzzle", "{name}"],
                                  ["run", "--model", "oracle", "--puzzles", "addup,{name}", "--dry-run"]], ids=lambda argv: argv[1])
@pytest.mark.parametrize("name", ["bare", "broken", "notapuzzle", "twin"])
def test_an_unusable_plugin_asked_for_by_name_is_one_error_line(venv: Path, tmp_path: Path, argv: list[str], name: str) -> None:
    done = codebench(venv, *(part.format(name=name) for part in argv), cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == "", done.stdout + done.stderr
    [line] = done.stderr.splitlines()
    assert line.startswith("error: ") and f"the puzzle plugin '{name}' of " in line and UNUSABLE[name] in line, line
    assert "uninstall" in line or "point the entry point" in line, line
    assert list(tmp_path.iterdir()) == []  # nothing written


def test_run_asks_the_plugins_puzzle_in_both_modes_and_plays_its_game(venv: Path, mock_url: str, tmp_path: Path) -> None:
    out = tmp_path / "run"
    ran = codebench(venv, "run", "--model", "oracle", "--base-url", mock_url, "--puzzles", "addup", "--games", "pile", "--mode", "both",
                    "--levels", "1-2", "--instances-per-level", "2", "--samples", "1", "--backend", "local", "--workers", "1",
                    "--out", str(out))
    assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-3000:]
    exported = codebench(venv, "export", str(out), "--to", "jsonl")
    assert exported.returncode == 0, exported.stderr
    rows = [json.loads(line) for line in exported.stdout.splitlines()]
    executions = sorted((row["mode"], row["level"], row["status"]) for row in rows if row["kind"] == "executions")
    # code: the plugin's oracle program, run in the sandbox and judged by the plugin's validator; instruction: its solver
    assert executions == sorted((mode, level, "legal") for mode in ("code", "instruction") for level in (1, 2) for _ in range(2))
    prompts = [json.loads(row["prompt"]) for row in rows if row["kind"] == "samples" and row["puzzle"] == "addup"]
    assert len(prompts) == 5 and all("Add up every number of the instance's `numbers`" in prompt[1]["content"] for prompt in prompts)
    assert "DECOY" not in exported.stdout  # the built-in base templates, not the plugin's files named as they are
    games = sorted((row["players"][0], row["statuses"][0]) for row in rows if row["kind"] == "games" and "oracle" in row["players"][0])
    # instruction: the mock plays the plugin game's reference strategy; code: it has no engine of a plugin's to bundle
    assert games == [("oracle (code)", "no_code")] * 4 + [("oracle (instruction)", "legal")] * 4


def test_check_judges_a_hand_written_solver_of_the_plugins_puzzle(venv: Path, tmp_path: Path) -> None:
    right, wrong = tmp_path / "right.py", tmp_path / "wrong.py"
    right.write_text("def solve(instance):\n    total = 0\n    for number in instance['numbers']:\n        total += number\n"
                     "    return {'total': total}\n")
    wrong.write_text("def solve(instance):\n    return {'total': sum(instance['numbers']) + 1}\n")
    checked = codebench(venv, "check", str(right), "--puzzle", "addup", "--levels", "1-3", "--seeds", "0-2", "--backend", "local",
                        "--workers", "1", "--json")
    assert checked.returncode == 0, checked.stdout[-3000:] + checked.stderr[-3000:]
    results = json.loads(checked.stdout)["results"]
    assert len(results) == 9 and {result["status"] for result in results} == {"legal"}, results
    failed = codebench(venv, "check", str(wrong), "--puzzle", "addup", "--levels", "2", "--seeds", "0-2", "--backend", "local",
                       "--workers", "1")
    assert failed.returncode == 1 and "0 passed, 3 failed" in failed.stdout, failed.stdout + failed.stderr


def test_an_adaptive_run_of_a_plugin_puzzle_without_an_axis_is_refused(venv: Path, tmp_path: Path) -> None:
    """A plugin need not declare a complexity axis; without one there is nothing to search along, and --adaptive says so."""
    done = codebench(venv, "run", "--model", "oracle", "--preset", "mock", "--puzzles", "addup", "--adaptive", "--dry-run",
                     "--out", str(tmp_path / "run"), cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == "", done.stdout + done.stderr
    [line] = done.stderr.splitlines()
    assert line == ("error: --adaptive: puzzle addup declares no complexity axis; adaptive search needs one; leave addup out "
                    "of --puzzles"), line
