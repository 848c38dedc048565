"""The match stage: every planned game played once, its whole record stored; a re-run plays only what is missing.

A game waits for the programs of its code-mode entrants (their strategy requests come through the pipeline), then
plays in a thread of the stage's own pool (`match.play_seated`): built-in strategies on the host, programs each in a
sandbox worker held for the game, models in a conversation on the run's event loop (`ChatSeat`). A game with
program players first takes that many of the sandbox's seats at once, so two games never hold one worker each while
waiting for a second. A game the sandbox or the endpoint broke is stored void and played again on resume, up to
`MAX_ATTEMPTS` plays in all: then it stays void (the report says so), so a run always ends. An interrupted game is not
stored at all, nor is a held one: a game whose model could not be asked because the run's budget was used up (a turn
of its chat seat, or the strategy request of its program), played on a resume with a larger budget, no attempt spent.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager

from puzzles.games import Player, StrategyPlayer, get_game

from ..errors import BudgetReached, ConfigError
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
    """Plays the plan's games; `program(sample)` hands it each code-mode sample once it is stored. `clients`: the model
    of each chat seat, by the seat's label (a model's sample in instruction mode: its replies are its own)."""

    def __init__(self, store: Store, clients: dict[str, ChatModel], sandbox: SandboxBackend | None, game_limits: GameLimits,
                 secret: str, threads: int, on_played: Callable[[bool, bool], None], on_held: Callable[[], None]) -> None:
        self.store, self.clients, self.sandbox, self.game_limits = store, clients, sandbox, game_limits
        self.secret = secret  # salts every setup and built-in player: the published seeds do not reveal the setups
        self.on_played = on_played  # (cached, void): for the progress counters
        self.on_held = on_held  # a game not played: a request it needed was held by the run's budget
        self.loop = asyncio.get_running_loop()
        self.samples: dict[str, asyncio.Future[Sample | None]] = {}  # None: the budget held the strategy request
        self.pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="codebench-game")
        self.starting = asyncio.Semaphore(threads)
        self.stop = threading.Event()  # set when the run ends: a seat waiting for its model gives up
        self.free = sandbox.capacity if sandbox is not None else 0
        self.freed = asyncio.Condition()

    def program(self, key: str, sample: Sample | None) -> None:
        """A strategy request's sample is stored (the games its program plays may start), or it was held (None: so are they)."""
        future = self._sample(key)
        if not future.done():
            future.set_result(sample)

    def _sample(self, key: str) -> asyncio.Future[Sample | None]:
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
                self.on_played(True, False)
        try:
            await asyncio.gather(*(self._play(job) for job in jobs if job.key not in played))
        finally:
            self.close()

    def close(self) -> None:
        self.stop.set()
        self.pool.shutdown(wait=False, cancel_futures=True)

    async def _play(self, job: MatchJob) -> None:
        players: list[Player | tuple[str, Program]] = []
        try:
            for entrant in job.entrants:
                players.append(await self._player(entrant, job))
            programs = sum(isinstance(player, tuple) for player in players)
            async with self.starting, self._seats(programs):  # as many games at once as the pool has threads
                record = await self.loop.run_in_executor(self.pool, self._game, job, players)
        except BudgetReached:  # a model was not asked: the game says nothing yet, and is played on a resume
            self.store.add_spent(usage for entrant, player in zip(job.entrants, players) if isinstance(player, ChatSeat)
                                 and (usage := entry(entrant).usage(job.game, player.finish())) and usage.requests)
            self.on_held()
            return
        self.store.add_match(planned(job), record.to_json(), record.void)
        if record.void:  # played again: the replies its seats were paid for are counted apart
            self.store.add_spent(usage for usage in record.usage() if usage and usage.requests)
        self.on_played(False, record.void)

    def _game(self, job: MatchJob, players: list[Player | tuple[str, Program]]) -> MatchRecord:
        """The game played, with who sat where and its one-player score's absolute reference."""
        game = get_game(job.game)
        setup = game.setup(job.level, job.seed, self.secret)
        return MatchRecord(play_seated(game, setup, players, self.sandbox, self.game_limits),
                           tuple(entry(entrant) for entrant in job.entrants), game.reference_score(setup), game.higher_is_better,
                           setup.meta.get("reference_kind"))

    async def _player(self, entrant: Entrant, job: MatchJob) -> Player | tuple[str, Program]:
        if isinstance(entrant, BuiltinEntrant):
            return StrategyPlayer(entrant.label, get_game(job.game).strategies[entrant.name])
        if isinstance(entrant, ChatEntrant):
            return ChatSeat(entrant.label, self.clients[entrant.label], entrant.sampling, entrant.options, self.loop, self.stop,
                            entrant.prompting)
        sample = await self._sample(entrant.strategy_key)
        if sample is None:
            raise BudgetReached(f"{entrant.label}'s strategy request was held by the run's budget")
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
