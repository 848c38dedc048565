"""A fake backend for the pipeline's own tests and the scheduling benchmark: the real scheduler, nothing run.

Each session answers through `handler(source, instance) -> Facts` (and loads through `loader(source)`,
default: loaded) instead of running the program, so tests of scheduling, resume and metrics take a
second and need no Docker; a game's player moves through `player(source, setup)`, a callable from
observation to facts. It isolates nothing and executes nothing: never a backend users can pick.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from ..types import Facts, GameLimits, Limits, ResultKind
from ._pool import PooledBackend, WorkerPool
from ._session import SessionBroken

Handler = Callable[[str, dict[str, Any]], Facts]
Loader = Callable[[str], Facts]
Mover = Callable[[Any], Facts]  # a fake player: observation → the facts of its move
PlayerFactory = Callable[[str, dict[str, Any]], Mover]


def no_player(source: str, setup: dict[str, Any]) -> Mover:
    return lambda observation: Facts.infrastructure("move", "this fake backend was given no player")


def always_loaded(source: str) -> Facts:
    return Facts("load", {"kind": ResultKind.LOADED.value})


class FakeSession:
    """What a supervisor session does, as the handler says."""

    def __init__(self, worker: FakeWorker) -> None:
        self.worker = worker
        self.source = ""

    def load(self, source: str, entry: str, limits: Limits, enforced: dict[str, Any]) -> Facts:
        if not self.worker.proves_clean:  # as the supervisor refuses a load onto a slate it cannot prove clean
            raise SessionBroken("supervisor error: the last program's slate cannot be proven clean")
        self.source = source
        with self.worker.lock:
            self.worker.loads += 1
        return self.worker.loader(source)

    def run(self, instance: dict[str, Any], limits: Limits) -> Facts:
        return self.worker.handler(self.source, instance)

    def start(self, setup: dict[str, Any], game: GameLimits) -> Facts:
        self.mover = self.worker.player(self.source, setup)
        return Facts("start", {"kind": ResultKind.READY.value})

    def act(self, observation: Any, game: GameLimits) -> Facts:
        return self.mover(observation)

    def end(self) -> Facts:
        return Facts("end", {"kind": ResultKind.ENDED.value}, clean=self.worker.proves_clean)

    def close(self) -> bool:
        return self.worker.proves_clean


class FakeWorker:
    def __init__(self, handler: Handler, loader: Loader, player: PlayerFactory) -> None:
        self.handler, self.loader, self.player = handler, loader, player
        self.lock = threading.Lock()
        self.loads = self.recycles = 0
        self.proves_clean = True  # what closing a session, or loading the next program, finds of the slate

    def open_session(self) -> FakeSession:
        return FakeSession(self)

    def recycle(self) -> None:
        self.recycles += 1
        self.proves_clean = True  # rebuilt

    def close(self) -> None:
        pass


class FakeBackend(PooledBackend):
    """`workers` fake workers behind the real WorkerPool."""

    name = "fake"

    def __init__(self, handler: Handler, workers: int = 2, limits: Limits | None = None, loader: Loader = always_loaded,
                 player: PlayerFactory = no_player) -> None:
        super().__init__(limits or Limits())
        self.fakes = [FakeWorker(handler, loader, player) for _ in range(workers)]
        self.pool = WorkerPool(self.fakes, self.limits, self.limits.for_supervisor())

    @property
    def loads(self) -> int:
        """Programs loaded so far, over all workers."""
        return sum(worker.loads for worker in self.fakes)
