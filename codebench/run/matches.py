"""The match stage: every planned game played once, its whole record stored; a re-run plays only what is missing.

A game waits for the programs of its code-mode entrants (their samples come through the pipeline like any other),
then plays in a thread of the stage's own pool (`match.play_seated`): built-in strategies on the host, programs each
in a sandbox worker held for the game, models in a conversation on the run's event loop (`ChatSeat`). A game with
program players first takes that many of the sandbox's seats at once, so two games never hold one worker each while
waiting for a second. A game the sandbox or the endpoint broke is stored void and played again on resume; an
interrupted game is not stored at all. Imports the games, the seats, the store and the shared types.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager

from puzzles.games import get_game

from ..errors import ConfigError
from ..match import BuiltinSeat, ForfeitSeat, MatchRecord, Seat, play_seated
from ..modes import ChatModel
from ..modes.games import STRATEGY_ENTRY, ChatSeat
from ..sandbox import SandboxBackend
from ..types import GameLimits, Outcome, Program, Sample, Status
from .plan import Entrant, MatchJob
from .store import PlannedMatch, Store, game_usage


def planned(job: MatchJob) -> PlannedMatch:
    return PlannedMatch(job.key, job.game, job.level, job.seed, job.players)


class Table:
    """Plays the plan's games; `program(sample)` hands it each code-mode sample once it is stored."""

    def __init__(self, store: Store, clients: dict[str, ChatModel], sandbox: SandboxBackend | None, budgets: GameLimits,
                 threads: int, on_played: Callable[..., None], admit: Callable[[], bool] = lambda: True) -> None:
        self.store, self.clients, self.sandbox, self.budgets = store, clients, sandbox, budgets
        self.on_played = on_played  # (cached=, void=, usage=) -> None: the progress counters and the run's budgets
        self.admit = admit  # False: the game may not start (a budget is used up); it is played on a resume
        self.loop = asyncio.get_running_loop()
        self.samples: dict[str, asyncio.Future[Sample]] = {}
        self.pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="codebench-game")
        self.starting = asyncio.Semaphore(threads)
        self.stop = threading.Event()  # set when the run ends: a seat waiting for its model gives up
        self.free = sandbox.capacity if sandbox is not None else 0
        self.freed = asyncio.Condition()

    def program(self, sample: Sample) -> None:
        """A code-mode sample is stored: the games its strategy plays may start."""
        future = self._sample(sample.key)
        if not future.done():
            future.set_result(sample)

    def _sample(self, key: str) -> asyncio.Future[Sample]:
        return self.samples.setdefault(key, self.loop.create_future())

    async def play_all(self, jobs: Sequence[MatchJob]) -> None:
        """Play every job not stored with a result yet.

        Raises:
            ConfigError: a game between two programs on a sandbox of one worker.
        """
        most = max((sum(entrant.mode == "code" for entrant in job.entrants) for job in jobs), default=0)
        if most > self.free:
            raise ConfigError(f"games between {most} programs need {most} sandbox workers at once; this sandbox has "
                              f"{self.free}: give --workers {most} or more")
        played = self.store.matches_played(job.key for job in jobs)
        for job in jobs:
            if job.key in played:
                self.on_played(cached=True, void=False)
        try:
            await asyncio.gather(*(self._play(job) for job in jobs if job.key not in played))
        finally:
            self.close()

    def close(self) -> None:
        self.stop.set()
        self.pool.shutdown(wait=False, cancel_futures=True)

    async def _play(self, job: MatchJob) -> None:
        players = [await self._player(entrant, job) for entrant in job.entrants]
        programs = sum(isinstance(player, tuple) for player in players)
        async with self.starting:  # as many games at once as the pool has threads: each is admitted as it starts
            if not self.admit():
                return
            async with self._seats(programs):
                record, reference = await self.loop.run_in_executor(self.pool, self._game, job, players)
        game = get_game(job.game)
        stored = {**record.to_json(), "players": list(job.players), "reference": reference, "higher_is_better": game.higher_is_better}
        self.store.add_match(planned(job), stored, record.void)
        self.on_played(cached=False, void=record.void,  # a void game's tokens leave with it, as the store's usage does
                       usage=() if record.void else game_usage(job.game, job.players, stored))

    def _game(self, job: MatchJob, players: list[Seat | tuple[str, Program]]) -> tuple[MatchRecord, float | None]:
        """The game played, and its one-player score's absolute reference."""
        game = get_game(job.game)
        setup = game.setup(job.level, job.seed)
        return play_seated(game, setup, players, self.sandbox, self.budgets), game.reference_score(setup)

    async def _player(self, entrant: Entrant, job: MatchJob) -> Seat | tuple[str, Program]:
        if not entrant.mode:
            return BuiltinSeat(entrant.label, get_game(job.game).strategies[entrant.name])
        if entrant.mode == "instruction":
            assert entrant.sampling is not None and entrant.options is not None
            return ChatSeat(entrant.label, self.clients[entrant.name], entrant.sampling, entrant.options, self.loop, self.stop)
        sample = await self._sample(entrant.sample_key)
        program = sample.reading.program
        if program is None:  # no usable program: the seat loses with the reading's status (an API error voids the game)
            return ForfeitSeat(entrant.label, Outcome(sample.reading.status or Status.NO_CODE, sample.reading.detail))
        return entrant.label, Program(program.key, program.source, STRATEGY_ENTRY)

    @asynccontextmanager
    async def _seats(self, count: int) -> AsyncIterator[None]:
        """Hold `count` of the sandbox's workers' worth of seats for one game, all at once."""
        if not count:
            yield
            return
        async with self.freed:
            await self.freed.wait_for(lambda: self.free >= count)
            self.free -= count
        try:
            yield
        finally:
            async with self.freed:
                self.free += count
                self.freed.notify_all()
