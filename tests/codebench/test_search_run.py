"""`codebench run --adaptive`: each search asks the complexity its design chooses from the stored results, on a fresh
instance per step; it stops at the target width or its budget; a killed run resumes to the rows of an uninterrupted
one; options that would shape another run are refused."""

from __future__ import annotations

import json
import os
import sqlite3
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import codebench
import puzzles
from codebench.adaptive import AdaptiveDesign, AskedPoint
from codebench.model.mock_server import MockServer, start_mock_server
from codebench.run.store import Store
from codebench.types import ModeName, Status

from .cli import kill_midway, run_cli, run_command, stored_count
from .entry_points.refusal import refused


@pytest.fixture(scope="module")
def server() -> Iterator[MockServer]:
    with start_mock_server() as running:
        yield running


def steps(out: Path) -> dict[tuple[str, str, str], list[Any]]:
    store = Store.for_reading(out / "run.sqlite")
    try:
        found: dict[tuple[str, str, str], list[Any]] = {}
        for step in store.search_steps():
            found.setdefault((step.model, step.mode, step.puzzle), []).append(step)
        return found
    finally:
        store.close()


def replayed(lowest: int, highest: int, statuses: list[tuple[int, Status]], width: float, budget: int) -> list[int]:
    """The complexities the design asks, step by step, given each step's status; checks it stops where the run did."""
    design, counts, asked = AdaptiveDesign(lowest, highest), {}, []
    for lam, status in statuses:
        points = [AskedPoint(k, *v) for k, v in sorted(counts.items())]
        assert design.done(points, width, budget) is None
        asked.append(design.next_point(points))
        legal, counted = counts.get(lam, (0, 0))
        counts[lam] = (legal + (status == Status.LEGAL), counted + 1)
    assert design.done([AskedPoint(k, *v) for k, v in sorted(counts.items())], width, budget) is not None
    return asked


def test_each_step_asks_the_designs_choice_on_a_fresh_instance_until_the_budget(capsys: pytest.CaptureFixture[str],
                                                                                 server: MockServer, tmp_path: Path) -> None:
    out = tmp_path / "run"
    code, _, err = run_cli(capsys, "run", "--model", "oracle,wrong", "--mode", "both", "--puzzles", "checkers", "--adaptive",
                           "--search-budget", "6", "--backend", "local", "--seed", "7", "--base-url", server.url,
                           "--out", str(out))
    assert code == 0, err
    axis = puzzles.get_puzzle("checkers").complexity_axis()
    found = steps(out)
    assert sorted(found) == sorted((model, mode, "checkers") for model in ("oracle", "wrong") for mode in ModeName)
    for (model, _, _), searched in found.items():
        assert [step.step for step in searched] == list(range(6))  # the budget: 6 counted results
        assert {step.status for step in searched} == {Status.LEGAL if model == "oracle" else Status.RULE_VIOLATION}
        assert [step.instance_id for step in searched] == [f"checkers/c{step.complexity}/s{7 + step.step}" for step in searched]
        assert [step.complexity for step in searched] == replayed(axis.lowest, axis.highest,
                                                                  [(s.complexity, s.status) for s in searched], 1.0, 6)
    with sqlite3.connect(out / "run.sqlite") as db:
        asked = dict(db.execute("SELECT mode, COUNT(*) FROM samples WHERE model = 'wrong' GROUP BY mode"))
    assert asked == {"code": 1, "instruction": 6}  # one program; one request a step
    rows = codebench.load_run(out).steps  # the export's `steps` kind: every step, with the reply behind it
    assert [(r.model, r.mode, r.step, r.complexity, r.status) for r in rows] == [
        (s.model, s.mode, s.step, s.complexity, s.status) for searched in found.values() for s in searched]
    assert all(r.not_counted is None and r.response and r.prompt_tokens for r in rows)
    assert len({r.program_key for r in rows if r.mode == "code" and r.model == "wrong"}) == 1  # one program
    code, text, err = run_cli(capsys, "report", str(out), "--section", "adaptive", "--format", "json")
    edges = {(r["model"], r["mode"]): r["edge"] for r in json.loads(text)["records"]}
    limit = f"because {axis.limit}"  # every search was stopped by its budget against an end of the axis, and says so
    assert all(edges[model, mode].endswith(limit) for model, mode in edges if model == "oracle"), edges
    assert all(edges[model, mode] == "may lie below n=1, the lowest the axis has" for model, mode in edges if model == "wrong")
    code, _, err = run_cli(capsys, "export", str(out), "--to", "inspect", "-o", str(tmp_path / "logs"))
    assert code == 0 and "not in the inspect logs: 24 adaptive search steps" in " ".join(err.split()), err


def test_a_search_stops_once_its_interval_is_narrower_than_the_target(capsys: pytest.CaptureFixture[str], server: MockServer,
                                                                      tmp_path: Path) -> None:
    out = tmp_path / "run"
    code, _, err = run_cli(capsys, "run", "--model", "wrong", "--mode", "instruction", "--puzzles", "checkers", "--adaptive",
                           "--target-width", "20", "--base-url", server.url, "--out", str(out))
    assert code == 0, err
    (searched,) = steps(out).values()
    axis = puzzles.get_puzzle("checkers").complexity_axis()
    statuses = [(step.complexity, step.status) for step in searched]
    assert [step.complexity for step in searched] == replayed(axis.lowest, axis.highest, statuses, 20.0, 60)
    design = AdaptiveDesign(axis.lowest, axis.highest)
    assert 0 < len(searched) < 60 and design.estimate([AskedPoint(lam, 0, 1) for lam, _ in statuses]).width < 20


def _steps_stored(out: Path) -> int:
    return stored_count(out, "SELECT COUNT(*) FROM search_steps")


def _rows(out: Path) -> dict[str, Any]:
    """What a run stored, untimed: its steps, its samples' keys and statuses, its executions' statuses."""
    with sqlite3.connect(out / "run.sqlite") as db:
        return {"steps": db.execute("SELECT model, mode, puzzle, step, complexity, instance_id, sample_key, status "
                                    "FROM search_steps ORDER BY model, mode, puzzle, step").fetchall(),
                "samples": db.execute("SELECT key, response, read_status FROM samples ORDER BY key").fetchall(),
                "executions": db.execute("SELECT key, status FROM executions ORDER BY key").fetchall(),
                "instances": db.execute("SELECT id, instance FROM instances ORDER BY id").fetchall()}


def test_an_adaptive_run_killed_with_sigkill_resumes_to_the_rows_of_an_uninterrupted_run(tmp_path: Path) -> None:
    args = ["--model", "mixed,wrong", "--mode", "instruction", "--puzzles", "checkers,sat", "--adaptive",
            "--search-budget", "10", "--max-connections", "2"]
    with start_mock_server(latency_s=0.05, seed=3) as server:
        command = [sys.executable, "-m", "codebench", "run", "--base-url", server.url, *args]
        env = {**os.environ, "COLUMNS": "120"}
        run_command([*command, "--out", str(tmp_path / "whole")], env)
        whole_requests = server.hits
        kill_midway(command, tmp_path / "resumed", env, _steps_stored, 12)  # in the middle of the searches
        partial = _steps_stored(tmp_path / "resumed")
        run_command([*command, "--out", str(tmp_path / "resumed")], env)
        resumed_requests = server.hits - whole_requests
    whole, resumed = _rows(tmp_path / "whole"), _rows(tmp_path / "resumed")
    assert 0 < partial < len(whole["steps"]) == 40  # it really was interrupted; four searches of ten
    assert resumed == whole
    assert resumed_requests <= whole_requests + 4  # nothing stored is asked again: at most the four in flight at the kill
    assert len({status for *_, status in whole["steps"]}) > 2  # `mixed` answers some legally, fails others in ways


@pytest.mark.parametrize(("extra", "contains"), [
    (("--levels", "1-3"), "--levels cannot go with --adaptive"),
    (("--instances-per-level", "2"), "--instances-per-level cannot go with --adaptive"),
    (("--samples", "2"), "--samples cannot go with --adaptive"),
    (("--games", "cardnim"), "--games cannot go with --adaptive"),
    (("--batch",), "--batch cannot go with --adaptive"),
])
def test_options_that_shape_another_run_are_refused(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                    extra: tuple[str, ...], contains: str) -> None:
    out = tmp_path / "run"
    refused(capsys, "run", "--model", "oracle", "--preset", "mock", "--adaptive", *extra, "--out", str(out),
            contains=contains)
    assert not out.exists()


def test_search_options_without_adaptive_are_refused(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    for option in ("--target-width", "--search-budget"):
        refused(capsys, "run", "--model", "oracle", "--preset", "mock", option, "3", "--out", str(tmp_path / "run"),
                contains=f"{option} applies only to adaptive searches: add --adaptive")


@pytest.mark.parametrize(("mode", "width"), [("instruction", 1.5), ("code", 2.0)])
def test_a_search_finds_a_known_threshold(capsys: pytest.CaptureFixture[str], server: MockServer, tmp_path: Path,
                                          mode: str, width: float) -> None:
    """The mock's collapse-5-1.5 succeeds with probability 1 / (1 + e^(1.5 (λ − 5))) in instruction mode and up to λ = 5 in
    code mode (a step between 5 and 6): each search's interval holds the true threshold, and it got there in fewer results
    than its budget."""
    out = tmp_path / "run"
    sandbox = ("--backend", "local") if mode == "code" else ()
    code, _, err = run_cli(capsys, "run", "--model", "collapse-5-1.5", "--mode", mode, "--puzzles", "hanoi", "--adaptive",
                           "--target-width", str(width), *sandbox, "--base-url", server.url, "--out", str(out))
    assert code == 0, err
    (searched,) = steps(out).values()
    counts: dict[int, tuple[int, int]] = {}
    for step in searched:
        legal, counted = counts.get(step.complexity, (0, 0))
        counts[step.complexity] = (legal + (step.status == Status.LEGAL), counted + 1)
    estimate = AdaptiveDesign(1, 24).estimate([AskedPoint(lam, *n) for lam, n in counts.items()])
    truth = 5.0 if mode == "instruction" else 5.5
    assert estimate.low <= truth <= estimate.high and estimate.width < width and len(searched) < 60, (estimate, counts)
    code, text, err = run_cli(capsys, "report", str(out), "--section", "adaptive", "--format", "json")
    (record,) = json.loads(text)["records"]  # Hanoi has one instance per n: every result after the first at an n repeats one
    assert code == 0 and record["repeated"] == len(searched) - len(counts) > 0, (record, counts)


def test_parallel_steps_ask_several_results_at_each_choice_and_resume_alike(capsys: pytest.CaptureFixture[str],
                                                                            server: MockServer, tmp_path: Path) -> None:
    """--search-parallel 4: each choice is asked four times at once (results n..n+3 on seeds n..n+3), the next choice
    follows from all four, the budget is never passed; a re-run asks nothing again."""
    out = tmp_path / "run"
    argv = ["run", "--model", "collapse-5-1.5", "--mode", "instruction", "--puzzles", "hanoi", "--adaptive",
            "--search-parallel", "4", "--search-budget", "10", "--base-url", server.url, "--out", str(out)]
    code, _, err = run_cli(capsys, *argv)
    assert code == 0, err
    (searched,) = steps(out).values()
    assert [step.step for step in searched] == list(range(10))  # 4 + 4 + 2: the last step cut to the budget
    assert [step.instance_id for step in searched] == [f"hanoi/c{step.complexity}/s{step.step}" for step in searched]
    chosen = [searched[i].complexity for i in (0, 4, 8)]
    assert all(searched[i].complexity == chosen[i // 4] for i in range(10))
    design, counts = AdaptiveDesign(1, 24), {}
    for start in (0, 4, 8):  # each choice is the design's on the results of the steps before it
        assert design.next_point([AskedPoint(lam, *n) for lam, n in sorted(counts.items())]) == searched[start].complexity
        for step in searched[start:start + 4]:
            legal, counted = counts.get(step.complexity, (0, 0))
            counts[step.complexity] = (legal + (step.status == Status.LEGAL), counted + 1)
    before = server.hits
    code, _, err = run_cli(capsys, *argv)
    assert code == 0 and server.hits == before, err


def test_a_budget_holds_the_searches_and_a_larger_one_finishes_them(capsys: pytest.CaptureFixture[str], server: MockServer,
                                                                     tmp_path: Path) -> None:
    out = tmp_path / "run"
    argv = ["run", "--model", "collapse-5-1.5", "--mode", "instruction", "--puzzles", "hanoi,river", "--adaptive",
            "--target-width", "2", "--base-url", server.url, "--out", str(out)]
    code, _, err = run_cli(capsys, *argv, "--max-tokens-total", "6000")
    assert code == 4 and "budget reached: --max-tokens-total 6000" in err, err
    held = {key: len(searched) for key, searched in steps(out).items()}
    code, text, _ = run_cli(capsys, "report", str(out))
    assert code == 0 and text.startswith("codebench report: PARTIAL: ") and "2 adaptive searches unfinished" in text
    before = server.hits
    code, _, err = run_cli(capsys, *argv)
    assert code == 0, err
    finished = {key: len(searched) for key, searched in steps(out).items()}
    assert server.hits - before == sum(finished.values()) - sum(held.values())  # only what was held is asked
    code, text, _ = run_cli(capsys, "report", str(out))
    assert code == 0 and not text.startswith("codebench report: PARTIAL")
