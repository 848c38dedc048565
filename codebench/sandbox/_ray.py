"""The Ray executor: the same `SandboxBackend` protocol, its workers spread over the nodes of a Ray cluster.

One long-lived actor per node that offers the custom resource `sandbox_slots` holds a warm local backend (docker
by default) with one worker per slot, the way verl keeps reward workers warm, instead of a sandbox per task. The
driver keeps a queue of batch shares; each actor has a bounded number of lanes (its workers + `spare`), each lane a
driver thread that hands the actor one share at a time and streams the results back as the actor's workers finish
them (a streaming-generator actor method, its results in groups: what finished within GROUP_S of the group's
first). So backpressure is the lanes: no actor holds more shares than it has lanes, enough to keep each of its
workers busy with one more share ready behind.

The driver stays the single writer of the store and the only caller of the model endpoints: results reach
`deliver` in driver threads, exactly once per task. When an actor dies (its process killed, its node lost) the
tasks of its batches not yet delivered go back to the front of the queue, and Ray restarts the actor (up to
`ACTOR_RESTARTS` times; a node that is gone is not restarted on). A node whose actor cannot start its backend
(no Docker, no image) is reported by name and skipped. Imports `ray` only here (the `ray` extra).

Code-mode games: the engine stays with the driver and a program seat is reserved on one actor's warm backend
(`reserve`: the actor holds a worker of its pool for the game, `_RaySeat` forwards start/act/end as actor calls). The
cost is one Ray call per move: 0.7–1.5 ms of wall time and 0.6–0.9 ms of the driver's CPU on a shared two-core machine
(`benchmarks/scale.py` prints both), several times a sandboxed move's own cost, so one driver core carries about a
thousand moves a second over all nodes. Moving the engine to the actor would cost a call per game instead, but every
seat would have to go with it: a chat seat (a model playing in instruction mode) cannot leave the driver, and the two
program seats of one game could no longer sit on two nodes without calling each other per move. So the driver keeps the
engine and every kind of game runs one way; the engine on the actor for a program against built-in seats is the step
to take where the driver's ceiling binds. Seats count against each actor's workers: the driver picks the live actor
with the most free seats (so the two program seats of a game spread over nodes) and the caller keeps its total within
`capacity`, as the pooled backends ask. An actor that dies mid-game makes its seats' calls return infrastructure facts:
the game is stored void and played again when the run is resumed (`games.table`); a game that finished is stored and
never played again (one whose actor died as it was cleared after its last move stands, its printed excerpts lost). A
seat whose actor dies before granting it is asked of another actor.
"""

from __future__ import annotations

import logging
import math
import os
import queue
import socket
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from ..errors import SandboxError, SandboxUnavailableError
from ..types import Batch, Facts, GameLimits, Limits, Program, Result, Task
from . import Deliver, HeldWorker, SandboxBackend

SLOTS = "sandbox_slots"  # the custom resource a node offers: how many sandbox workers it runs
SPARE_LANES = 1  # shares an actor holds beyond one per worker: the next ready when a worker frees
SHARE = 64  # tasks of a batch handed to one actor at a time
GROUP_S = 0.005  # an actor sends the results that finish this soon after another with it: one Ray object, not several
ACTOR_RESTARTS = 3  # per actor, by Ray, after its process dies
SHARE_ATTEMPTS = 3  # actors a share is handed to before its tasks end as infrastructure failures
READY_TIMEOUT_S = 300.0  # an actor builds its warm workers (containers) before it says it is ready
RESTART_POLL_S = 0.1  # how often a restarting actor is asked whether it is back

log = logging.getLogger("codebench.sandbox")

BackendFactory = Callable[[Limits, int], SandboxBackend]  # (limits, workers) -> a backend on the actor's node


@dataclass(frozen=True)
class NodeReport:
    """What became of one node: the workers its actor runs, or why it was skipped."""

    node: str
    workers: int
    problem: str | None = None


class _SandboxActor:
    """Lives on one node: a warm backend, running the batches the driver's lanes hand it."""

    def __init__(self, factory: BackendFactory, limits: Limits, workers: int) -> None:
        self.problem: str | None = None
        self.seats: dict[str, HeldWorker] = {}
        try:
            self.sandbox: SandboxBackend | None = factory(limits, workers)
        except SandboxError as exc:  # reported by name on the driver, then the node is skipped
            self.sandbox, self.problem = None, str(exc)

    def ready(self) -> tuple[int, int, str | None]:
        """(workers, pid, problem): what the driver needs to use this actor, or why it cannot."""
        return (self.sandbox.capacity if self.sandbox else 0), os.getpid(), self.problem

    def run(self, batch: Batch) -> Iterator[list[tuple[str, Facts]]]:
        """The batch's results as its tasks finish, (task key, facts), a group at a time: what finished within GROUP_S of
        the group's first. A Ray object costs the driver about as much CPU as a sandboxed execution, so results travel
        in groups, not one object each; the driver holds the tasks whose group it has not received."""
        assert self.sandbox is not None
        finished: queue.SimpleQueue[Result] = queue.SimpleQueue()
        self.sandbox.submit(batch, finished.put)
        left = len(batch.tasks)
        while left:
            group = [finished.get()]
            closes = time.monotonic() + GROUP_S
            while len(group) < left and (wait := closes - time.monotonic()) > 0:
                try:
                    group.append(finished.get(timeout=wait))
                except queue.Empty:
                    break
            left -= len(group)
            yield [(result.task.key, result.facts) for result in group]

    def reserve(self, program: Program) -> tuple[str, Facts]:
        """A worker held for a game's player (waits for one): (the seat's id, the program's load facts)."""
        assert self.sandbox is not None
        seat = uuid.uuid4().hex  # unique over restarts: a restarted actor knows none of its predecessor's seats
        self.seats[seat] = self.sandbox.reserve(program)
        return seat, self.seats[seat].loaded

    def play(self, seat: str, phase: str, call: str, *args: Any) -> Facts:
        """One call (start, act or end) of the seat's held worker."""
        held = self.seats.get(seat)
        if held is None:
            return Facts.infrastructure(phase, "the Ray sandbox actor holding this player restarted")
        return getattr(held, call)(*args)

    def release(self, seat: str) -> None:
        held = self.seats.pop(seat, None)
        if held is not None:
            held.release()

    def close(self) -> None:
        if self.sandbox is not None:
            self.sandbox.close()


@dataclass
class _Queued:
    """A share of a submitted batch: its tasks not yet delivered go to one actor at a time."""

    batch: Batch  # as submitted: what each Result names
    tasks: tuple[Task, ...]
    deliver: Deliver
    delivered: set[str] = field(default_factory=set)  # never twice, even when the share is retried elsewhere
    attempts: int = 0  # actors it was handed to


class _Actor:
    """The driver's handle on one node's actor."""

    def __init__(self, handle: Any, node: str, workers: int, pid: int) -> None:
        self.handle, self.node, self.workers, self.pid = handle, node, workers, pid
        self.dead = False
        self.seats = 0  # game players it holds for the driver


class _RaySeat:
    """A game's player held on one actor's warm backend: each call one Ray actor call; once the actor fails, every
    call gives infrastructure facts (the game is void)."""

    def __init__(self, backend: RayBackend, actor: _Actor | None, seat: str, loaded: Facts) -> None:
        self.backend, self.actor, self.seat, self.loaded = backend, actor, seat, loaded
        self.failure: str | None = None if actor is not None else loaded.infra_error

    def start(self, setup: dict[str, Any], game: GameLimits) -> Facts:
        return self._call("start", "start", setup, game)

    def act(self, observation: Any, game: GameLimits) -> Facts:
        return self._call("move", "act", observation, game)

    def end(self) -> Facts:
        return self._call("end", "end")

    def release(self) -> None:
        actor, self.actor = self.actor, None
        if actor is not None:
            if self.failure is None:
                try:
                    self.backend._ray.get(actor.handle.release.remote(self.seat))
                except self.backend._ray.exceptions.RayError:
                    pass  # the actor died: its worker went with it
            self.backend._unseat(actor)

    def _call(self, phase: str, call: str, *args: Any) -> Facts:
        if self.failure is not None or self.actor is None:
            return Facts.infrastructure(phase, self.failure or "this player was released")
        try:
            return self.backend._ray.get(self.actor.handle.play.remote(self.seat, phase, call, *args))
        except self.backend._ray.exceptions.RayError as exc:
            self.failure = f"the Ray sandbox actor on {self.actor.node} failed ({type(exc).__name__})"
            self.backend._check(self.actor, exc)
            return Facts.infrastructure(phase, self.failure)


class RayBackend(SandboxBackend):
    """Batches run by sandbox actors on every node offering `sandbox_slots`.

    `address` None starts a Ray instance on this machine (offering `workers` slots, default one per core) and stops
    it on close; "auto" or "ray://host:port" joins a running cluster. `factory` makes each node's backend
    (`get_backend(backend, limits, workers)` by default).
    """

    name = "ray"

    def __init__(self, limits: Limits, *, backend: str = "docker", address: str | None = None, workers: int | None = None,
                 factory: BackendFactory | None = None, spare: int = SPARE_LANES) -> None:
        super().__init__(limits)
        self._ray = _import_ray()
        self._started = _connect(self._ray, address, workers)
        self._queue: deque[_Queued] = deque()
        self._ready = threading.Condition()
        self._closing = False
        self.nodes: list[NodeReport] = []
        self.retried = 0  # shares sent again after their actor died
        self._actors = self._start_actors(factory or _named_backend(backend), spare)
        self._threads = [threading.Thread(target=self._serve, args=(actor,), name=f"codebench-ray-{actor.node}-{lane}",
                                          daemon=True) for actor in self._actors for lane in range(actor.workers + spare)]
        for thread in self._threads:
            thread.start()

    def _start_actors(self, factory: BackendFactory, spare: int) -> list[_Actor]:
        """One actor per alive node offering sandbox slots; nodes whose actor cannot start are reported and skipped."""
        ray = self._ray
        try:
            nodes = sandbox_nodes(ray)
        except SandboxUnavailableError:
            self._shutdown()
            raise
        remote = ray.remote(_SandboxActor)
        pending = []
        for node in nodes:
            slots = int(node["Resources"][SLOTS])
            # calls at once: a lane's share and a held seat's call per worker, the spare lanes, `ready` and `close`
            handle = remote.options(num_cpus=0, resources={SLOTS: slots}, max_concurrency=2 * slots + spare + 2,
                                    max_restarts=ACTOR_RESTARTS, scheduling_strategy=_on(node)).remote(factory, self.limits, slots)
            pending.append((handle, _node_name(node)))
        actors = []
        for handle, name in pending:
            try:
                workers, pid, problem = ray.get(handle.ready.remote(), timeout=READY_TIMEOUT_S)
            except Exception as exc:  # the actor could not even start there: that node is skipped
                workers, pid, problem = 0, 0, f"{type(exc).__name__}: {exc}"
            if problem is not None:
                log.warning("Ray node %s skipped: %s", name, problem)
                self.nodes.append(NodeReport(name, 0, problem))
                ray.kill(handle)
                continue
            self.nodes.append(NodeReport(name, workers))
            actors.append(_Actor(handle, name, workers, pid))
        if not actors:
            problems = "; ".join(f"{n.node}: {n.problem}" for n in self.nodes)
            self._shutdown()
            raise SandboxUnavailableError(f"no Ray node can run the sandbox ({problems})")
        return actors

    @property
    def notes(self) -> tuple[str, ...]:
        return tuple(f"ray node {n.node}: {n.workers} sandbox workers" if n.problem is None
                     else f"ray node {n.node} skipped: {n.problem}" for n in self.nodes)

    @property
    def capacity(self) -> int:
        return sum(actor.workers for actor in self._actors if not actor.dead)

    def submit(self, batch: Batch, deliver: Deliver) -> None:
        """Queue the batch in shares, so one big batch (a `check`) spreads over every actor; at most SHARE tasks each,
        so an actor's loss costs little to redo."""
        live = sum(not actor.dead for actor in self._actors) or 1
        size = max(1, min(SHARE, math.ceil(len(batch.tasks) / live)))
        with self._ready:
            if self._closing:
                raise SandboxError("the sandbox is closed: no more programs can run in it")
            self._queue.extend(_Queued(batch, batch.tasks[start:start + size], deliver)
                               for start in range(0, len(batch.tasks), size))
            self._ready.notify_all()

    def reserve(self, program: Program) -> HeldWorker:
        """A seat on the live actor with the most free seats (waits for one), its worker held there for a game's player.
        An actor that fails before granting it is checked and the seat asked of another; when no actor is left, the seat
        gives infrastructure facts (its game is void, played again on a resume).

        Raises:
            SandboxError: the sandbox is closed.
        """
        failure = "no Ray sandbox actor is left"
        for _ in range(SHARE_ATTEMPTS):
            actor = self._seat()
            if actor is None:
                break
            try:
                seat, loaded = self._ray.get(actor.handle.reserve.remote(program))
                return _RaySeat(self, actor, seat, loaded)
            except self._ray.exceptions.RayError as exc:
                self._unseat(actor)
                self._check(actor, exc)
                failure = f"no Ray sandbox actor could hold this player ({type(exc).__name__})"
        return _RaySeat(self, None, "", Facts.infrastructure("load", failure))

    def _seat(self) -> _Actor | None:
        """Count a seat against the live actor with the most free ones, once one is free (None: no live actor)."""
        with self._ready:
            while True:
                if self._closing:
                    raise SandboxError("the sandbox is closed: no more programs can run in it")
                live = [actor for actor in self._actors if not actor.dead]
                if not live:
                    return None
                actor = max(live, key=lambda a: a.workers - a.seats)
                if actor.seats < actor.workers:
                    actor.seats += 1
                    return actor
                self._ready.wait()

    def _unseat(self, actor: _Actor) -> None:
        with self._ready:
            actor.seats -= 1
            self._ready.notify_all()

    def _take(self) -> _Queued | None:
        with self._ready:
            while not self._queue and not self._closing:
                self._ready.wait()
            return None if self._closing else self._queue.popleft()

    def _serve(self, actor: _Actor) -> None:
        """One lane: hand the actor a batch, deliver its results as they stream back, repeat."""
        while not actor.dead and (queued := self._take()) is not None:
            left = tuple(task for task in queued.tasks if task.key not in queued.delivered)
            tasks = {task.key: task for task in left}
            queued.attempts += 1
            try:
                for ref in actor.handle.run.options(num_returns="streaming").remote(Batch(queued.batch.program, left)):
                    for key, facts in self._ray.get(ref):
                        self._deliver(queued, tasks[key], facts)
            except self._ray.exceptions.RayError as exc:  # the actor died (restarted by Ray) or its node is gone
                self._requeue(queued, actor, exc)

    def _deliver(self, queued: _Queued, task: Task, facts: Facts) -> None:
        if task.key in queued.delivered:
            return
        queued.delivered.add(task.key)
        try:
            queued.deliver(Result(queued.batch, task, facts))
        except Exception:  # the receiver's fault; the next tasks must still be run and delivered
            log.exception("delivering a sandbox result failed")

    def _requeue(self, queued: _Queued, actor: _Actor, exc: Exception) -> None:
        """The tasks not yet delivered go first in line, for whichever actor is free; an actor Ray will not restart, or
        whose backend no longer starts, stops taking work. A share that failed on SHARE_ATTEMPTS actors, or that no
        actor is left for, ends as infrastructure failures (not counted; asked again on a re-run)."""
        self._check(actor, exc)
        with self._ready:
            if self._closing:
                return
            if queued.attempts < SHARE_ATTEMPTS and any(not a.dead for a in self._actors):
                self.retried += 1
                self._queue.appendleft(queued)
                self._ready.notify_all()
                return
        for task in queued.tasks:
            if task.key not in queued.delivered:
                self._deliver(queued, task, Facts.infrastructure("run", f"no Ray sandbox actor could run it ({exc})"))

    def _check(self, actor: _Actor, exc: Exception) -> None:
        """After a call failed: wait for Ray to restart the actor (its backend built afresh), or mark it dead when its
        node is gone, its restarts are spent or its backend no longer starts."""
        ray = self._ray
        log.warning("Ray sandbox actor on %s failed (%s); its unfinished work is retried", actor.node, type(exc).__name__)
        deadline = time.monotonic() + READY_TIMEOUT_S
        while True:
            try:
                _, actor.pid, problem = ray.get(actor.handle.ready.remote(), timeout=READY_TIMEOUT_S)
                dead = problem is not None
                break
            except ray.exceptions.ActorUnavailableError:  # still restarting: Ray refuses calls until it is back
                dead = time.monotonic() > deadline
                if dead:
                    break
                time.sleep(RESTART_POLL_S)
            except ray.exceptions.RayError:
                dead = True
                break
        with self._ready:
            actor.dead = actor.dead or dead
            self._ready.notify_all()  # a reservation waiting for a seat may have none left to wait for

    def close(self) -> None:
        with self._ready:
            self._closing = True
            self._queue.clear()
            self._ready.notify_all()
        for actor in self._actors:
            try:
                self._ray.get(actor.handle.close.remote(), timeout=30)
            except Exception:  # a dead actor has nothing left to close
                pass
            self._ray.kill(actor.handle)
        for thread in self._threads:
            thread.join(5.0)
        self._shutdown()

    def _shutdown(self) -> None:
        if self._started:
            self._ray.shutdown()


def _import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise SandboxUnavailableError("--executor ray needs Ray: pip install 'codebench-puzzles[ray]'") from None
    return ray


def _connect(ray: Any, address: str | None, workers: int | None) -> bool:
    """Join the cluster at `address`, or start a Ray instance here offering `workers` slots (None: one per core);
    True when this process started it (and so stops it)."""
    if ray.is_initialized():
        return False  # a caller (a test, a notebook) connected already
    _check_listening(address)
    try:
        if address is None:  # "local": a fresh instance, never the cluster a stale /tmp/ray/ray_current_cluster names
            slots = workers or os.cpu_count() or 1
            ray.init(address="local", num_cpus=slots, resources={SLOTS: slots}, include_dashboard=False, log_to_driver=False,
                     configure_logging=False)
            return True
        ray.init(address=address, log_to_driver=False, configure_logging=False)
        return False
    except (ConnectionError, ValueError, RuntimeError) as exc:
        raise SandboxUnavailableError(f"cannot reach the Ray cluster at {address}: {exc}; start it (`ray start --head`) "
                                      "or fix --ray-address") from None


def _check_listening(address: str | None) -> None:
    """Fail fast where nothing listens at a HOST:PORT or ray://HOST:PORT address: Ray itself retries for minutes.

    Raises:
        SandboxUnavailableError: the port refuses connections or the host does not resolve.
    """
    if address is None or address == "auto":
        return
    where = urlsplit(address if "://" in address else f"ray://{address}")
    try:
        port = where.port or (10001 if address.startswith("ray://") else 6379)  # the client server's, or the GCS's
        with socket.create_connection((where.hostname or "", port), timeout=5):
            pass
    except (OSError, ValueError) as exc:
        raise SandboxUnavailableError(f"cannot reach the Ray cluster at {address} ({exc}): start it (`ray start --head`) "
                                      "or fix --ray-address") from None


def sandbox_nodes(ray: Any) -> list[dict[str, Any]]:
    """The alive nodes that offer sandbox slots.

    Raises:
        SandboxUnavailableError: none does (the message says how to offer them).
    """
    nodes = [n for n in ray.nodes() if n.get("Alive") and n.get("Resources", {}).get(SLOTS, 0) >= 1]
    if not nodes:
        raise SandboxUnavailableError(f"no node of the Ray cluster offers the resource {SLOTS!r}: start the nodes with "
                                      f"`ray start ... --resources='{{\"{SLOTS}\": N}}'` (N sandbox workers each)")
    return nodes


def _on(node: dict[str, Any]) -> Any:
    """Scheduling pinned to `node`."""
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    return NodeAffinitySchedulingStrategy(node["NodeID"], soft=False)


def distribute_image(address: str | None, *, base: str | None = None, force: bool = False, registry: str | None = None,
                     log: Callable[[str], None] = print) -> list[NodeReport]:
    """Give every node that offers sandbox slots the sandbox image: built there from this installation's image sources
    (shipped with the task: a node needs codebench and a Docker engine), or, with `registry`, built
    here, pushed there and pulled by each node. Returns what became of each node (`workers` 0 where it failed).

    Raises:
        SandboxUnavailableError: Ray is missing or unreachable, no node offers slots, or (registry) the build or
            push here failed.
        InputError: `registry` or `base` is not an image reference.
    """
    from ._image import build_image, image_sources, push_image

    ray = _import_ray()
    started = _connect(ray, address, None)
    try:
        nodes = sandbox_nodes(ray)
        reference = None
        if registry is not None:
            build_image(base, force=force, log=log)
            reference = push_image(registry, log=log)
        sources = image_sources()
        prepare = ray.remote(_prepare_node)
        pending = [(node, prepare.options(num_cpus=0, scheduling_strategy=_on(node)).remote(sources, base, force, reference))
                   for node in nodes]
        reports = []
        for node, ref in pending:
            try:
                problem = ray.get(ref, timeout=3600)
            except ray.exceptions.RayError as exc:
                problem = f"{type(exc).__name__}: {exc}"
            reports.append(NodeReport(_node_name(node), int(node["Resources"][SLOTS]) if problem is None else 0, problem))
        return reports
    finally:
        if started:
            ray.shutdown()


def _prepare_node(sources: dict[str, bytes], base: str | None, force: bool, reference: str | None) -> str | None:
    """On one node: pull `reference`, or build the image from `sources`; None when done, else why not."""
    import tempfile
    from pathlib import Path

    from ..errors import CodebenchError
    from ._image import build_image, pull_image

    try:
        if reference is not None:
            pull_image(reference)
            return None
        with tempfile.TemporaryDirectory(prefix="codebench-image-") as folder:
            for name, data in sources.items():
                (Path(folder) / name).parent.mkdir(parents=True, exist_ok=True)
                (Path(folder) / name).write_bytes(data)
            build_image(base, force=force, log=lambda line: None, root=Path(folder))
        return None
    except CodebenchError as exc:
        return str(exc)


def _node_name(node: dict[str, Any]) -> str:
    """The node's address and the start of its id (one host may run several nodes)."""
    return f"{node.get('NodeManagerAddress') or node.get('NodeName') or '?'} ({node['NodeID'][:8]})"


def _named_backend(name: str) -> BackendFactory:
    from . import check_sandbox

    check_sandbox(name)

    def factory(limits: Limits, workers: int) -> SandboxBackend:
        from . import get_backend

        return get_backend(name, limits, workers)

    return factory
