"""The scheduler inside the backends: keeps every worker busy with the tasks of many programs at once.

Each worker (a warm container, a local supervisor, a fake) has one thread that runs one program at a
time: a free worker takes the next task of the program it has loaded, else the first task of the
oldest batch with tasks left, and loads that program once, into the supervisor session the worker started
with (one session serves program after program; each load proves the last one's slate clean). A broken
session is retried once on a recycled worker; every task ends with facts (infrastructure facts if need be),
delivered exactly once.
A game's sandboxed player holds a worker for the whole game instead (`reserve`): reservations go before
tasks, and the worker's thread waits until the worker is released.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..errors import SandboxError
from ..types import Batch, Facts, GameLimits, Limits, Program, Result, Task
from . import Deliver, SandboxBackend
from ._session import SessionBroken

ATTEMPTS = 2  # per task: the first try, and one on a recycled worker
CLOSE_GRACE_S = 5.0  # how long close() waits for a task in flight once the workers are gone

log = logging.getLogger("codebench.sandbox")


class WorkerSession(Protocol):
    """One supervisor: loads a program once, then runs instances one by one (`_session.Session`, or a fake)."""

    def load(self, source: str, entry: str, limits: Limits, enforced: dict[str, Any]) -> Facts: ...
    def run(self, instance: dict[str, Any], limits: Limits) -> Facts: ...
    def start(self, setup: dict[str, Any], game: GameLimits) -> Facts: ...
    def act(self, observation: Any, game: GameLimits) -> Facts: ...
    def end(self) -> Facts: ...
    def close(self) -> bool: ...  # True: the slate is proven clean for the next session


class Worker(Protocol):
    """One isolation unit: opens supervisor sessions, is rebuilt when it misbehaves."""

    def open_session(self) -> WorkerSession: ...
    def recycle(self) -> None: ...
    def close(self) -> None: ...


@dataclass
class _Queued:
    batch: Batch
    deliver: Deliver
    tasks: deque[Task] = field(default_factory=deque)  # not yet taken by a worker


class PooledHeldWorker:
    """A worker held for a game's player, the program loaded (`loaded`): a player child per game, `release` when done.

    A broken session turns into infrastructure facts (the game is void, never the player's fault) and the worker
    is rebuilt once released.
    """

    def __init__(self, lane: _Lane, loaded: Facts) -> None:
        self.lane, self.loaded = lane, loaded
        self.released = threading.Event()
        self.broken = False

    def start(self, setup: dict[str, Any], game: GameLimits) -> Facts:
        """The player built for a new game; a program that did not load gets its load facts (a syntax error, …)."""
        if not self.loaded.loaded:
            return self.loaded
        return self._call("start", lambda session: session.start(setup, game))

    def act(self, observation: Any, game: GameLimits) -> Facts:
        return self._call("move", lambda session: session.act(observation, game))

    def end(self) -> Facts:
        facts = self._call("end", lambda session: session.end())
        if facts.survivors or not facts.clean:
            self.broken = True  # something of the program outlived the game: rebuild before the next
        return facts

    def release(self) -> None:
        self.released.set()

    def _call(self, phase: str, call: Any) -> Facts:
        if self.broken or self.lane.session is None:
            return Facts.infrastructure(phase, "the sandbox session of this held worker broke earlier")
        try:
            return call(self.lane.session)
        except (SessionBroken, SandboxError, OSError) as exc:
            self.broken = True
            return Facts.infrastructure(phase, f"{type(exc).__name__}: {exc}")


@dataclass
class _Reservation:
    program: Program
    granted: threading.Event = field(default_factory=threading.Event)
    held: PooledHeldWorker | None = None  # None once granted: the pool closed first


class WorkerPool:
    """Runs submitted batches on `workers`; `enforced` is what the supervisor applies to each child."""

    def __init__(self, workers: Sequence[Worker], limits: Limits, enforced: dict[str, Any]) -> None:
        self.workers, self.enforced = list(workers), enforced
        self._queue: deque[_Queued] = deque()
        self._reservations: deque[_Reservation] = deque()
        self._ready = threading.Condition()
        self._closing = threading.Event()
        lanes = [_Lane(worker, limits, enforced, self._closing) for worker in self.workers]
        self._threads = [threading.Thread(target=self._serve, args=(lane,), name=f"codebench-sandbox-{index}", daemon=True)
                         for index, lane in enumerate(lanes)]
        for thread in self._threads:
            thread.start()
        for lane in lanes:  # every supervisor started (or its failure logged) before the first program comes
            lane.opened.wait()

    def submit(self, batch: Batch, deliver: Deliver) -> None:
        """Queue a batch; returns at once.

        Raises:
            SandboxError: the pool is closed.
        """
        if not batch.tasks:
            return
        with self._ready:
            if self._closing.is_set():
                raise SandboxError("the sandbox is closed: no more programs can run in it")
            self._queue.append(_Queued(batch, deliver, deque(batch.tasks)))
            self._ready.notify_all()

    def reserve(self, program: Program) -> PooledHeldWorker:
        """A worker with `program` loaded, held for one game's player until `release` (waits for a free worker).

        Raises:
            SandboxError: the pool is closed (or closes while waiting).
        """
        reservation = _Reservation(program)
        with self._ready:
            if self._closing.is_set():
                raise SandboxError("the sandbox is closed: no more programs can run in it")
            self._reservations.append(reservation)
            self._ready.notify_all()
        reservation.granted.wait()
        if reservation.held is None:
            raise SandboxError("the sandbox closed before a worker was free for this player")
        return reservation.held

    def _take(self, loaded: Program | None) -> tuple[_Queued, Task] | _Reservation | None:
        """The next reservation, else the next task for a worker that has `loaded` (None when closing)."""
        with self._ready:
            while not self._queue and not self._reservations and not self._closing.is_set():
                self._ready.wait()
            if self._closing.is_set():
                return None
            if self._reservations:
                return next((r for r in self._reservations if r.program == loaded), self._reservations[0])
            queued = next((q for q in self._queue if q.batch.program == loaded), self._queue[0])
            task = queued.tasks.popleft()
            if not queued.tasks:
                self._queue.remove(queued)
            return queued, task

    def _serve(self, lane: _Lane) -> None:
        try:
            lane.open()
        finally:  # whatever happened, the pool's constructor waits no longer
            lane.opened.set()
        while (taken := self._take(lane.program)) is not None:
            if isinstance(taken, _Reservation):
                with self._ready:
                    self._reservations.remove(taken)
                lane.hold(taken, self._closing)
                continue
            queued, task = taken
            try:
                facts = lane.run(queued.batch.program, task)
            except Exception as exc:  # a bug, not the program's doing: recorded as sandbox_error, the worker goes on
                log.exception("sandbox worker failed on a task")
                facts = Facts.infrastructure("run", f"internal error: {type(exc).__name__}: {exc}")
                lane.discard()
            try:
                queued.deliver(Result(queued.batch, task, facts))
            except Exception:  # the receiver's fault; the next tasks must still be run and delivered
                log.exception("delivering a sandbox result failed")
        lane.end()

    def close(self) -> None:
        """Abandon the tasks not started, stop the workers, and wait briefly for the ones in flight."""
        with self._ready:
            self._closing.set()
            self._queue.clear()
            for reservation in self._reservations:
                reservation.granted.set()  # its held worker stays None: reserve() raises
            self._reservations.clear()
            self._ready.notify_all()
        for worker in self.workers:  # an instance in flight ends now: its session breaks
            worker.close()
        for thread in self._threads:
            thread.join(CLOSE_GRACE_S)


class PooledBackend(SandboxBackend):
    """A backend whose workers run on this machine, scheduled by the WorkerPool it holds (`self.pool`)."""

    pool: WorkerPool

    @property
    def capacity(self) -> int:
        return len(self.pool.workers)

    def submit(self, batch: Batch, deliver: Deliver) -> None:
        self.pool.submit(batch, deliver)

    def reserve(self, program: Program) -> PooledHeldWorker:
        return self.pool.reserve(program)

    def close(self) -> None:
        self.pool.close()


class _Lane:
    """One worker's thread state: its open session and the program loaded in it."""

    def __init__(self, worker: Worker, limits: Limits, enforced: dict[str, Any], closing: threading.Event) -> None:
        self.worker, self.limits, self.enforced, self.closing = worker, limits, enforced, closing
        self.session: WorkerSession | None = None
        self.program: Program | None = None
        self.loaded: Facts | None = None
        self.opened = threading.Event()  # its supervisor started, or failed to (`open`)

    def run(self, program: Program, task: Task) -> Facts:
        return self._attempt(program, lambda: self.session.run(task.instance, self.limits) if self.loaded.loaded else self.loaded)

    def hold(self, reservation: _Reservation, closing: threading.Event) -> None:
        """Grant `reservation` the worker (the program loaded, or why it did not load), and wait until the
        worker is released; a held worker whose session broke gets the worker rebuilt."""
        held = PooledHeldWorker(self, self._attempt(reservation.program, lambda: self.loaded))
        reservation.held = held
        reservation.granted.set()
        while not held.released.wait(0.5):
            if closing.is_set():
                return
        if held.broken:
            self.discard()

    def open(self) -> None:
        """Start the worker's supervisor ahead of its first program: its start-up (a process and its warm imports, some
        0.2 s) is the backend's, not a program's. A failure is retried when the first task comes."""
        try:
            self.session = self.worker.open_session()
        except (SessionBroken, SandboxError, OSError) as exc:
            log.warning("starting a sandbox worker's supervisor failed (%s); it is retried on the first task", exc)

    def _attempt(self, program: Program, call: Any) -> Facts:
        """`call()` with `program` loaded in the session, retried once on a recycled worker when the session breaks. A
        session serves one program after another: each load first proves the last one's slate clean, or breaks the
        session (the worker is then rebuilt)."""
        if program != self.program:
            self.program, self.loaded = program, None
        facts = Facts.infrastructure("run", "not attempted")
        for _ in range(ATTEMPTS):
            try:
                if self.session is None:
                    self.session = self.worker.open_session()
                if self.loaded is None:
                    self.loaded = self.session.load(program.source, program.entry, self.limits, self.enforced)
                facts = call()
                break
            except (SessionBroken, SandboxError, OSError) as exc:
                facts = Facts.infrastructure("run", f"{type(exc).__name__}: {exc}")
                self.discard()
        if facts.survivors or not facts.clean:  # something of the program outlived the reset: start afresh
            self.discard()
        return facts

    def discard(self) -> None:
        """Drop the session and rebuild the worker (unless closing); a failed rebuild is retried on next use."""
        session, self.session, self.loaded = self.session, None, None
        if session is not None:
            try:
                session.close()
            except (SessionBroken, OSError):
                pass  # already broken: that is why it is discarded
        if not self.closing.is_set():
            try:
                self.worker.recycle()
            except SandboxError as exc:
                log.warning("recycling a sandbox worker failed (%s); it is retried on the next task", exc)

    def end(self) -> None:
        """Close the session cleanly (the pool is closing): the supervisor kills and wipes what the program left; a
        slate it cannot prove clean means the worker is rebuilt."""
        session, self.session, self.loaded = self.session, None, None
        if session is not None and not session.close() and not self.closing.is_set():
            try:
                self.worker.recycle()
            except SandboxError as exc:
                log.warning("recycling a sandbox worker failed (%s); it is retried on the next task", exc)
