"""Running untrusted programs: one `SandboxBackend` protocol; the docker, local (bubblewrap) and unsafe-local
backends; and a fake for tests.

A backend takes batches (a program and the instances to run it on) from any number of callers, runs
them on its workers, and streams each task's facts back as it finishes. Whatever the program does
comes back as facts; exceptions are only for a failing backend. `get_backend(name)` imports the
backend's heavy dependencies (docker SDK, psutil) only when asked.
"""

from __future__ import annotations

import queue
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, ClassVar, Protocol

from ..errors import ConfigError, SandboxError
from ..keys import program_key
from ..types import Batch, Facts, GameLimits, Limits, Program, Result, Task

BACKENDS = ("docker", "local", "unsafe-local")  # unsafe-local: trusted code only
EXECUTORS = ("local", "ray")  # where a backend's workers run: this machine, or every node of a Ray cluster
MAX_WORKERS = 1024  # per machine: past this a typo, not a pool

Deliver = Callable[[Result], None]


class HeldWorker(Protocol):
    """A worker held for one sandboxed player, its program loaded: `start` a player per game, `act` per move, `end`
    each game; `release` gives the worker back. Every call returns facts (infrastructure facts when the sandbox broke)."""

    loaded: Facts

    def start(self, setup: dict[str, Any], game: GameLimits) -> Facts: ...
    def act(self, observation: Any, game: GameLimits) -> Facts: ...
    def end(self) -> Facts: ...
    def release(self) -> None: ...


class SandboxBackend(ABC):
    """Runs batches on a fixed set of workers; use it as a context manager so its workers are removed."""

    name: ClassVar[str]

    def __init__(self, limits: Limits) -> None:
        self.limits = limits

    @property
    @abstractmethod
    def capacity(self) -> int:
        """How many executions run at once."""

    @abstractmethod
    def submit(self, batch: Batch, deliver: Deliver) -> None:
        """Queue `batch` and return at once; `deliver` gets one Result per task as it finishes.

        `deliver` is called from a backend thread (or from this one, before `submit` returns, for a
        batch the backend settles without running it), exactly once per task, unless the backend is
        closed first: close() abandons the tasks not yet started.

        Raises:
            SandboxError: the backend is closed.
        """

    @abstractmethod
    def close(self) -> None:
        """Stop every worker and release what the backend holds."""

    def reserve(self, program: Program) -> HeldWorker:
        """A worker held for a game's player until released (waits until one is free). A caller holding seats while
        it reserves more must keep the total within `capacity`, or it waits for itself.

        Raises:
            SandboxError: the backend is closed, or cannot hold a player (the message says which executor can).
        """
        raise SandboxError(f"the {self.name} sandbox cannot hold a game's player; run games with --executor local")

    @property
    def notes(self) -> tuple[str, ...]:
        """Lines worth telling the user once it started (where its workers run, what was skipped)."""
        return ()

    def stream(self, batches: Iterable[Batch]) -> Iterator[Result]:
        """Submit `batches` and yield their results in this thread, in the order they finish."""
        finished: queue.SimpleQueue[Result] = queue.SimpleQueue()
        expected = 0
        for batch in batches:
            self.submit(batch, finished.put)
            expected += len(batch.tasks)
        for _ in range(expected):
            yield finished.get()

    def run(self, source: str, instances: Sequence[dict[str, Any]], entry: str = "solve") -> list[Facts]:
        """One program on `instances`: the facts of each, in input order."""
        program = Program(program_key(source), source, entry)
        tasks = tuple(Task(str(index), instance) for index, instance in enumerate(instances))
        facts: list[Facts | None] = [None] * len(tasks)
        for result in self.stream([Batch(program, tasks)]):
            facts[int(result.task.key)] = result.facts
        return [f if f is not None else Facts.infrastructure("run", "never delivered") for f in facts]

    def __enter__(self) -> SandboxBackend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _flag(option: str) -> str:
    return "--" + option.replace("_", "-")


def check_sandbox(backend: str, executor: str = "local", workers: int | None = None, ray_address: str | None = None,
                  name: Callable[[str], str] = _flag) -> None:
    """The one check of the sandbox's options, wherever they come from (a run's spec, `check`, `puzzles play`, a Ray
    node); `name` names an option in the message (its flag by default; a run names a config key where the config set it).

    Raises:
        ConfigError: an unknown backend or executor, a worker count outside 1..MAX_WORKERS, an address without ray.
    """
    if backend not in BACKENDS:
        raise ConfigError(f"{name('backend')} {backend!r}: choose one of {', '.join(BACKENDS)}")
    if executor not in EXECUTORS:
        raise ConfigError(f"{name('executor')} {executor!r}: choose one of {', '.join(EXECUTORS)}")
    if workers is not None and not 1 <= workers <= MAX_WORKERS:  # each worker is a warm container or process
        raise ConfigError(f"{name('workers')} {workers}: give a whole number from 1 to {MAX_WORKERS}")
    if ray_address is not None and executor != "ray":
        raise ConfigError(f"{name('ray_address')} needs {_flag('executor')} ray")


def get_backend(name: str, limits: Limits | None = None, workers: int | None = None) -> SandboxBackend:
    """Start a backend by name (`with get_backend("docker") as sandbox:`) on this machine; `workers` defaults to one per
    core.

    Raises:
        SandboxUnavailableError: the backend cannot run here (the message says how to fix it).
        ConfigError: see `check_sandbox`.
    """
    check_sandbox(name, workers=workers)
    if name == "docker":
        from ._docker import DockerBackend

        return DockerBackend(limits or Limits(), workers)
    if name == "local":
        from ._local import LocalBackend

        return LocalBackend(limits or Limits(), workers)
    if name == "unsafe-local":
        from ._unsafe_local import UnsafeLocalBackend

        return UnsafeLocalBackend(limits or Limits(), workers)
    raise AssertionError(f"{name} is in BACKENDS but has no branch here")


def open_sandbox(backend: str, limits: Limits, workers: int | None = None, *, executor: str = "local",
                 ray_address: str | None = None) -> SandboxBackend:
    """The backend `backend` on this machine, or (`executor` ray) on every node of a Ray cluster that offers sandbox
    slots: `ray_address` None starts a Ray instance here with `workers` slots; else the cluster's nodes decide.

    Raises:
        SandboxUnavailableError: the backend cannot run here, Ray is not installed, or no node can run it.
        ConfigError: see `check_sandbox`.
    """
    check_sandbox(backend, executor, workers, ray_address)
    if executor == "local":
        return get_backend(backend, limits, workers)
    from ._ray import RayBackend

    return RayBackend(limits, backend=backend, address=ray_address, workers=workers)


__all__ = ["BACKENDS", "EXECUTORS", "MAX_WORKERS", "Deliver", "HeldWorker", "SandboxBackend", "check_sandbox", "get_backend",
           "open_sandbox"]
