"""Code-mode games through `--executor ray` on a local cluster (`conftest.cluster`: a head and two nodes of one sandbox
slot each): the engine plays on the driver and each program seat is held on one actor's warm sandbox. A run gives the
local executor's games record for record; two program seats of one game sit on two nodes, and seats count against each
actor's slots; an actor SIGKILLed in the middle of a move voids only that game, which the resume plays again, never a
finished one."""

from __future__ import annotations

import functools
import itertools
import json
import os
import random
import signal
import sqlite3
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import ray
from ray.cluster_utils import Cluster

from codebench.keys import program_key
from codebench.model.mock_server import start_mock_server
from codebench.run.spec import RunSpec
from codebench.sandbox._fake import FakeBackend, Mover
from codebench.sandbox._ray import RayBackend, _RaySeat
from codebench.types import Facts, GameLimits, Limits, Program, ResultKind
from puzzles.games import get_game

from ..codebench import fakes
from ..codebench.cli import run_cli
from ..codebench.test_games_run import stored_games

ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the actors' factories live in this module
MOVE_S = 0.01  # a fake move's time
KILL_AT = 12  # the move in which an actor is killed (of about 100 over three actors): games before it are stored
SECRET = "the secret both runs share, so their setups match"
GAMES = dict(models=("oracle", "wrong"), mode="code", puzzles=(), games=("cardnim", "tidytower", "rubyrisks"), levels=(1, 2),
             instances_per_level=2, samples=1, game_secret=SECRET)


def mock_player(source: str, setup: dict[str, Any], moves: Iterator[int] | None = None, doomed: Path | None = None) -> Mover:
    """A fake sandbox's player, moving as the mock model's program would: the `wrong` program (a class of two lines) runs
    here; the oracle's bundles the engine, so its reference strategy is called with the program's own seeded RNG. The
    first actor to make KILL_AT `moves` SIGKILLs its own process in the middle of that move (`doomed` records that one
    did: only one ever does)."""
    if "SOURCES" in source:
        game, rng = get_game(setup["game"]), random.Random(0)
        act = lambda observation: game.strategies["ref"](game, observation, setup["player"], rng)  # noqa: E731
    else:
        namespace: dict[str, Any] = {}
        exec(compile(source, "strategy", "exec"), namespace)  # trusted: the mock model's `wrong` program
        act = namespace["Strategy"](setup).act

    def move(observation: Any) -> Facts:
        time.sleep(MOVE_S)
        if moves is not None and doomed is not None and next(moves) == KILL_AT and first(doomed):
            os.kill(os.getpid(), signal.SIGKILL)
        return Facts("move", {"kind": ResultKind.ANSWER.value, "answer": json.dumps(act(observation))}, cpu_s=0.01)
    return move


def first(flag: Path) -> bool:
    """True for the one caller that creates `flag`, over every process."""
    try:
        os.close(os.open(flag, os.O_CREAT | os.O_EXCL))
    except FileExistsError:
        return False
    return True


def games_fake(limits: Limits, workers: int, doomed: Path | None = None) -> FakeBackend:
    return FakeBackend(fakes.Simulated(), workers=workers, limits=limits,
                       player=functools.partial(mock_player, moves=itertools.count(1), doomed=doomed))


def attempts(out: Path) -> dict[str, tuple[int, int]]:
    """Each stored game: (void, plays)."""
    with sqlite3.connect(out / "run.sqlite") as db:
        return {key: (void, plays) for key, void, plays in db.execute("SELECT key, void, attempts FROM matches")}


@pytest.mark.parametrize(("backend", "nodes"), [("local", 3), pytest.param("docker", 2, marks=pytest.mark.docker)])
def test_a_code_mode_games_run_through_ray_gives_the_local_executors_games(cluster: Cluster, tmp_path: Path, backend: str,
                                                                          nodes: int, capsys: pytest.CaptureFixture[str]) -> None:
    """The local (bubblewrap) sandbox runs on every node; Docker's, on the two with an engine."""
    secret = tmp_path / "secret"
    secret.write_text(SECRET)
    common = ["--model", "oracle,wrong", "--mode", "code", "--games", "cardnim,tidytower", "--levels", "1",
              "--instances-per-level", "2", "--samples", "1", "--backend", backend, "--game-secret-file", str(secret)]
    with start_mock_server() as server:
        code, _, err = run_cli(capsys, "run", "--base-url", server.url, *common, "--workers", "2", "--out", str(tmp_path / "local"))
        assert code == 0, err
        code, _, err = run_cli(capsys, "run", "--base-url", server.url, *common, "--executor", "ray", "--ray-address",
                               cluster.address, "--out", str(tmp_path / "ray"))
        assert code == 0, err
    assert err.count("1 sandbox workers") == nodes, err
    local = stored_games(tmp_path / "local")
    assert stored_games(tmp_path / "ray") == local
    players = [tuple(record["players"]) for record in local.values()]
    assert len(local) == 2 * 12 + 2 * 4 and players.count(("oracle (code)", "wrong (code)")) == 2  # program against program
    assert {status for record in local.values() for status in record["statuses"]} == {"legal", "rule_violation"}


def test_two_seats_of_a_game_sit_on_two_nodes_and_seats_count_against_the_slots(cluster: Cluster) -> None:
    source = "class Strategy:\n    def __init__(self, setup):\n        pass\n\n    def act(self, observation):\n        return {}\n"
    program = Program(program_key(source), source, "Strategy")
    with RayBackend(Limits(), address=cluster.address, factory=games_fake) as sandbox:
        seats = [sandbox.reserve(program) for _ in range(3)]
        assert all(isinstance(seat, _RaySeat) and seat.loaded.loaded for seat in seats)
        assert len({seat.actor.node for seat in seats}) == 3  # one slot a node: every seat on a node of its own
        later: list[Any] = []
        waiting = threading.Thread(target=lambda: later.append(sandbox.reserve(program)))
        waiting.start()
        waiting.join(1.0)
        assert waiting.is_alive() and not later  # every slot is held: the fourth seat waits
        freed = seats[1].actor
        seats[1].release()
        waiting.join(30)
        assert later and later[0].actor is freed  # the slot just freed
        for seat in (*seats[::2], *later):
            assert seat.start({"game": "cardnim", "player": 0, "observation": {}}, GameLimits()).kind == "ready"
            assert seat.end().kind == "ended"
            seat.release()


def test_an_actor_killed_mid_run_voids_only_its_games_and_the_resume_plays_them(cluster: Cluster, tmp_path: Path) -> None:
    spec = RunSpec(**GAMES, out=tmp_path / "local")
    chats = {model: fakes.FakeChat(model) for model in GAMES["models"]}
    with FakeBackend(fakes.Simulated(), workers=3, player=mock_player) as local:
        fakes.run_plan(spec, chats, local)
    killed, doomed = replace(spec, out=tmp_path / "ray"), tmp_path / "killed"
    with RayBackend(Limits(), address=cluster.address, factory=functools.partial(games_fake, doomed=doomed)) as sandbox:
        pids = [actor.pid for actor in sandbox._actors]
        _, progress = fakes.run_plan(killed, chats, sandbox)
        restarted = [actor for actor, pid in zip(sandbox._actors, pids) if actor.pid != pid]
        assert doomed.exists() and len(restarted) == 1 and not restarted[0].dead  # one actor was killed; Ray restarted it
    first = attempts(tmp_path / "ray")
    void = {key for key, (is_void, _) in first.items() if is_void}
    assert progress.games_void == len(void) == 1 and len(first) == len(stored_games(tmp_path / "local"))  # the game in its move
    with RayBackend(Limits(), address=cluster.address, factory=functools.partial(games_fake, doomed=doomed)) as sandbox:
        fakes.run_plan(killed, chats, sandbox)  # the resume: what was void is played again
    assert stored_games(tmp_path / "ray") == stored_games(tmp_path / "local")
    assert attempts(tmp_path / "ray") == {key: (0, 2 if key in void else 1) for key in first}  # no finished game played again
