"""The match stage: every planned game played once, its whole record stored; a re-run plays only what is missing.

A game waits for the programs of its code-mode entrants (their strategy requests come through the pipeline), then
plays in a thread of the stage's own pool (`match.play_seated`): built-in strategies on the host, programs each in a
sandbox worker held for the game, models in a conversation on the run's event loop (`ChatSeat`). A game with
program players first takes that many of the sandbox's seats at once, so two games never hold one worker each while
waiting for a second. A game the sandbox or the endpoint broke is stored void and played again on resume, up to
`MAX_ATTEMPTS` plays in all: then it stays void (the report says so), so a run always ends. An interrupted game is not
stored at all.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager

from puzzles.games import Player, StrategyPlayer, get_game

from ..errors import ConfigError
from ..modes import ChatModel
from ..run.store import PlannedMatch, Store
from ..sandbox import SandboxBackend
from ..types import GameLimits, Outcome, Program, Sample, Status
from .chat import STRATEGY_ENTRY, ChatSeat
from .match import ForfeitSeat, MatchRecord, SeatEntry, play_seated
from .plan import BuiltinEntrant, ChatEntrant, Entrant, MatchJob, ProgramEntrant

MAX_ATTEMPTS = 3  # plays of a game the sandbox or the endpoint keeps voiding, over every resume


def game_versions(names: tuple[str, ...]) -> dict[str, int]:
    """Each game's engine version, for a run's provenance."""
    return {name: get_game(name).version for name in names}


def planned(job: MatchJob) -> PlannedMatch:
    return PlannedMatch(job.key, job.game, job.level, job.seed, job.players)


def entry(entrant: Entrant) -> SeatEntry:
    return SeatEntry(entrant.player, entrant.model, entrant.mode, entrant.sample)


class Table:
    """Plays the plan's games; `program(sample)` hands it each code-mode sample once it is stored."""

    def __init__(self, store: Store, clients: dict[str, ChatModel], sandbox: SandboxBackend | None, budgets: GameLimits,
                 secret: str, threads: int, on_played: Callable[..., None], admit: Callable[[], bool] = lambda: True) -> None:
        self.store, self.clients, self.sandbox, self.budgets = store, clients, sandbox, budgets
        self.secret = secret  # salts every setup and built-in player: the published seeds do not reveal the setups
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
        most = max((sum(isinstance(entrant, ProgramEntrant) for entrant in job.entrants) for job in jobs), default=0)
        if most > self.free:
            raise ConfigError(f"games between {most} programs need {most} sandbox workers at once; this sandbox has "
                              f"{self.free}: give --workers {most} or more")
        played = self.store.matches_settled((job.key for job in jobs), MAX_ATTEMPTS)
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
                record = await self.loop.run_in_executor(self.pool, self._game, job, players)
        self.store.add_match(planned(job), record.to_json(), record.void)
        self.on_played(cached=False, void=record.void,  # a void game's tokens leave with it, as the store's usage does
                       usage=() if record.void else [usage for usage in record.usage() if usage])

    def _game(self, job: MatchJob, players: list[Player | tuple[str, Program]]) -> MatchRecord:
        """The game played, with who sat where and its one-player score's absolute reference."""
        game = get_game(job.game)
        setup = game.setup(job.level, job.seed, self.secret)
        return MatchRecord(play_seated(game, setup, players, self.sandbox, self.budgets),
                           tuple(entry(entrant) for entrant in job.entrants), game.reference_score(setup), game.higher_is_better,
                           setup.meta.get("reference_kind"))

    async def _player(self, entrant: Entrant, job: MatchJob) -> Player | tuple[str, Program]:
        if isinstance(entrant, BuiltinEntrant):
            return StrategyPlayer(entrant.label, get_game(job.game).strategies[entrant.name])
        if isinstance(entrant, ChatEntrant):
            return ChatSeat(entrant.label, self.clients[entrant.model], entrant.sampling, entrant.options, self.loop, self.stop)
        sample = await self._sample(entrant.strategy_key)
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
