"""What every game owes, whatever its rules: totality of `legal` over any JSON value, fresh observations, turn order,
a game over refusing moves, whole games that end, and byte-identical setups and games across processes and hash seeds."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings

from puzzles import IssueCode
from puzzles.games import GAMES, Game, play

from ..strategies import JSON_VALUES

SEEDS = range(3)


def _midgame(game: Game, level: int, seed: int) -> dict:
    """A state a few random legal moves in (or the last one before the end)."""
    state = game.setup(level, seed).state
    rng = random.Random(seed)
    for _ in range(3):
        player = game.to_move(state)
        if player is None:
            break
        move = game.random_move(game, game.observe(state, player), player, rng)
        if move is None or not game.legal(state, player, move).ok:
            break
        after = game.apply(state, player, move)
        if game.is_over(after):
            break
        state = after
    return state


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(move=JSON_VALUES)
def test_any_json_value_as_a_move_gets_a_verdict(game: Game, move: object) -> None:
    for level in game.levels:
        state = _midgame(game, level, 1)
        verdict = game.legal(state, game.to_move(state), move)
        assert verdict.ok or verdict.issues  # a refusal always says why


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_observations_are_fresh_copies_and_turns_are_kept(game: Game) -> None:
    for level in game.levels:
        state = _midgame(game, level, 2)
        before = json.dumps(state, sort_keys=True)
        player = game.to_move(state)
        observation = game.observe(state, player)
        move = game.legal_moves(observation, player)[0]
        _scribble(observation)
        assert json.dumps(state, sort_keys=True) == before  # what a player holds is not the engine's state
        assert game.legal(state, player, move).ok
        if game.players == 2:
            assert game.legal(state, 1 - player, move).codes == {IssueCode.ILLEGAL_MOVE}  # not their turn
        game.apply(state, player, move)
        assert json.dumps(state, sort_keys=True) == before  # apply returns a new state


def _scribble(value: object) -> None:
    """Change every list and object inside `value`, as a careless or hostile player might."""
    if isinstance(value, dict):
        for key in list(value):
            _scribble(value[key])
        value["scribbled"] = True
    elif isinstance(value, list):
        for item in value:
            _scribble(item)
        value.append("scribbled")


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_random_games_end_with_legal_moves_and_refuse_moves_after(game: Game) -> None:
    for level in game.levels:
        for seed in SEEDS:
            setup = game.setup(level, seed)
            record = play(game, setup, [("random", game.random_move)] * game.players)
            assert game.is_over(record.final) or record.failed is not None
            if game.is_over(record.final):
                assert game.legal(record.final, 0, record.moves[-1]["move"]).codes == {IssueCode.ILLEGAL_MOVE}
            assert play(game, setup, [("random", game.random_move)] * game.players).to_json() == record.to_json()
            assert len(record.outcome.scores) == game.players


SCRIPT = """
import hashlib, json
from puzzles.games import GAMES, play
digests = {}
for game in GAMES:
    h = hashlib.sha256()
    for level in game.levels:
        for seed in range(2):
            setup = game.setup(level, seed)
            record = play(game, setup, [("random", game.random_move)] * game.players)
            h.update(json.dumps([setup.to_json(), record.to_json()], sort_keys=True, separators=(",", ":")).encode())
    digests[game.name] = h.hexdigest()
print(json.dumps(digests, sort_keys=True))
"""


def test_setups_and_whole_games_are_identical_across_processes_and_hash_seeds() -> None:
    runs = [subprocess.run([sys.executable, "-c", SCRIPT], env={**os.environ, "PYTHONHASHSEED": seed}, capture_output=True,
                           text=True, check=True, timeout=600).stdout for seed in ("0", "4242")]
    assert runs[0] == runs[1] and set(json.loads(runs[0])) == {game.name for game in GAMES}
