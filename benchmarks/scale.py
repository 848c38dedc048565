"""The Ray executor's cost and its scaling, measured side by side in one run.

1. Overhead: the same programs on the same instances through the Docker backend on this machine (2 workers) and
   through `--executor ray` on a Ray instance started here (one node, 2 sandbox slots, the same Docker backend inside
   its actor). Bar (issue 11): Ray's throughput ≥ 0.8 × the local executor's. Start-up is printed apart.
2. Scaling: a simulated cluster of N nodes (`ray.cluster_utils.Cluster`), each offering one sandbox slot whose
   executions sleep (a fake backend: the real scheduler and the real Ray path, no program run), with N × TASKS tasks;
   throughput against one node. Bar: ≥ 0.8 × N up to N = 8.
Run: `.venv/bin/python benchmarks/scale.py` (needs the `ray` extra, the engine and the image).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parents[1])  # this folder must not shadow the packages

import ray  # noqa: E402
from ray.cluster_utils import Cluster  # noqa: E402

from codebench.keys import program_key  # noqa: E402
from codebench.sandbox import SandboxBackend, get_backend  # noqa: E402
from codebench.sandbox._fake import FakeBackend  # noqa: E402
from codebench.sandbox._ray import SLOTS, RayBackend  # noqa: E402
from codebench.types import Batch, Facts, Limits, Program, ResultKind, Task  # noqa: E402

SOLVER = "def solve(instance):\n    return {{'echo': instance['n'] * 2}}  # {}\n"
SLEEP_S = 0.05  # one simulated execution
TASKS = 40  # simulated executions per node


def batches(programs: int, instances: int) -> list[Batch]:
    """`programs` distinct programs (as a run's samples are), each on the same `instances` instances."""
    out = []
    for index in range(programs):
        source = SOLVER.format(index)
        out.append(Batch(Program(program_key(source), source), tuple(Task(f"{index}-{n}", {"n": n}) for n in range(instances))))
    return out


def throughput(sandbox: SandboxBackend, work: list[Batch]) -> float:
    """Executions per second of `work` on a started backend."""
    start = time.perf_counter()
    done = sum(1 for _ in sandbox.stream(work))
    return done / (time.perf_counter() - start)


def overhead(programs: int, instances: int) -> tuple[float, float, float]:
    """(local executions/s, Ray executions/s, Ray start-up s) on the same work."""
    limits = Limits(cpu_s=5)
    with get_backend("docker", limits, workers=2) as local:
        throughput(local, batches(1, 4))  # warm
        local_rate = throughput(local, batches(programs, instances))
    started = time.perf_counter()
    with RayBackend(limits, backend="docker", workers=2) as distributed:
        startup = time.perf_counter() - started
        throughput(distributed, batches(1, 4))
        ray_rate = throughput(distributed, batches(programs, instances))
    return local_rate, ray_rate, startup


def asleep(source: str, instance: dict[str, object]) -> Facts:
    time.sleep(SLEEP_S)
    return Facts("run", {"kind": ResultKind.ANSWER.value, "answer": "{}"})


def sleeping_fake(limits: Limits, workers: int) -> FakeBackend:
    return FakeBackend(asleep, workers=workers, limits=limits)


def simulated(nodes: int) -> float:
    """Executions per second of nodes × TASKS sleeping executions on a cluster of `nodes` one-slot nodes."""
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "resources": {SLOTS: 1}})
    for _ in range(nodes - 1):
        cluster.add_node(num_cpus=1, resources={SLOTS: 1})
    ray.init(address=cluster.address, log_to_driver=False, configure_logging=False)
    cluster.wait_for_nodes()
    try:
        with RayBackend(Limits(), address=cluster.address, factory=sleeping_fake) as sandbox:
            assert sandbox.capacity == nodes, sandbox.notes
            return throughput(sandbox, batches(nodes * 4, TASKS // 4))
    finally:
        ray.shutdown()
        cluster.shutdown()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--programs", type=int, default=20)
    parser.add_argument("--instances", type=int, default=20)
    parser.add_argument("--nodes", default="1,2,4,8")
    options = parser.parse_args()
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])

    local_rate, ray_rate, startup = overhead(options.programs, options.instances)
    print(f"overhead: {options.programs} programs × {options.instances} instances, Docker backend, 2 workers")
    print(f"  local executor {local_rate:7.1f} executions/s")
    print(f"  ray executor   {ray_rate:7.1f} executions/s  ({ray_rate / local_rate:.2f}× local; bar ≥ 0.80; "
          f"start-up {startup:.1f} s apart)")
    counts = [int(n) for n in options.nodes.split(",")]
    rates = {n: simulated(n) for n in counts}
    print(f"scaling: simulated nodes of one slot, {TASKS} executions of {SLEEP_S * 1000:.0f} ms per node")
    for n, rate in rates.items():
        print(f"  {n} node(s) {rate:7.1f} executions/s  ({rate / rates[counts[0]]:.2f}× one node; bar ≥ {0.8 * n:.2f})")


if __name__ == "__main__":
    main()
