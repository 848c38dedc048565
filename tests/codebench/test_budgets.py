"""Run budgets and prices: a run stopped by --max-tokens-total or --max-cost resumes, once the budget is raised, to
exactly the rows of a run that never stopped; bad prices and budgets are one error line."""

from __future__ import annotations

from pathlib import Path

import pytest

from codebench.model.mock_server import start_mock_server
from codebench.run.store import Store

from .cli import run_cli

RUN = ["run", "--model", "mixed", "--mode", "instruction", "--puzzles", "hanoi,sat,waterjug", "--levels", "1-2",
       "--instances-per-level", "2", "--samples", "2", "--max-connections", "1"]


def stored(out: Path) -> tuple[list[tuple[object, ...]], int, int]:
    """(the report rows, the requests paid for, their prompt + completion tokens)."""
    store = Store.for_reading(out / "run.sqlite")
    try:
        usage = store.usage()
        return sorted(map(repr, store.report_rows())), sum(u.requests for u in usage), sum(u.prompt_tokens + u.completion_tokens
                                                                                            for u in usage)
    finally:
        store.close()


def cut_short(out: Path) -> tuple[int, int]:
    """(requests, tokens) of the conversations a budget cut short, paid for and then asked anew: no stored reply holds them."""
    store = Store.for_reading(out / "run.sqlite")
    try:
        spent = store.spent()
        return sum(u.requests for u in spent), sum(u.prompt_tokens + u.completion_tokens for u in spent)
    finally:
        store.close()


@pytest.fixture(scope="module")
def server():  # type: ignore[no-untyped-def]
    with start_mock_server(behavior="mixed") as running:
        yield running


def test_a_token_budget_stops_the_run_and_a_larger_one_resumes_it_to_the_unbudgeted_rows(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], server) -> None:  # type: ignore[no-untyped-def]
    full, budgeted = tmp_path / "full", tmp_path / "budgeted"
    assert run_cli(capsys, *RUN, "--base-url", server.url, "--out", str(full))[0] == 0
    rows, requests, tokens = stored(full)
    budget = str(tokens // 3)

    code, out, err = run_cli(capsys, *RUN, "--base-url", server.url, "--max-tokens-total", budget, "--out", str(budgeted))
    assert code == 4
    assert err.count("error: budget reached: --max-tokens-total") == 1 and "run the same command again" in err
    assert "codebench report:" in out  # the report of what was asked is printed before the exit
    partial, partial_requests, spent = stored(budgeted)
    assert 0 < partial_requests < requests and set(partial) < set(rows)
    assert int(budget) <= spent  # stopped only once the budget was used up ...
    assert spent - int(budget) < tokens / requests * 3  # ... with at most the one reply in flight past it

    code, _, err = run_cli(capsys, *RUN, "--base-url", server.url, "--max-tokens-total", budget, "--out", str(budgeted))
    assert code == 4 and stored(budgeted)[1] == partial_requests  # the same budget counts what was spent before

    code, _, _ = run_cli(capsys, *RUN, "--base-url", server.url, "--max-tokens-total", str(tokens * 2), "--out", str(budgeted))
    assert code == 0
    extra_requests, extra_tokens = cut_short(budgeted)
    assert stored(budgeted) == (rows, requests + extra_requests, tokens + extra_tokens)


def test_a_cost_budget_counts_dollars_at_the_given_price(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                        server) -> None:  # type: ignore[no-untyped-def]
    # at $1000 per million tokens each way a request costs about a dollar per thousand tokens
    code, _, err = run_cli(capsys, *RUN, "--base-url", server.url, "--price", "mixed=1000/1000", "--max-cost", "0.5",
                           "--out", str(tmp_path))
    assert code == 4 and "--max-cost 0.5: $" in err
    _, requests, tokens = stored(tmp_path)
    assert tokens * 1000 / 1e6 >= 0.5 and requests < 24
    code, text, _ = run_cli(capsys, "report", str(tmp_path), "--section", "cost", "--format", "csv")
    assert code == 0
    header, run_line = (line.split(",") for line in text.splitlines()[:2])
    assert run_line[0] == "run" and float(run_line[header.index("cost")]) == pytest.approx(tokens * 1000 / 1e6)


@pytest.mark.parametrize(("extra", "message"), [
    (["--max-cost", "1"], "--max-cost needs a price for every model; mixed has none"),
    (["--price", "other=1/2"], "--price other: no model of this run is called that"),
    (["--price", "mixed=1"], "--price 'mixed=1'"),
    (["--price", "mixed=-1/2"], "--price 'mixed=-1/2'"),
    (["--max-tokens-total", "0"], "--max-tokens-total 0: give a whole number at least 1"),
])
def test_bad_prices_and_budgets_are_one_error_line(tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str],
                                                   message: str) -> None:
    code, _, err = run_cli(capsys, *RUN, "--base-url", "http://127.0.0.1:9/v1", *extra, "--out", str(tmp_path / "x"))
    assert code == 2
    assert err.count("error:") == 1 and message in err and "Traceback" not in err
    assert not (tmp_path / "x").exists()


GAMES = ["run", "--model", "mixed", "--mode", "instruction", "--games", "cardnim,tidytower", "--levels", "1",
         "--instances-per-level", "2", "--samples", "1", "--max-connections", "1"]


def played(out: Path) -> tuple[list[tuple[object, ...]], int]:
    """(each stored game's setup, players, scores and statuses; the tokens of the run's usage)."""
    store = Store.for_reading(out / "run.sqlite")
    try:
        games = sorted((g.key, g.players, tuple(g.record["outcome"]["scores"]), tuple(g.record["statuses"]))
                       for g in store.game_rows())
        return games, sum(u.prompt_tokens + u.completion_tokens for u in store.usage())
    finally:
        store.close()


def test_game_turns_count_toward_a_budget_and_the_held_games_are_played_on_resume(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        server) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")  # models and built-ins only: no sandbox
    full, budgeted = tmp_path / "full", tmp_path / "budgeted"
    secret = tmp_path / "secret"  # the two runs are compared: the same secret, the same setups
    secret.write_text("a shared secret of two runs")
    command = [*GAMES, "--game-secret-file", str(secret)]
    code, _, err = run_cli(capsys, *command, "--base-url", server.url, "--out", str(full))
    assert code == 0, err
    games, tokens = played(full)
    assert games and tokens > 0
    code, text, _ = run_cli(capsys, "report", str(full), "--section", "cost", "--format", "csv")
    assert code == 0 and {"cardnim", "tidytower"} <= {line.split(",")[3] for line in text.splitlines()[1:] if line}  # per game

    code, _, err = run_cli(capsys, *command, "--base-url", server.url, "--max-tokens-total", str(tokens // 3), "--out", str(budgeted))
    assert code == 4 and "games were not played" in err and "Traceback" not in err, err
    partial, spent = played(budgeted)
    assert 0 < len(partial) < len(games) and set(partial) < set(games) and spent >= tokens // 3
    code, _, _ = run_cli(capsys, *command, "--base-url", server.url, "--max-tokens-total", str(tokens * 2), "--out", str(budgeted))
    assert code == 0 and played(budgeted) == (games, tokens + cut_short(budgeted)[1])
