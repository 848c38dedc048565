"""Sandbox throughput, measured side by side in one run on the same instances and trivial solver.

Five ways to run `solve(instance)` N times with both cores busy (2-way parallel):
in-process call (no isolation), unsandboxed subprocess per instance, hardened container per
instance (`docker run --rm`, as epicbox and inspect_ai do), and codebench's Docker and local backends.
Bars: Docker backend ≥ 6× subprocess-per-instance (issue 30: children forked ahead of their task, frames off the
Docker API; 4× since issue 9's proven clean slate) and ≥ 30× container-per-instance (issue 3); the local backend's
figure is printed beside them, and so is the supervisor's clean-slate time per instance (kill what is left, reset,
check).
Run: `.venv/bin/python benchmarks/sandbox.py [--instances 500]` (needs the engine and the image).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

sys.path[0] = str(Path(__file__).resolve().parents[1])  # this folder must not shadow the packages

from codebench.sandbox import get_backend  # noqa: E402
from codebench.sandbox._docker import IMAGE  # noqa: E402
from codebench.types import Limits  # noqa: E402

SOLVER = "def solve(instance):\n    return {'echo': instance['n'] * 2}\n"
RUNNER = "import json, sys\nnamespace = {}\nexec(sys.argv[1], namespace)\nprint(json.dumps(namespace['solve'](json.load(sys.stdin))))"
HARDENED_RUN = ["docker", "run", "--rm", "-i", "--network", "none", "--read-only", "--tmpfs", "/tmp:rw,nosuid,nodev,size=64m",
                "--cap-drop", "ALL", "--security-opt", "no-new-privileges", "--pids-limit", "128", "--memory", "608m",
                "--memory-swap", "608m", "--cpus", "1", "--ulimit", "nofile=256:256", "--init", "--log-driver", "none",
                "--user", "10001", IMAGE, "python3", "-I", "-c", RUNNER, SOLVER]


def in_process(instances: list[dict[str, Any]]) -> None:
    namespace: dict[str, Any] = {}
    exec(SOLVER, namespace)
    with ThreadPoolExecutor(2) as pool:
        list(pool.map(lambda instance: json.dumps(namespace["solve"](instance)), instances))


def run_command(argv: list[str], instances: list[dict[str, Any]]) -> None:
    def one(instance: dict[str, Any]) -> None:
        done = subprocess.run(argv, input=json.dumps(instance), capture_output=True, text=True, check=True)
        assert json.loads(done.stdout) == {"echo": instance["n"] * 2}

    with ThreadPoolExecutor(2) as pool:
        list(pool.map(one, instances))


CLEAN_S: dict[str, float] = {}  # backend → mean clean-slate seconds per instance, as its supervisor measured


def backend(name: str, instances: list[dict[str, Any]]) -> float:
    """Runs the instances on 2 warm workers; returns the seconds spent starting them (pool start-up)."""
    start = time.perf_counter()
    with get_backend(name, Limits(cpu_s=5), workers=2) as sandbox:
        startup = time.perf_counter() - start
        facts = sandbox.run(SOLVER, instances)
    assert all(json.loads(f.result["answer"]) == {"echo": i["n"] * 2} for f, i in zip(facts, instances)), facts[0]
    assert all(f.clean for f in facts)
    CLEAN_S[name] = sum(f.clean_s for f in facts) / len(facts)
    return startup


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--instances", type=int, default=500)
    args = parser.parse_args()
    instances = [{"n": n} for n in range(args.instances)]
    methods = {  # the engine's churn of a container per instance goes last: it still removes them once they exited
        "in-process call": lambda: in_process(instances),
        "subprocess per instance": lambda: run_command([sys.executable, "-I", "-S", "-c", RUNNER, SOLVER], instances),
        "codebench docker backend": lambda: backend("docker", instances),
        "codebench local backend": lambda: backend("local", instances),
        "container per instance": lambda: run_command(HARDENED_RUN, instances),
    }
    rates: dict[str, float] = {}
    for name, method in methods.items():
        start = time.perf_counter()
        startup = method() or 0.0
        seconds = time.perf_counter() - start - startup
        rates[name] = len(instances) / seconds
        note = f"  (+ {startup:.2f} s once to start the warm workers)" if startup else ""
        print(f"{name:<26} {len(instances)} instances in {seconds:8.2f} s = {rates[name]:9.1f} instances/s{note}", flush=True)
    docker, local = rates["codebench docker backend"], rates["codebench local backend"]
    vs_subprocess = docker / rates["subprocess per instance"]
    vs_container = docker / rates["container per instance"]
    print(f"\ndocker backend / subprocess per instance = {vs_subprocess:.2f}x (bar 6x)")
    print(f"local backend / subprocess per instance  = {local / rates['subprocess per instance']:.2f}x")
    print(f"docker backend / container per instance  = {vs_container:.1f}x (bar 30x)")
    print(f"docker backend / in-process call          = {docker / rates['in-process call']:.4f}x (isolation's cost)")
    for name, seconds in CLEAN_S.items():
        print(f"clean slate per instance, {name:<6}          = {seconds * 1000:.2f} ms (kill, reset, check)")
    raise SystemExit(0 if vs_subprocess >= 6 and vs_container >= 30 else 1)


if __name__ == "__main__":
    main()
