"""A run's games with a program that tries to void the positions it is losing (it quits, or takes away its own request
channel, between moves), on both backends: every such game is stored as that program's loss, none void, and a resume
finds the run finished: nothing is played again. A game the sandbox itself keeps voiding is played MAX_ATTEMPTS times
over the resumes, then stays void, so a run always ends."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest

from codebench.games.table import MAX_ATTEMPTS, Table
from codebench.keys import program_key
from codebench.run.pipeline import record_plan
from codebench.run.plan import make_plan
from codebench.run.spec import RunSpec
from codebench.run.store import Store
from codebench.sandbox import SandboxBackend, get_backend
from codebench.sandbox._fake import FakeBackend
from codebench.types import Completion, GameLimits, Limits, Program, Reading, Sample

URL = "http://127.0.0.1:9/v1"
BACKENDS = [pytest.param("docker", marks=pytest.mark.docker), "local"]
QUITTER = '''
import os
import time


class Strategy:
    def __init__(self, setup):
        pass

    def act(self, observation):
        playable = [card for card in observation["my_cards"] if card <= observation["stones"]]
        QUIT
        return {"card": min(playable)}  # slow play: the game goes on after this move
'''
# killed once it has answered: a child it forks kills it; should the child not have run by the next move (a loaded
# machine), the player waits for it there, so the kill always falls between its first and second move
QUITS = {"is killed once it has answered": "globals().setdefault('answered', []) and time.sleep(60)\n        "
                                           "answered.append(os.fork() or (os.kill(os.getppid(), 9), os._exit(0)))",
         "takes away its request channel": "os.dup2(os.open('/dev/null', os.O_RDONLY), 4)"}


def play_games(store: Store, spec: RunSpec, source: str, sandbox: Callable[[], SandboxBackend] | None = None) -> list[bool]:
    """Play the spec's games with `source` as every strategy (in the spec's backend, or `sandbox()`); per game, whether it
    was found stored (not played)."""
    plan = make_plan(spec, URL)
    record_plan(store, spec, plan)
    found: list[bool] = []

    async def games() -> None:
        with sandbox() if sandbox is not None else get_backend(spec.backend, spec.limits, workers=2) as backend:
            table = Table(store, {}, backend, spec.game_limits, "", 4, lambda cached, void: found.append(cached),
                          on_held=lambda: pytest.fail("a game without a model seat was held"))
            for job in plan.strategies:
                reading = Reading(None, "", Program(program_key(source), source, "Strategy"))
                table.program(job.key, Sample(job.key, job.model, URL, "code", job.game, job.sample, None, job.prompt.text,
                                     job.sampling, Completion(source, "stop", False, 1, 1, 0.0, None, None), reading))
            await table.play_all(plan.matches)

    asyncio.run(games())
    return found


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("quit", sorted(QUITS))
def test_a_program_that_voids_its_games_loses_them_and_the_run_resumes_finished(tmp_path: Path, backend: str, quit: str) -> None:
    spec = RunSpec(models=("m",), puzzles=(), games=("cardnim",), levels=(2,), instances_per_level=2, samples=1,
                   opponents=("ref",), backend=backend, limits=Limits(cpu_s=2, memory_mib=256),
                   game_limits=GameLimits(game_cpu_s=10, move_cpu_s=2))
    store = Store(tmp_path / "run.sqlite")
    try:
        first = play_games(store, spec, QUITTER.replace("QUIT", QUITS[quit]))
        assert first == [False] * 4 and store.unplayed_games() == (0, 0)  # two seeds, both seat orders: none void
        seen = []  # per game: the program's status and how many moves it made
        for row in store.game_rows():
            seat = row.players.index("m (code)")
            seen.append((row.record["statuses"][seat], sum(move["player"] == seat for move in row.record["moves"])))
        # it loses every game that went on after its first move (where it moved once and the game ended, it played fair)
        assert all(status != "legal" or moves == 1 for status, moves in seen) and sum(status != "legal" for status, _ in seen) >= 2, seen
        assert not {"sandbox_error"} & {status for status, _ in seen}, seen
        assert play_games(store, spec, QUITTER.replace("QUIT", QUITS[quit])) == [True] * 4  # the resume plays nothing
    finally:
        store.close()


def test_a_game_the_sandbox_keeps_voiding_is_played_a_bounded_number_of_times(tmp_path: Path) -> None:
    spec = RunSpec(models=("m",), puzzles=(), games=("cardnim",), levels=(2,), instances_per_level=1, samples=1,
                   opponents=("ref",))
    store = Store(tmp_path / "run.sqlite")
    try:
        for _ in range(MAX_ATTEMPTS):  # every move of the fake backend's players is an infrastructure failure
            assert play_games(store, spec, "class Strategy: pass", lambda: FakeBackend(lambda *_: None)) == [False, False]
            assert store.unplayed_games() == (2, 0)
        assert play_games(store, spec, "class Strategy: pass", lambda: FakeBackend(lambda *_: None)) == [True, True]
        assert store.unplayed_games() == (2, 0) and store.game_rows() == []  # still void: not counted, and said so
    finally:
        store.close()
