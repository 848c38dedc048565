"""A run as one call: `evaluate(spec)` plans the spec, stores the plan in `spec.out`, asks the models, judges what they
answer (in the sandbox for programs), stores every result, and reads the run's report back, with what it did not count
and why. `codebench run` and `codebench demo` are this call with progress drawn; a resumed call reuses what is stored.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from .run.pipeline import Tracker
from .run.results import DATABASE
from .run.spec import RunSpec

if TYPE_CHECKING:
    from .model.client import ModelClient
    from .modes import ChatModel
    from .reports import RunReport
    from .run.cache import ReplyCache
    from .run.plan import Plan
    from .run.store import Store
    from .sandbox import SandboxBackend

log = logging.getLogger("codebench")
TICK_S = 0.25  # how often a watcher is told the counters moved


class Watcher(Protocol):
    """What a caller sees of a run as it goes (`codebench run` draws progress bars and prints the notes)."""

    def note(self, line: str) -> None:
        """A line about the run: an endpoint's (once each), or the sandbox's once it stands."""

    def start(self, progress: Tracker) -> None:
        """The sandbox stands and the work begins; `progress` counts it from now on."""

    def update(self) -> None:
        """The counters may have moved (every TICK_S seconds, and once at the end)."""

    def stop(self) -> None:
        """The work ended, finished or not (called once after `start`)."""


@dataclass(frozen=True)
class RunResult:
    """What a run did and what its results say: the report of its directory (every result stored there, earlier calls'
    included), the counters of this call, and the verdicts a script must not miss (a budget that held requests back,
    planned results left uncounted)."""

    out: Path  # the run directory: its run.sqlite holds every result
    report: RunReport  # as `codebench report OUT` reads it
    progress: Tracker  # this call's counters: asked, reused from the store, held by a budget, void games
    held: str | None  # the budget that stopped asking and what it held back (None: nothing held); a resume asks the rest
    partial: str | None  # planned results the rates leave out, and why (None: every planned result is counted)


def evaluate(spec: RunSpec, *, clients: Mapping[str, ChatModel] | None = None, sandbox: SandboxBackend | None = None,
             watcher: Watcher | None = None) -> RunResult:
    """Run `spec` into `spec.out` (a run directory there is resumed) and report it.

    `clients`: a chat model per model label (default: an OpenAI-compatible client per `spec`'s endpoint, closed at the
    end); `sandbox`: a backend the caller opened and closes (default: `spec`'s, opened here when a mode runs programs);
    `watcher`: told the run's progress (default: notes are logged on the `codebench` logger).

    Raises:
        ConfigError, ModelConfigError: options that cannot work, named as given.
        SandboxUnavailableError: the sandbox cannot run here (the message says how to fix it).
        StoreError: `spec.out` holds a run database codebench cannot resume.
    """
    return asyncio.run(_evaluate(spec, clients, sandbox, watcher or _Logged()))


def plan_of(spec: RunSpec, clients: Mapping[str, ChatModel] | None = None) -> Plan:
    """The work `spec` asks for: every (model, mode, question, sample) and game, with its content key."""
    from .run.plan import make_plan

    base_urls = {label: client.base_url for label, client in clients.items()} if clients is not None else \
        {label: endpoint.base_url for label, endpoint in spec.endpoints().items()}
    return make_plan(spec, base_urls)


async def _evaluate(spec: RunSpec, clients: Mapping[str, ChatModel] | None, sandbox: SandboxBackend | None,
                    watcher: Watcher) -> RunResult:
    from .run.cache import ReplyCache
    from .run.pipeline import record_plan
    from .run.store import Store

    owned = _clients(spec, watcher) if clients is None else {}
    plan = plan_of(spec, clients or owned)
    progress = Tracker()
    cache = ReplyCache(spec.cache) if spec.cache is not None else None  # before anything is written: it may be refused
    try:
        store = Store(spec.out / DATABASE)
        try:
            record_plan(store, spec, plan)
            await _execute(spec, plan, store, dict(clients or owned), sandbox, progress, watcher, cache)
            return _result(spec, store, progress)
        finally:
            store.close()
    finally:
        if cache is not None:
            cache.close()
        for client in owned.values():
            await client.aclose()


def _clients(spec: RunSpec, watcher: Watcher) -> dict[str, ModelClient]:
    from .model.client import ModelClient

    said: set[str] = set()

    def note(line: str) -> None:  # once per endpoint, however many of the run's models it serves
        if line not in said:
            said.add(line)
            watcher.note(line)

    models = {model.label: model for model in spec.model_specs}
    return {label: ModelClient(endpoint, patience=spec.patience(models[label]), max_connections=spec.max_connections,
                               on_note=note, label=label)
            for label, endpoint in spec.endpoints().items()}


async def _execute(spec: RunSpec, plan: Plan, store: Store, clients: dict[str, ChatModel], sandbox: SandboxBackend | None,
                   progress: Tracker, watcher: Watcher, cache: ReplyCache | None) -> None:
    from .modes import get_mode
    from .run.pipeline import execute_plan
    from .sandbox import open_sandbox

    opened: AbstractContextManager[SandboxBackend | None] = nullcontext(sandbox)
    if sandbox is None and any(get_mode(mode).uses_sandbox for mode in spec.modes):
        opened = open_sandbox(spec.backend, spec.limits, spec.workers, executor=spec.executor, ray_address=spec.ray_address)
    with opened as backend:
        for line in backend.notes if backend is not None and sandbox is None else ():
            watcher.note(line)
        watcher.start(progress)
        try:
            task = asyncio.ensure_future(execute_plan(spec, plan, store, clients, backend, progress, cache, watcher.note))
            while not task.done():
                watcher.update()
                await asyncio.wait({task}, timeout=TICK_S)
            watcher.update()
            task.result()
        finally:
            watcher.stop()


def _result(spec: RunSpec, store: Store, progress: Tracker) -> RunResult:
    from .analysis.report import RERUN, not_counted
    from .reports import stores_report

    found = stores_report([store])
    held = None
    if progress.samples_held or progress.games_held:
        parts = [f"{progress.samples_held} of {progress.samples_total} requests were not made" if progress.samples_held else "",
                 f"{progress.games_held} of {progress.games_total} games were not played" if progress.games_held else ""]
        held = (f"{progress.budget_reached}; {' and '.join(filter(None, parts))}. What was asked is stored and judged: "
                "raise the budget and run the same command again to resume")
    partial = (f"{not_counted(found.report)}. The rates leave these out (each cell shows the bound they put on its legal "
               f"rate): {RERUN}") if found.report.partial else None
    return RunResult(spec.out, found, progress, held, partial)


class _Logged:
    """The watcher of a call given none: its notes on the `codebench` logger, no progress drawn."""

    def note(self, line: str) -> None:
        log.warning("%s", line)

    def start(self, progress: Tracker) -> None:
        pass

    def update(self) -> None:
        pass

    def stop(self) -> None:
        pass
