"""The Ray executor's cost and its scaling, measured side by side in one run.

1. Overhead: the same programs on the same instances through the Docker backend on this machine (2 workers) and
   through `--executor ray` on a Ray instance started here (one node, 2 sandbox slots, the same Docker backend inside
   its actor). Bar (issue 11): Ray's throughput ≥ 0.8 × the local executor's. Start-up is printed apart.
2. A game's move through Ray: a program seat held on an actor (one Ray call a move) against the same fake worker held
   on the driver, moves that cost nothing: the difference is Ray's cost per move.
3. Scaling: a simulated cluster of N nodes (`ray.cluster_utils.Cluster`), each offering one sandbox slot whose
   executions and game moves sleep (a fake backend: the real scheduler and the real Ray path, no program run): N × TASKS
   executions, then N × GAMES code-mode games (RubyRisks, the engine on the driver, N at once); each rate against one
   node's, side by side. Bar: ≥ 0.8 × N up to N = 8.
Run: `.venv/bin/python benchmarks/scale.py` (needs the `ray` extra, the engine and the image).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

sys.path[0] = str(Path(__file__).resolve().parents[1])  # this folder must not shadow the packages

import ray  # noqa: E402
from ray.cluster_utils import Cluster  # noqa: E402

from codebench.games.match import play_seated  # noqa: E402
from codebench.keys import program_key  # noqa: E402
from codebench.sandbox import SandboxBackend, get_backend  # noqa: E402
from codebench.sandbox._fake import FakeBackend, Mover  # noqa: E402
from codebench.sandbox._ray import SLOTS, RayBackend  # noqa: E402
from codebench.types import Batch, Facts, GameLimits, Limits, Program, ResultKind, Task  # noqa: E402
from puzzles.games import get_game, player_view  # noqa: E402

SOLVER = "def solve(instance):\n    return {{'echo': instance['n'] * 2}}  # {}\n"
SLEEP_S = 0.05  # one simulated execution
TASKS = 40  # simulated executions per node
MOVE_S = 0.02  # one simulated game move
GAMES = 12  # simulated games per node
MOVES = 2000  # moves of the Ray call's measure
RUBIES = ("class Strategy:\n    def __init__(self, setup):\n        self.total = setup['observation']['total_rubies']\n"
          "    def act(self, observation):\n        return {'rubies': self.total // (2 * observation['boxes'])}\n")


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


def player(source: str, setup: dict[str, Any], move_s: float = MOVE_S) -> Mover:
    """A fake sandbox's player: the benchmark's own Strategy run in the actor's process (trusted), each move sleeping."""
    namespace: dict[str, Any] = {}
    exec(compile(source, "strategy", "exec"), namespace)
    strategy = namespace["Strategy"](setup)

    def move(observation: Any) -> Facts:
        time.sleep(move_s)
        return Facts("move", {"kind": ResultKind.ANSWER.value, "answer": json.dumps(strategy.act(observation))})
    return move


def instant(source: str, setup: dict[str, Any]) -> Mover:
    return player(source, setup, 0.0)


def sleeping_fake(limits: Limits, workers: int) -> FakeBackend:
    return FakeBackend(asleep, workers=workers, limits=limits, player=player)


def instant_fake(limits: Limits, workers: int) -> FakeBackend:
    return FakeBackend(asleep, workers=workers, limits=limits, player=instant)


def cluster_of(nodes: int) -> Cluster:
    """A simulated cluster of `nodes` one-slot nodes, this process connected to it."""
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "resources": {SLOTS: 1}})
    for _ in range(nodes - 1):
        cluster.add_node(num_cpus=1, resources={SLOTS: 1})
    ray.init(address=cluster.address, log_to_driver=False, configure_logging=False)
    cluster.wait_for_nodes()
    return cluster


def per_move(sandbox: SandboxBackend) -> tuple[float, float]:
    """(seconds, this process's CPU seconds) a held seat's move takes (a fake move that costs nothing: what carries it)."""
    rubies = get_game("rubyrisks")
    setup = rubies.setup(1, 0)
    held = sandbox.reserve(Program(program_key(RUBIES), RUBIES, "Strategy"))
    try:
        held.start(player_view(rubies, setup, 0), GameLimits())
        observation = rubies.observe(setup.state, 0)
        started, cpu = time.perf_counter(), time.process_time()
        for _ in range(MOVES):
            held.act(observation, GameLimits())
        return (time.perf_counter() - started) / MOVES, (time.process_time() - cpu) / MOVES
    finally:
        held.end()
        held.release()


def ray_call_per_move() -> tuple[float, tuple[float, float]]:
    """(seconds a move on the driver; (seconds, the driver's CPU seconds) a move through one Ray actor's held seat): the
    same fake worker."""
    with FakeBackend(asleep, workers=1, player=instant) as local:
        here, _ = per_move(local)
    cluster = cluster_of(1)
    try:
        with RayBackend(Limits(), address=cluster.address, factory=instant_fake) as sandbox:
            per_move(sandbox)  # warm
            return here, per_move(sandbox)
    finally:
        ray.shutdown()
        cluster.shutdown()


def games_rate(sandbox: SandboxBackend, games: int, at_once: int) -> tuple[float, float]:
    """(games/s, moves/s) of `games` seeded RubyRisks games, `at_once` at a time, the engine here."""
    rubies, program = get_game("rubyrisks"), Program(program_key(RUBIES), RUBIES, "Strategy")
    setups = [rubies.setup(1 + seed % 3, seed) for seed in range(games)]

    def one(setup: Any) -> int:
        record = play_seated(rubies, setup, [("program", program)], sandbox, GameLimits())
        assert record.statuses == ("legal",), record
        return len(record.moves)

    started = time.perf_counter()
    with ThreadPoolExecutor(at_once) as pool:
        moves = sum(pool.map(one, setups))
    seconds = time.perf_counter() - started
    return games / seconds, moves / seconds


def simulated(nodes: int) -> tuple[float, float, float]:
    """On a cluster of `nodes` one-slot nodes: (executions/s of nodes × TASKS sleeping executions, games/s and moves/s
    of nodes × GAMES games of sleeping moves)."""
    cluster = cluster_of(nodes)
    try:
        with RayBackend(Limits(), address=cluster.address, factory=sleeping_fake) as sandbox:
            assert sandbox.capacity == nodes, sandbox.notes
            executions = throughput(sandbox, batches(nodes * 4, TASKS // 4))
            return (executions, *games_rate(sandbox, nodes * GAMES, nodes))
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
    here, (through_ray, driver_cpu) = ray_call_per_move()
    print(f"a game's move: {MOVES} moves of a fake player that costs nothing, held on the driver and on one Ray actor")
    print(f"  on the driver {1000 * here:6.3f} ms a move; through Ray {1000 * through_ray:6.3f} ms "
          f"(+{1000 * (through_ray - here):.3f} ms a move: one Ray actor call, {1000 * driver_cpu:.3f} ms of the driver's "
          f"CPU: at most ≈ {1 / driver_cpu:.0f} moves/s a driver core)")
    counts = [int(n) for n in options.nodes.split(",")]
    rates = {n: simulated(n) for n in counts}
    one = rates[counts[0]]
    print(f"scaling: simulated nodes of one slot; per node {TASKS} executions of {SLEEP_S * 1000:.0f} ms, then {GAMES} "
          f"RubyRisks games of {MOVE_S * 1000:.0f} ms moves (the engine on the driver)")
    print(f"  {'nodes':>5} {'executions/s':>13} {'× one':>6}   {'games/s':>8} {'moves/s':>8} {'× one':>6}   bar")
    for n, (executions, games, moves) in rates.items():
        print(f"  {n:>5} {executions:>13.1f} {executions / one[0]:>6.2f}   {games:>8.2f} {moves:>8.1f} {games / one[1]:>6.2f}"
              f"   ≥ {0.8 * n:.2f}")


if __name__ == "__main__":
    main()
