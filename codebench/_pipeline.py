"""Runs a plan resumably: model → extract → sandbox → validate → store, and reads the rows back for reports.

The only module that joins every stage. Model calls overlap (async, bounded by the client); the
sandbox runs one program at a time over all its workers. Every result is stored as it arrives, so a
killed run loses at most the executions in flight, and a re-run skips whatever is stored.
"""

from __future__ import annotations

import asyncio
import json
import platform
import threading
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any

import puzzles
from puzzles import Record

from . import __version__
from ._extract import extract_program
from ._metrics import ExecutionRow
from ._outcome import judge
from ._plan import Plan, RunSpec, SampleJob, execution_key, scalar_lambda
from ._store import Store, StoredSample
from .model import ModelClient
from .sandbox import Facts, WorkerPool


@dataclass
class Tracker:
    """Counters the progress display reads (updated from the event loop and sandbox threads)."""

    samples_total: int = 0
    executions_total: int = 0
    samples_done: int = 0
    samples_cached: int = 0
    executions_done: int = 0
    executions_cached: int = 0
    tokens: int = 0
    statuses: Counter[str] = field(default_factory=Counter)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def count(self, **changes: int) -> None:
        with self.lock:
            for name, delta in changes.items():
                setattr(self, name, getattr(self, name) + delta)

    def status(self, status: str, n: int = 1) -> None:
        with self.lock:
            self.statuses[status] += n


def record_plan(store: Store, spec: RunSpec, plan: Plan, base_url: str) -> None:
    """Store the instances and what the report must join, before any work starts."""
    for records in plan.instances.values():
        for record in records:
            store.add_instance(record.id, record.puzzle, record.level, record.seed, scalar_lambda(record),
                               record.instance, record.meta)
    store.set_meta("spec", spec.to_json())
    store.set_meta("versions", {"codebench": __version__, "python": platform.python_version(),
                                "puzzles": {name: puzzles.get_puzzle(name).version for name in plan.instances}})
    store.set_meta("plan", {"base_url": base_url, "mode": spec.mode, "limits": asdict(spec.limits),
                            "samples": [[job.key, job.model, job.puzzle, job.sample] for job in plan.samples],
                            "instances": {name: [r.id for r in records] for name, records in plan.instances.items()}})


async def execute_plan(spec: RunSpec, plan: Plan, store: Store, clients: dict[str, ModelClient], sandbox: WorkerPool,
                       tracker: Tracker) -> None:
    """Do every sample and execution not yet stored.

    Raises:
        ModelFatalError: the endpoint refuses the run (auth, unknown model, quota); finished work stays stored.
    """
    tracker.samples_total, tracker.executions_total = len(plan.samples), plan.executions
    sandbox_lock = asyncio.Lock()

    async def one(job: SampleJob) -> None:
        stored = await _sample(job, spec, store, clients[job.model], tracker)
        records = plan.instances[job.puzzle]
        if stored.program_key is None:
            tracker.count(executions_done=len(records))
            tracker.status(stored.extract_status or "api_error", len(records))
            return
        async with sandbox_lock:  # one program at a time; also makes the "already stored?" check race-free
            await asyncio.to_thread(_execute, spec, store, stored.program_key, records, sandbox, tracker)

    await asyncio.gather(*(one(job) for job in plan.samples))


async def _sample(job: SampleJob, spec: RunSpec, store: Store, client: ModelClient, tracker: Tracker) -> StoredSample:
    stored = store.sample(job.key)
    if stored is not None and stored.error is None:
        tracker.count(samples_done=1, samples_cached=1)
        return stored
    completion = await client.complete(job.prompt.as_messages(), temperature=job.params["temperature"],
                                       max_tokens=job.params["max_tokens"], seed=job.params["seed"])
    extraction = extract_program(completion.text) if completion.error is None else None
    program_key = store.add_program(extraction.source) if extraction and extraction.status == "ok" and extraction.source else None
    store.add_sample(job.key, {
        "model": job.model, "base_url": client.endpoint.base_url, "mode": spec.mode, "puzzle": job.puzzle, "sample": job.sample,
        "prompt": job.prompt.text, "params": json.dumps(job.params, sort_keys=True), "response": completion.text,
        "finish_reason": completion.finish_reason, "truncated": int(completion.truncated),
        "prompt_tokens": completion.prompt_tokens, "completion_tokens": completion.completion_tokens,
        "latency_s": completion.latency_s, "server_model": completion.server_model, "error": completion.error,
        "program_key": program_key, "extract_status": extraction.status if extraction else None,
        "extract_detail": extraction.detail if extraction else completion.error,
    })
    tracker.count(samples_done=1, tokens=completion.completion_tokens or 0)
    stored = store.sample(job.key)
    assert stored is not None
    return stored


def _execute(spec: RunSpec, store: Store, program_key: str, records: tuple[Record, ...], sandbox: WorkerPool,
             tracker: Tracker) -> None:
    """Run one program on the instances it has no stored (non-infrastructure) result for."""
    limits = asdict(spec.limits)
    keys = [execution_key(program_key, record.id, record.meta.get("version"), limits) for record in records]
    stored = store.executed(keys)
    todo = [(key, record) for key, record in zip(keys, records) if stored.get(key) in (None, "sandbox_error")]
    tracker.count(executions_done=len(records) - len(todo), executions_cached=len(records) - len(todo))
    for key in keys:
        if stored.get(key) not in (None, "sandbox_error"):
            tracker.status(stored[key])
    if not todo:
        return
    puzzle = puzzles.get_puzzle(records[0].puzzle)

    def save(index: int, facts: Facts) -> None:
        key, record = todo[index]
        outcome = judge(facts, puzzle, record.instance, spec.limits)
        store.add_execution(key, program_key, record.id, outcome.to_json())
        tracker.count(executions_done=1)
        tracker.status(str(outcome.status))

    sandbox.run(store.program(program_key), [record.instance for _, record in todo], on_result=save)


def execution_rows(store: Store) -> list[ExecutionRow]:
    """One row per (sample, instance) of the stored plan: what the report aggregates."""
    plan = store.meta("plan")
    if plan is None:
        return []
    instances = {row[0]: row for row in store.table("SELECT id, puzzle, level, lambda, meta FROM instances")}
    samples = {row[0]: row for row in store.table("SELECT key, error, program_key, extract_status FROM samples")}
    executions = {key: (status, detail) for key, status, detail in store.table("SELECT key, status, detail FROM executions")}
    rows = []
    for key, model, puzzle_name, sample in plan["samples"]:
        stored = samples.get(key)
        if stored is None:
            continue  # not requested yet (the run was interrupted)
        _, error, program_key, extract_status = stored
        for instance_id in plan["instances"][puzzle_name]:
            _, _, level, lam, meta = instances[instance_id]
            if error is not None:
                status, detail = "api_error", error
            elif program_key is None:
                status, detail = extract_status or "no_code", ""
            else:
                exec_key = execution_key(program_key, instance_id, json.loads(meta).get("version"), plan["limits"])
                if exec_key not in executions:
                    continue
                status, detail = executions[exec_key]
            rows.append(ExecutionRow(model, plan["mode"], puzzle_name, level, instance_id, sample, status, detail, lam))
    return rows


def plan_summary(plan: Plan, store: Store) -> dict[str, Any]:
    """What --dry-run prints: requests and executions, and how many are already stored."""
    cached = sum(1 for job in plan.samples if (s := store.sample(job.key)) is not None and s.error is None)
    return {"requests": len(plan.samples), "requests_stored": cached, "executions_at_most": plan.executions,
            "puzzles": {name: len(records) for name, records in plan.instances.items()}}
