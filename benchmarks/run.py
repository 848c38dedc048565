"""Orchestration overhead of `codebench run`, measured side by side in one run.

1. Executions per second of the run pipeline (oracle mock model, no latency: model call, extraction,
   store, sandbox, validation) against `codebench check`'s engine on the same programs and instances.
   Bar: run ≥ 0.8 × check.
2. N requests with 200 ms injected latency through the model client at concurrency C.
   Bar: wall time ≤ 1.2 × N × 0.2 s ÷ C.
Run: `.venv/bin/python benchmarks/run.py [--instances-per-level 3] [--requests 64] [--concurrency 8]`.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parents[1])  # this folder must not shadow the packages

import puzzles  # noqa: E402
from codebench._check import check_program  # noqa: E402
from codebench._mock_server import start_mock_server  # noqa: E402
from codebench._pipeline import Tracker, execute_plan, record_plan  # noqa: E402
from codebench._plan import RunSpec, make_plan  # noqa: E402
from codebench._store import Store  # noqa: E402
from codebench.model import Endpoint, ModelClient  # noqa: E402
from codebench.oracles import oracle_source  # noqa: E402
from codebench.sandbox import Limits, WorkerPool, get_backend  # noqa: E402

LEVELS = (1, 2, 3, 4, 5, 6)


def time_check(sandbox: WorkerPool, limits: Limits, per_level: int) -> tuple[int, float]:
    start, count = time.perf_counter(), 0
    for name in puzzles.puzzle_names():
        results = check_program(oracle_source(name), puzzles.get_puzzle(name), LEVELS, range(per_level), sandbox, limits)
        count += len(results)
    return count, time.perf_counter() - start


def time_run(sandbox: WorkerPool, limits: Limits, per_level: int, url: str, folder: Path) -> tuple[int, float]:
    start = time.perf_counter()  # like check, this includes generating the instances
    spec = RunSpec(models=("oracle",), base_url=url, levels=LEVELS, instances_per_level=per_level, samples=1,
                   limits=limits, out=folder)
    plan = make_plan(spec, url)
    store = Store(folder / "run.sqlite")
    tracker = Tracker()

    async def go() -> None:
        client = ModelClient(Endpoint("oracle", url, "none"), max_connections=8)
        try:
            await execute_plan(spec, plan, store, {"oracle": client}, sandbox, tracker)
        finally:
            await client.aclose()

    record_plan(store, spec, plan, url)
    asyncio.run(go())
    seconds = time.perf_counter() - start
    store.close()
    return tracker.executions_done - tracker.executions_cached, seconds


async def latency_wave(url: str, requests: int, concurrency: int) -> float:
    client = ModelClient(Endpoint("oracle", url, "none"), max_connections=concurrency)
    messages = [{"role": "user", "content": "codebench-puzzle: hanoi\nwrite solve()"}]
    start = time.perf_counter()
    await asyncio.gather(*(client.complete(messages, temperature=0.0, max_tokens=None, seed=i) for i in range(requests)))
    seconds = time.perf_counter() - start
    await client.aclose()
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--instances-per-level", type=int, default=3)
    parser.add_argument("--requests", type=int, default=64)
    parser.add_argument("--concurrency", type=int, default=8)
    args = parser.parse_args()
    limits = Limits(cpu_s=10)
    checked = ran = 0
    check_s = run_s = 0.0
    with start_mock_server(behavior="oracle") as server, get_backend("docker", limits, workers=2) as sandbox, \
            tempfile.TemporaryDirectory() as folder:
        for round_ in range(2):  # alternate, so neither side alone pays for cold caches
            count, seconds = time_check(sandbox, limits, args.instances_per_level)
            checked, check_s = checked + count, check_s + seconds
            count, seconds = time_run(sandbox, limits, args.instances_per_level, server.url, Path(folder) / str(round_))
            ran, run_s = ran + count, run_s + seconds
    check_rate, run_rate = checked / check_s, ran / run_s
    print(f"codebench check engine: {checked} executions in {check_s:.2f} s = {check_rate:.1f}/s")
    print(f"codebench run pipeline: {ran} executions in {run_s:.2f} s = {run_rate:.1f}/s (9 model calls, store, validation)")
    ratio = run_rate / check_rate
    print(f"run / check = {ratio:.2f}x (bar 0.8x)")
    with start_mock_server(behavior="oracle", latency_s=0.2) as server:
        seconds = asyncio.run(latency_wave(server.url, args.requests, args.concurrency))
    bound = 1.2 * args.requests * 0.2 / args.concurrency
    print(f"{args.requests} requests at 200 ms latency, concurrency {args.concurrency}: {seconds:.2f} s "
          f"(ideal {args.requests * 0.2 / args.concurrency:.2f} s, bar {bound:.2f} s) = {seconds / bound:.2f} of the bar")
    raise SystemExit(0 if ratio >= 0.8 and seconds <= bound else 1)


if __name__ == "__main__":
    main()
