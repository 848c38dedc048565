"""`codebench run --games` end to end through the mock model server: both modes on all 15 games, code mode's strategies
in the Docker sandbox, every game stored, the report's scores and ratings, resume after SIGKILL."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from codebench.model.mock_server import start_mock_server
from codebench.run.store import Store
from puzzles.games import GAMES, game_names

from .cli import kill_midway, run_cli, run_command, stored_count

pytestmark = pytest.mark.docker
TIMINGS = {"cpu_s", "wall_s", "latency_s", "game_cpu_s"}


def untimed(value: Any) -> Any:
    """A record without its timings (which no two runs share)."""
    if isinstance(value, dict):
        return {key: untimed(item) for key, item in value.items() if key not in TIMINGS}
    if isinstance(value, list):
        return [untimed(item) for item in value]
    return value


def stored_games(out: Path) -> dict[str, dict[str, Any]]:
    store = Store.for_reading(out / "run.sqlite")
    try:
        return {row.key: {"players": row.players, **untimed(row.record)} for row in store.game_rows()}
    finally:
        store.close()


@pytest.fixture(scope="module")
def all_games(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """One run: the models `oracle` (plays the reference strategy) and `wrong` (an illegal move), both modes, every game."""
    out = tmp_path_factory.mktemp("games") / "run"
    with start_mock_server(behavior="oracle") as server:
        done = subprocess.run([sys.executable, "-m", "codebench", "run", "--model", "oracle,wrong", "--base-url", server.url,
                               "--mode", "both", "--games", "all", "--levels", "1", "--instances-per-level", "1", "--samples",
                               "1", "--workers", "2", "--out", str(out)], capture_output=True, text=True, timeout=900,
                              env={**os.environ, "COLUMNS": "200"})
    assert done.returncode == 0, done.stderr[-3000:]
    return out, done.stdout


def test_every_game_is_played_in_both_modes_and_seat_orders_and_stored(all_games: tuple[Path, str]) -> None:
    out, _ = all_games
    games = stored_games(out)
    store = Store.for_reading(out / "run.sqlite")
    plan = store.plan()
    store.close()
    assert plan is not None and len(games) == len(plan.matches)  # every planned game stored, none void
    seen = {(record["game"], tuple(record["players"])) for record in games.values()}
    for game in GAMES:
        for model in ("oracle", "wrong"):
            for mode in ("code", "instruction"):
                player = f"{model} ({mode})"
                if game.players == 1:
                    assert (game.name, (player,)) in seen
                    continue
                for opponent in ("ref", "random"):
                    assert {(game.name, (player, opponent)), (game.name, (opponent, player))} <= seen
                assert (game.name, ("oracle (" + mode + ")", "wrong (" + mode + ")")) in seen  # between models, both orders
                assert (game.name, ("wrong (" + mode + ")", "oracle (" + mode + ")")) in seen
        if game.players == 2:
            assert {(game.name, ("ref", "random")), (game.name, ("random", "ref"))} <= seen


def test_statuses_follow_the_failure_rule(all_games: tuple[Path, str]) -> None:
    out, _ = all_games
    for record in stored_games(out).values():
        for seat, (player, status) in enumerate(zip(record["players"], record["statuses"])):
            if player.startswith("wrong"):  # its first move is illegal: it loses (alone: the worst score)
                assert status == "rule_violation", (record["game"], player, record["details"])
                if len(record["players"]) == 2:
                    assert record["outcome"]["results"][seat] == "loss" and record["failed"] == seat
            else:
                assert status == "legal", (record["game"], player, record["details"])
        if record["players"][0].endswith("(instruction)"):  # a model's turn keeps its replies and tokens
            kept = record["kept"][0]
            assert kept["turns"] and kept["completion_tokens"] > 0 and "```json" in kept["turns"][0]["replies"][0]["text"]
    oracle_tower = [r for r in stored_games(out).values() if r["game"] == "tidytower" and r["players"] == ["oracle (code)"]]
    assert oracle_tower[0]["outcome"]["scores"] == [1.0] and oracle_tower[0]["reference"] == 1.0


def test_the_report_shows_scores_elo_and_bradley_terry_with_intervals(all_games: tuple[Path, str],
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    out, printed = all_games
    assert "games: " in printed and "pool-normalized" in printed
    code, text, _ = run_cli(capsys, "report", str(out), "--format", "json")
    assert code == 0
    games = json.loads(text)["games"]
    pools = {pool["game"]: pool for pool in games["ratings"]}
    assert set(pools) == {*game_names(), "all games"}
    for name, pool in pools.items():
        ratings = {rating["player"]: rating for rating in pool["ratings"]}
        assert {"ref", "random", "oracle (code)", "wrong (instruction)"} <= set(ratings), name
        assert all(r["low"] <= r["rating"] <= r["high"] for r in ratings.values())
        assert set(pool["elo"]) == set(ratings)
        assert ratings["wrong (code)"]["rating"] < ratings["ref"]["rating"]  # it loses every game
    scores = {(s["game"], s["player"]): s for s in games["scores"]}
    touring = {player: scores["optimaltouring", player] for player in ("ref", "oracle (code)", "oracle (instruction)")}
    # the oracles play the reference's tour: the pool's best, and as near the setup's proven optimum as the reference
    # gets (the run's secret draws the setup; on about one in thirty its 10,000 nodes stop short of the optimum)
    assert len({(s["raw"], s["normalized"]) for s in touring.values()}) == 1, touring
    assert all(s["pool_normalized"] == 1.0 and 0.5 < s["normalized"] <= 1.0 for s in touring.values()), touring
    assert scores["optimaltouring", "wrong (code)"]["normalized"] == 0.0 == scores["optimaltouring", "wrong (code)"]["raw"]
    assert scores["cardnim", "wrong (code)"]["losses"] == scores["cardnim", "wrong (code)"]["games"] == 6  # 2 × (ref, random, oracle)
    code, text, _ = run_cli(capsys, "report", str(out), "--format", "csv")
    assert code == 0 and "\ngame,level,player,games,raw_mean,normalized,pool_normalized," in text
    code, _, _ = run_cli(capsys, "report", str(out), "--html", str(out / "report.html"), "--format", "md")
    page = (out / "report.html").read_text(encoding="utf-8")
    assert code == 0 and 'id="replays"' in page and "Bradley–Terry" in page


def _stored_count(out: Path) -> int:
    return stored_count(out, "SELECT COUNT(*) FROM matches WHERE void = 0")


def test_a_match_run_killed_with_sigkill_resumes_to_the_records_of_an_uninterrupted_run(tmp_path: Path) -> None:
    secret = tmp_path / "secret"  # the two runs are compared: one secret, the same setups
    secret.write_text("the secret of both runs")
    args = ["--model", "oracle,mixed", "--mode", "both", "--games", "cardnim,tidytower,largertarget", "--levels", "1,2",
            "--instances-per-level", "2", "--samples", "2", "--max-connections", "2", "--workers", "2",
            "--game-secret-file", str(secret)]
    with start_mock_server(latency_s=0.05, seed=1) as server:
        command = [sys.executable, "-m", "codebench", "run", "--base-url", server.url, *args]
        env = {**os.environ, "COLUMNS": "120"}
        run_command([*command, "--out", str(tmp_path / "whole")], env)
        kill_midway(command, tmp_path / "resumed", env, _stored_count, 20)  # in the middle of the games
        partial = _stored_count(tmp_path / "resumed")
        run_command([*command, "--out", str(tmp_path / "resumed")], env)
    whole, resumed = stored_games(tmp_path / "whole"), stored_games(tmp_path / "resumed")
    assert 0 < partial < len(whole)  # it really was interrupted
    assert resumed == whole
    assert {status for record in whole.values() for status in record["statuses"]} > {"legal"}  # `mixed` fails some games
