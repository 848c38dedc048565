"""Orchestration of `codebench run`, measured side by side in one run.

1. Scheduling (fake backend, no Docker): the real pipeline and scheduler over a fake sandbox whose
   executions sleep 10-100 ms (seeded; the demo's executions average 0.45 s on Docker), 64 simulated
   workers, programs of 18 instances (6 levels × 3), a model that answers at once.
   Utilisation = summed execution time ÷ (workers × elapsed), for the pipeline as it is and for the same
   pipeline behind an adapter that lets one program run at a time (the shape before issue 7). Bar ≥ 0.9.
2. The demo on Docker (`codebench demo`'s plan, 2 workers): utilisation the same way, summed execution
   time being the wall time the supervisor measured per instance, beside the one-program-at-a-time
   adapter. Bar ≥ 0.9.
3. Executions per second of the run pipeline (oracle mock model, no latency: model call, extraction,
   store, sandbox, validation) against `codebench check`'s engine on the same programs and instances.
   Bar: run ≥ 0.8 × check.
4. N requests with 200 ms injected latency through the model client at concurrency C.
   Bar: wall time ≤ 1.2 × N × 0.2 s ÷ C.
5. Instruction mode through the whole pipeline (plan made beforehand): N samples, one per instance of all nine
   puzzles × six levels, a model answering the oracle's answer after 200 ms (answers computed before the clock
   starts), concurrency C; beside it the seconds spent validating answers.
   Bars: wall time ≤ 1.2 × N × 0.2 s ÷ C, and validation < 5% of it.
Run: `.venv/bin/python benchmarks/run.py [--skip-docker] [--requests 64] [--concurrency 8]`.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import hashlib
import json
import sys
import tempfile
import threading
import time
from collections import deque
from pathlib import Path
from typing import Any

sys.path[0] = str(Path(__file__).resolve().parents[1])  # this folder must not shadow the packages

import puzzles  # noqa: E402
from codebench import evaluate  # noqa: E402
from codebench.evaluation import plan_of  # noqa: E402
from codebench.model.client import ModelClient  # noqa: E402
from codebench.model.mock_server import start_mock_server  # noqa: E402
from codebench.model.presets import Endpoint  # noqa: E402
from codebench.modes import instruction  # noqa: E402
from codebench.oracles import oracle_source  # noqa: E402
from codebench.run.check import check_program  # noqa: E402
from codebench.run.pipeline import Tracker  # noqa: E402
from codebench.run.spec import RunSpec  # noqa: E402
from codebench.run.store import Store  # noqa: E402
from codebench.sandbox import Deliver, SandboxBackend, get_backend  # noqa: E402
from codebench.sandbox._fake import FakeBackend  # noqa: E402
from codebench.types import Batch, Completion, Facts, Limits, Result, ResultKind  # noqa: E402

LEVELS = (1, 2, 3, 4, 5, 6)
BAR_UTILISATION = 0.9


class OneProgramAtATime(SandboxBackend):
    """The scheduling before issue 7: batches wait until the previous one has finished on every worker."""

    name = "one-at-a-time"

    def __init__(self, inner: SandboxBackend) -> None:
        super().__init__(inner.limits)
        self.inner = inner
        self.waiting: deque[tuple[Batch, Deliver]] = deque()
        self.left = 0  # tasks of the running batch not yet delivered
        self.lock = threading.Lock()

    @property
    def capacity(self) -> int:
        return self.inner.capacity

    def submit(self, batch: Batch, deliver: Deliver) -> None:
        with self.lock:
            self.waiting.append((batch, deliver))
            if self.left == 0:
                self._next()

    def _next(self) -> None:
        if self.waiting:
            batch, deliver = self.waiting.popleft()
            self.left = len(batch.tasks)

            def delivered(result: Result) -> None:
                deliver(result)
                with self.lock:
                    self.left -= 1
                    if self.left == 0:
                        self._next()

            self.inner.submit(batch, delivered)

    def close(self) -> None:
        self.inner.close()


class DistinctPrograms:
    """A model that writes a different (trivial) program for every request, instantly."""

    base_url = "fake://distinct"

    async def complete(self, messages: list[dict[str, str]], *, temperature: float, max_tokens: int | None,
                       seed: int) -> Completion:
        text = f"```python\ndef solve(instance):\n    return {{}}  # request {seed}\n```\n"
        return Completion(text, "stop", False, 1, 1, 0.0, "fake", None)


def sleeping(source: str, instance: dict) -> Facts:
    """10-100 ms, fixed by (program, instance): executions of varied length, the same in both arms."""
    seconds = 0.01 + 0.09 * int(hashlib.sha256(f"{source}|{instance}".encode()).hexdigest()[:8], 16) / 0xFFFFFFFF
    time.sleep(seconds)
    return Facts("run", {"kind": ResultKind.ANSWER.value, "answer": "{}"}, wall_s=seconds, cpu_s=0.0)


class Stopwatch:
    """A run's watcher that times its work alone (from the sandbox standing to the last result stored): planning,
    storing the plan and reading the report afterwards are the same in both arms and not what is measured."""

    def __init__(self) -> None:
        self.started = self.stopped = 0.0

    @property
    def seconds(self) -> float:
        return self.stopped - self.started

    def note(self, line: str) -> None:
        pass

    def start(self, progress: Tracker) -> None:
        self.started = time.perf_counter()

    def update(self) -> None:
        pass

    def stop(self) -> None:
        self.stopped = time.perf_counter()


def utilisation(spec: RunSpec, sandbox: SandboxBackend, clients: dict[str, Any] | None = None) -> tuple[float, int, float]:
    """(utilisation, executions stored, elapsed s) of one run into a fresh `spec.out` (`clients`: None for `spec`'s)."""
    watch = Stopwatch()
    result = evaluate(spec, clients=clients, sandbox=sandbox, watcher=watch)
    store = Store(result.out / "run.sqlite")
    runs, busy = store.execution_totals()
    store.close()
    return busy / (sandbox.capacity * watch.seconds), runs, watch.seconds


def scheduling(folder: Path) -> bool:
    spec = RunSpec(models=("distinct",), base_url="fake://", levels=LEVELS, instances_per_level=3, samples=16, out=folder)
    print(f"1. scheduling, fake backend, 64 workers: {len(spec.puzzles) * spec.samples} programs × 18 instances, 10-100 ms each")
    ok = True
    for label, wrap in (("pipeline", lambda b: b), ("one program at a time", OneProgramAtATime)):
        with FakeBackend(sleeping, workers=64) as fake:
            share, runs, elapsed = utilisation(dataclasses.replace(spec, out=folder / label), wrap(fake),
                                               {"distinct": DistinctPrograms()})
        print(f"   {label:<22} {runs} executions in {elapsed:.2f} s: utilisation {share:.2f}")
        ok = ok and (share >= BAR_UTILISATION if label == "pipeline" else True)
    print(f"   bar: pipeline ≥ {BAR_UTILISATION}")
    return ok


def demo_on_docker(folder: Path) -> bool:
    print("2. the demo's plan on Docker, 2 workers (mixed mock model, 9 puzzles × 6 levels × 2 instances × 5 samples, 2 s CPU)")
    ok = True
    with start_mock_server(behavior="mixed") as server:
        for label, wrap in (("pipeline", lambda b: b), ("one program at a time", OneProgramAtATime)):
            spec = RunSpec(models=("mixed",), base_url=server.url, levels=LEVELS, instances_per_level=2, samples=5,
                           limits=Limits(cpu_s=2.0), out=folder / label)
            with get_backend("docker", spec.limits, workers=2) as docker:
                share, runs, elapsed = utilisation(spec, wrap(docker))
            print(f"   {label:<22} {runs} executions in {elapsed:.2f} s: utilisation {share:.2f}")
            ok = ok and (share >= BAR_UTILISATION if label == "pipeline" else True)
    print(f"   bar: pipeline ≥ {BAR_UTILISATION}")
    return ok


def time_check(sandbox: SandboxBackend, per_level: int) -> tuple[int, float]:
    start, count = time.perf_counter(), 0
    for name in puzzles.puzzle_names():
        count += len(check_program(oracle_source(name), puzzles.get_puzzle(name), LEVELS, range(per_level), sandbox))
    return count, time.perf_counter() - start


def time_run(sandbox: SandboxBackend, per_level: int, url: str, folder: Path) -> tuple[int, float]:
    start = time.perf_counter()  # like check, this includes generating the instances
    spec = RunSpec(models=("oracle",), base_url=url, levels=LEVELS, instances_per_level=per_level, samples=1,
                   limits=sandbox.limits, max_connections=8, out=folder)
    watch = Stopwatch()
    progress = evaluate(spec, sandbox=sandbox, watcher=watch).progress
    seconds = watch.stopped - start  # planning included, as check generates its instances; the report read after is not
    return progress.executions_done - progress.executions_cached, seconds


def run_against_check(folder: Path, per_level: int) -> bool:
    checked = ran = 0
    check_s = run_s = 0.0
    with start_mock_server(behavior="oracle") as server, get_backend("docker", Limits(cpu_s=10), workers=2) as sandbox:
        for round_ in range(2):  # alternate, so neither side alone pays for cold caches
            count, seconds = time_check(sandbox, per_level)
            checked, check_s = checked + count, check_s + seconds
            count, seconds = time_run(sandbox, per_level, server.url, folder / str(round_))
            ran, run_s = ran + count, run_s + seconds
    check_rate, run_rate = checked / check_s, ran / run_s
    ratio = run_rate / check_rate
    print(f"3. check engine: {checked} executions in {check_s:.2f} s = {check_rate:.1f}/s; run pipeline: {ran} in {run_s:.2f} s "
          f"= {run_rate:.1f}/s (9 model calls, store, validation): run / check = {ratio:.2f}x (bar 0.8x)")
    return ratio >= 0.8


def latency(requests: int, concurrency: int) -> bool:
    async def wave(url: str) -> float:
        client = ModelClient(Endpoint("oracle", url, "none"), max_connections=concurrency)
        messages = [{"role": "user", "content": "codebench-puzzle: hanoi\nwrite solve()"}]
        start = time.perf_counter()
        await asyncio.gather(*(client.complete(messages, temperature=0.0, max_tokens=None, seed=i) for i in range(requests)))
        seconds = time.perf_counter() - start
        await client.aclose()
        return seconds

    with start_mock_server(behavior="oracle", latency_s=0.2) as server:
        seconds = asyncio.run(wave(server.url))
    bound = 1.2 * requests * 0.2 / concurrency
    print(f"4. {requests} requests at 200 ms latency, concurrency {concurrency}: {seconds:.2f} s "
          f"(ideal {requests * 0.2 / concurrency:.2f} s, bar {bound:.2f} s) = {seconds / bound:.2f} of the bar")
    return seconds <= bound


class PresolvedModel:
    """A chat model that answers every instruction prompt with the oracle's answer after `latency_s`, C at a time:
    the answers are computed before the clock starts, so only the pipeline, validation and the store are timed."""

    base_url = "http://presolved.invalid/v1"

    def __init__(self, plan: Any, latency_s: float, concurrency: int) -> None:
        self.latency_s, self.slots = latency_s, asyncio.Semaphore(concurrency)
        self.replies = {}
        for job in plan.samples:
            record = job.instances[0]
            answer = json.dumps(puzzles.get_puzzle(job.puzzle).solve(record.instance))
            self.replies[job.prompt.text] = f"Step by step, checking every rule:\n\n```json\n{answer}\n```\n"

    async def complete(self, messages: list[dict[str, str]], *, temperature: float, max_tokens: int | None,
                       seed: int) -> Completion:
        async with self.slots:
            await asyncio.sleep(self.latency_s)
        text = self.replies[json.dumps(messages, ensure_ascii=False, separators=(",", ":"))]
        return Completion(text, "stop", False, 100, len(text) // 4, self.latency_s, "presolved", None)


def instruction_latency(folder: Path, concurrency: int) -> bool:
    validating = [0.0]
    judge = instruction.judge_answer

    def timed(*args: Any) -> Any:
        start = time.perf_counter()
        try:
            return judge(*args)
        finally:
            validating[0] += time.perf_counter() - start

    spec = RunSpec(models=("oracle",), base_url=PresolvedModel.base_url, mode="instruction", levels=LEVELS,
                   instances_per_level=1, samples=1, max_tokens=None, max_connections=concurrency, out=folder)
    plan = plan_of(spec)
    model = PresolvedModel(plan, 0.2, concurrency)
    watch = Stopwatch()
    instruction.judge_answer = timed  # type: ignore[assignment]
    try:
        tracker = evaluate(spec, clients={"oracle": model}, watcher=watch).progress
    finally:
        instruction.judge_answer = judge  # type: ignore[assignment]
    seconds = watch.seconds
    samples = len(plan.samples)
    bound = 1.2 * samples * 0.2 / concurrency
    share = validating[0] / seconds
    assert tracker.statuses.get("legal") == samples, tracker.statuses
    print(f"5. {samples} instruction samples at 200 ms latency, concurrency {concurrency}: {seconds:.2f} s (ideal "
          f"{samples * 0.2 / concurrency:.2f} s, bar {bound:.2f} s) = {seconds / bound:.2f} of the bar; validating "
          f"{validating[0]:.3f} s = {share:.1%} of it (bar 5%)")
    return seconds <= bound and share < 0.05


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--skip-docker", action="store_true", help="only the fake-backend and model-client parts")
    parser.add_argument("--instances-per-level", type=int, default=3, help="for part 3")
    parser.add_argument("--requests", type=int, default=64)
    parser.add_argument("--concurrency", type=int, default=8)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        results = [scheduling(Path(folder) / "scheduling")]
        if not args.skip_docker:
            results += [demo_on_docker(Path(folder) / "demo"), run_against_check(Path(folder) / "check", args.instances_per_level)]
        results.append(latency(args.requests, args.concurrency))
        results.append(instruction_latency(Path(folder), args.concurrency))
    raise SystemExit(0 if all(results) else 1)


if __name__ == "__main__":
    main()
