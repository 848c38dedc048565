"""Runs one program over many instances on a few workers: load once per worker, one child per instance.

A worker is one isolation unit (a warm container, or a local supervisor). A broken session is
retried on a recycled worker; an instance never gets lost: it ends with facts, or infrastructure facts.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from ._session import Session, SessionBroken
from ._types import Facts, Limits

ATTEMPTS = 2  # per instance: the first try, and one on a recycled worker


class SandboxError(Exception):
    """The sandbox infrastructure failed (engine, container, supervisor); never the program's fault."""


class SandboxUnavailableError(SandboxError):
    """The backend cannot run at all; the message says how to fix it."""


class Worker(Protocol):
    def open_session(self) -> Session: ...
    def recycle(self) -> None: ...
    def close(self) -> None: ...


OnResult = Callable[[int, Facts], None]


class WorkerPool:
    """Fans instances out over workers, each a thread with its own supervisor session."""

    name = "pool"

    def __init__(self, workers: Sequence[Worker], limits: Limits) -> None:
        self.workers = list(workers)
        self.limits = limits
        self.busy = threading.Lock()  # one program at a time: its sessions share each worker's solver uid

    def run(self, source: str, instances: Sequence[dict[str, Any]], entry: str = "solve",
            on_result: OnResult | None = None) -> list[Facts]:
        """Facts for every instance, in input order; `on_result` is called as each one finishes."""
        results: list[Facts | None] = [None] * len(instances)
        pending = iter(range(len(instances)))
        lock = threading.Lock()

        def next_index() -> int | None:
            with lock:
                return next(pending, None)

        def record(index: int, facts: Facts) -> None:
            results[index] = facts
            if on_result is not None:
                with lock:
                    on_result(index, facts)

        threads = [threading.Thread(target=self._serve, args=(worker, source, entry, instances, next_index, record),
                                    daemon=True) for worker in self.workers]
        with self.busy:
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
        return [facts if facts is not None else Facts.infrastructure("run", "worker thread died") for facts in results]

    def _serve(self, worker: Worker, source: str, entry: str, instances: Sequence[dict[str, Any]],
               next_index: Callable[[], int | None], record: OnResult) -> None:
        session: Session | None = None
        loaded: Facts | None = None
        while (index := next_index()) is not None:
            facts = Facts.infrastructure("run", "not attempted")
            for _ in range(ATTEMPTS):
                try:
                    if session is None or loaded is None:
                        session = worker.open_session()
                        loaded = session.load(source, entry, self.limits, self.enforced_limits())
                    facts = session.run(instances[index], self.limits) if loaded.loaded else loaded
                    break
                except (SessionBroken, SandboxError, OSError) as exc:
                    facts = Facts.infrastructure("run", f"{type(exc).__name__}: {exc}")
                    session, loaded = self._discard(worker, session)
            record(index, facts)
            if facts.survivors:  # something of the program outlived the kill: start afresh
                session, loaded = self._discard(worker, session)
        if session is not None:
            session.close()

    @staticmethod
    def _discard(worker: Worker, session: Session | None) -> tuple[None, None]:
        if session is not None:
            try:
                session.close()
            except (SessionBroken, OSError):
                pass
        worker.recycle()
        return None, None

    def enforced_limits(self) -> dict[str, Any]:
        """The limits the supervisor applies to each child; backends add what their isolation lacks."""
        return self.limits.for_supervisor()

    def close(self) -> None:
        for worker in self.workers:
            worker.close()

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
