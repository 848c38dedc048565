"""The budget gate: every model request (a puzzle sample, its format retries, a strategy request, each turn of a game's
chat seat) passes the run's budgets before it is sent and is charged when its reply arrives, so a run overspends by at
most the requests in flight; what the gate holds back is resumable and played or asked on a resume."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from codebench.games.table import MAX_ATTEMPTS
from codebench.model import client as client_module
from codebench.model.mock_server import MockServer, start_mock_server
from codebench.types import Completion

from .cli import run_cli
from .entry_points.refusal import refused

PRICE = 1000.0  # dollars per million tokens, each way: a token costs a thousandth of a dollar
GAMES = ["run", "--model", "oracle", "--mode", "instruction", "--games", "cardnim,superply", "--opponents", "ref,random",
         "--levels", "1", "--instances-per-level", "3", "--samples", "1", "--max-connections", "1"]


@dataclass
class Spent:
    """Every reply the model clients received in this test: what the endpoint was paid for."""

    tokens: int = 0
    requests: int = 0
    largest: int = 0  # the most tokens one request took


@pytest.fixture
def spent(monkeypatch: pytest.MonkeyPatch) -> Spent:
    counted = Spent()
    complete = client_module.ModelClient.complete

    async def counting(self: client_module.ModelClient, *args: Any, **kwargs: Any) -> Completion:
        completion = await complete(self, *args, **kwargs)
        tokens = (completion.prompt_tokens or 0) + (completion.completion_tokens or 0)
        counted.tokens, counted.requests, counted.largest = counted.tokens + tokens, counted.requests + 1, max(counted.largest, tokens)
        return completion

    monkeypatch.setattr(client_module.ModelClient, "complete", counting)
    return counted


@pytest.fixture(scope="module")
def server() -> Iterator[MockServer]:
    with start_mock_server(behavior="oracle") as running:
        yield running


def matches(out: Path) -> list[tuple[str, int, int]]:
    """Every stored game row: (key, void, attempts)."""
    with closing(sqlite3.connect(f"file:{out / 'run.sqlite'}?mode=ro", uri=True)) as db:
        return sorted(db.execute("SELECT key, void, attempts FROM matches").fetchall())


@pytest.mark.parametrize("budget", [("--max-tokens-total",), ("--price", f"oracle={PRICE:g}/{PRICE:g}", "--max-cost")],
                         ids=["tokens", "cost"])
def test_a_games_run_spends_at_most_the_request_in_flight_past_its_budget_and_resumes_its_held_games(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, server: MockServer,
        spent: Spent, budget: tuple[str, ...]) -> None:
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")  # models and built-ins only: no sandbox
    command = [*GAMES, "--base-url", server.url, "--out", str(tmp_path)]
    code, _, err = run_cli(capsys, *command, *budget, "3000" if budget[0] == "--max-tokens-total" else "3")
    assert code == 4 and "games were not played" in err and "Traceback" not in err, err
    assert 3000 <= spent.tokens < 3000 + spent.largest  # one request at a time: stopped by the reply that passed it
    stopped = matches(tmp_path)
    assert stopped and all(void == 0 and attempts == 1 for _, void, attempts in stopped)  # a held game is not stored

    code, _, err = run_cli(capsys, *command, *budget, "100000000")
    assert code == 0, err
    resumed = matches(tmp_path)
    # 2 games × 3 seeds × 3 pairings (the model with ref, with random; ref with random) × 2 seat orders
    assert len(resumed) == 2 * 3 * 3 * 2 and {key for key, _, _ in stopped} < {key for key, _, _ in resumed}
    assert all(void == 0 and attempts == 1 < MAX_ATTEMPTS for _, void, attempts in resumed)  # holding spent no attempt


def test_each_format_retry_passes_the_budget(tmp_path: Path, capsys: pytest.CaptureFixture[str], server: MockServer,
                                             spent: Spent) -> None:
    # `no_code` never gives a readable answer: without a gate per request, the first sample would ask 1 + 5 times
    command = ["run", "--model", "no_code", "--mode", "instruction", "--puzzles", "hanoi", "--levels", "1",
               "--instances-per-level", "1", "--samples", "2", "--format-retries", "5", "--max-connections", "1", "--base-url", server.url,
               "--out", str(tmp_path)]
    code, _, err = run_cli(capsys, *command, "--max-tokens-total", "1")
    assert code == 4 and "2 of 2 requests were not made" in err, err
    assert spent.requests == 1  # the first reply used the budget up; its format retry was not sent
    code, _, err = run_cli(capsys, *command)
    assert code == 0 and spent.requests == 1 + 2 * 6, err  # the held samples asked whole on the resume


@pytest.mark.docker
def test_a_held_strategy_request_holds_its_games_and_the_run_ends(tmp_path: Path) -> None:
    # two strategy requests: the first uses the budget up, the second is held, and so are the games its program plays
    with start_mock_server(behavior="oracle") as running:
        done = subprocess.run([sys.executable, "-m", "codebench", "run", "--model", "oracle", "--mode", "code", "--games",
                               "cardnim", "--opponents", "ref", "--levels", "1", "--instances-per-level", "1", "--samples",
                               "2", "--max-connections", "1", "--max-tokens-total", "1", "--base-url", running.url,
                               "--out", str(tmp_path)], capture_output=True, text=True, timeout=120,
                              env={**os.environ, "COLUMNS": "200"})
    assert done.returncode == 4, done.stderr[-3000:]
    assert "1 of 2 requests were not made and 2 of 4 games were not played" in done.stderr
    assert len(matches(tmp_path)) == 2  # the first program's games were played


@pytest.mark.parametrize("document", ['{"model": "oracle"}', '[{"model": "oracle", "mode": "instruction", "puzzle": "hanoi", '
                                      '"prompt_tokens": -5, "completion_tokens": 1, "reasoning_tokens": 0, "requests": 1}]'])
def test_a_damaged_record_of_tokens_spent_apart_is_one_error_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                    server: MockServer, document: str) -> None:
    command = ["run", "--model", "no_code", "--mode", "instruction", "--puzzles", "hanoi", "--levels", "1",
               "--instances-per-level", "1", "--samples", "2", "--max-connections", "1", "--base-url", server.url,
               "--max-tokens-total", "1", "--out", str(tmp_path)]
    assert run_cli(capsys, *command)[0] == 4
    with closing(sqlite3.connect(tmp_path / "run.sqlite")) as db, db:
        assert db.execute("SELECT 1 FROM meta WHERE key = 'spent'").fetchall()  # the cut-short conversation is recorded
        db.execute("UPDATE meta SET value = ? WHERE key = 'spent'", (document,))
    refused(capsys, "report", str(tmp_path), contains="tokens spent outside stored replies", inputs=(tmp_path,))
    code, _, err = run_cli(capsys, *command)  # a resume: its budget counts that record
    assert code == 2 and err.count("error:") == 1 and "tokens spent outside stored replies" in err and "Traceback" not in err
