"""A worker container that dies under a program is recycled, and the instance is retried, never lost."""

from __future__ import annotations

import threading
import time

import docker
import pytest

import puzzles
from codebench.judge import judge_execution as judge
from codebench.oracles import oracle_source
from codebench.sandbox import get_backend
from codebench.sandbox._docker import API_VERSION
from codebench.types import Batch, Facts, Limits, Program, Status, Task

pytestmark = pytest.mark.docker
LIMITS = Limits(cpu_s=5, wall_s=15)
SLOW_HANOI = "import time\n" + oracle_source("hanoi") + "\n_solve = solve\ndef solve(instance):\n    time.sleep(1.5)\n" \
    "    return _solve(instance)\n"


def test_killed_container_is_recycled_and_the_instance_retried() -> None:
    hanoi = puzzles.get_puzzle("hanoi")
    records = [hanoi.generate(1, seed) for seed in range(3)]
    client = docker.from_env(version=API_VERSION)
    with get_backend("docker", LIMITS, workers=1) as sandbox:
        first_container = sandbox.pool.workers[0].container.id  # type: ignore[attr-defined]

        def kill_soon() -> None:
            time.sleep(0.8)  # the first instance is sleeping inside the container now
            client.api.kill(first_container)

        killer = threading.Thread(target=kill_soon)
        killer.start()
        tasks = tuple(Task(str(index), record.instance) for index, record in enumerate(records))
        results = list(sandbox.stream([Batch(Program("slow-hanoi", SLOW_HANOI), tasks)]))
        killer.join()
        replacement = sandbox.pool.workers[0].container.id  # type: ignore[attr-defined]
    client.close()
    assert replacement != first_container
    assert sorted(int(result.task.key) for result in results) == [0, 1, 2]  # each delivered once
    assert [judge(result.facts, hanoi, records[int(result.task.key)].instance, LIMITS).status for result in results] == [Status.LEGAL] * 3


def test_an_instance_that_keeps_breaking_the_sandbox_is_a_sandbox_error_not_a_program_failure() -> None:
    hanoi = puzzles.get_puzzle("hanoi")
    instance = hanoi.generate(1, 0).instance
    client = docker.from_env(version=API_VERSION)
    stop = threading.Event()

    def keep_killing(sandbox: object) -> None:
        while not stop.is_set():
            time.sleep(0.5)
            try:
                client.api.kill(sandbox.pool.workers[0].container.id)  # type: ignore[attr-defined]
            except (docker.errors.DockerException, AttributeError):
                pass

    with get_backend("docker", LIMITS, workers=1) as sandbox:
        killer = threading.Thread(target=keep_killing, args=(sandbox,))
        killer.start()
        facts: Facts = sandbox.run(SLOW_HANOI, [instance])[0]
        stop.set()
        killer.join()
    client.close()
    outcome = judge(facts, hanoi, instance, LIMITS)
    assert outcome.status == Status.SANDBOX_ERROR and facts.infra_error
