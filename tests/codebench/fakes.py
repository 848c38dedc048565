"""Fakes for the pipeline's own tests: a chat model that answers as the mock server's behaviours do, and a
sandbox handler that plays each mock program's part without running it (the reference solver stands in
for an oracle program). Neither touches the network, Docker or an untrusted line of code."""

from __future__ import annotations

import asyncio
import json
import threading
from collections import Counter
from pathlib import Path
from typing import Any

import puzzles
from codebench.evaluation import evaluate, plan_of
from codebench.model.mock_behaviors import BEHAVIORS, MARKER, PLAN_FLAWS, mixed_choice, reply_text
from codebench.modes._extract import extract_program
from codebench.run.pipeline import Tracker
from codebench.run.plan import Plan
from codebench.run.spec import RunSpec
from codebench.run.store import Store
from codebench.sandbox import SandboxBackend
from codebench.types import Completion, Facts, ResultKind

BASE_URL = "fake://chat"


class FakeChat:
    """Answers code-mode prompts as the mock model `behavior` would; `fail` lists request seeds that get an API error."""

    def __init__(self, behavior: str, fail: frozenset[int] = frozenset(), base_url: str = BASE_URL) -> None:
        self.behavior, self.fail, self.base_url = behavior, fail, base_url
        self.calls = 0

    async def complete(self, messages: list[dict[str, str]], *, temperature: float, max_tokens: int | None,
                       seed: int) -> Completion:
        self.calls += 1
        await asyncio.sleep(0)
        if seed in self.fail:
            return Completion("", None, False, None, None, 0.0, None, "HTTP 400: injected")
        found = MARKER.search("\n".join(message["content"] for message in messages))
        behavior = mixed_choice(0, seed, messages) if self.behavior == "mixed" else self.behavior
        text = reply_text(behavior, found.group(1) if found else None)
        return Completion(text, "stop", False, 10, len(text) // 4, 0.0, "fake", None)


def _programs() -> dict[str, tuple[str, str]]:
    """Extracted source → (behaviour, puzzle) for every program a behaviour writes."""
    table = {}
    for behavior in BEHAVIORS:
        for name in puzzles.puzzle_names():
            if behavior in ("mixed", "format_retry", "reasoning", *PLAN_FLAWS):  # one picks another; the others write the
                continue  # oracle's program or the wrong one
            source = extract_program(reply_text(behavior, name)).source
            if source is not None:
                table[source] = (behavior, name)
    return table


PROGRAMS = _programs()


class Simulated:
    """A FakeBackend handler: the facts the mock program would produce, counted per (source, instance)."""

    def __init__(self) -> None:
        self.runs: Counter[tuple[str, str]] = Counter()
        self.lock = threading.Lock()

    def __call__(self, source: str, instance: dict[str, Any]) -> Facts:
        with self.lock:
            self.runs[(source, json.dumps(instance, sort_keys=True))] += 1
        behavior, name = PROGRAMS.get(source, ("unknown", ""))
        if behavior in ("oracle", "slow"):
            return answer(puzzles.get_puzzle(name).solve(instance))
        if behavior == "wrong":
            return answer({})
        if behavior == "timeout":
            return Facts("run", killed="cpu_limit", cpu_s=10.0, wall_s=10.0)
        return Facts("run", {"kind": ResultKind.EXCEPTION.value, "type": "IndexError", "message": "list index out of range"})

    @property
    def total(self) -> int:
        return sum(self.runs.values())


def answer(value: Any) -> Facts:
    return Facts("run", {"kind": ResultKind.ANSWER.value, "answer": json.dumps(value)}, wall_s=0.01, cpu_s=0.01)


def run_plan(spec: RunSpec, chats: dict[str, FakeChat], sandbox: SandboxBackend) -> tuple[Plan, Tracker]:
    """Run `spec` with the fake chats and sandbox through `codebench.evaluate`, as `codebench run` does: its plan and
    this call's counters."""
    result = evaluate(spec, clients=chats, sandbox=sandbox)
    return plan_of(spec, chats), result.progress


def stored_rows(out: Path) -> list[tuple[str, str, int, str, int, str]]:
    store = Store.for_reading(Path(out) / "run.sqlite")
    try:
        return sorted((r.model, r.puzzle, r.level, r.instance_id, r.sample, r.status) for r in store.report_rows())
    finally:
        store.close()
