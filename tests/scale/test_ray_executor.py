"""`--executor ray` on a real local Ray cluster (`ray.cluster_utils.Cluster`: a head and two worker nodes, one of which
has no Docker engine): a code-mode run and a `check` give the local executor's results row for row; a node that cannot
run the sandbox is named and skipped; killing an actor's process mid-run still ends with a complete store, each
execution once; `sandbox build --ray-address` gives every node the image, built there or pulled from a registry; without
an address a run starts its own Ray instance, whatever cluster /tmp/ray/ray_current_cluster names."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import ray
from ray.cluster_utils import Cluster

from codebench.model.mock_behaviors import oracle_source
from codebench.model.mock_server import start_mock_server
from codebench.run.spec import RunSpec
from codebench.run.store import Store
from codebench.sandbox._fake import FakeBackend
from codebench.sandbox._ray import RayBackend
from codebench.types import Facts, Limits

from ..codebench import fakes
from ..codebench.cli import run_cli

ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the actors' factories live in these test modules
ray.cloudpickle.register_pickle_by_value(fakes)
KILL_AFTER_S = 0.7


def rows(out: Path) -> list[tuple[Any, ...]]:
    store = Store.for_reading(out / "run.sqlite")
    try:
        return sorted((r.model, r.mode, r.puzzle, r.level, r.instance_id, r.sample, r.status, r.detail) for r in store.report_rows())
    finally:
        store.close()


@pytest.mark.docker
def test_a_code_mode_run_through_ray_matches_the_local_executor(cluster: Cluster, tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    common = ["--model", "mixed", "--puzzles", "hanoi,waterjug,sudoku", "--levels", "1,2", "--instances-per-level", "2",
              "--samples", "3", "--cpu", "1"]
    with start_mock_server() as server:
        code, _, err = run_cli(capsys, "run", "--base-url", server.url, *common, "--out", str(tmp_path / "local"))
        assert code == 0, err
        code, _, err = run_cli(capsys, "run", "--base-url", server.url, *common, "--executor", "ray", "--ray-address",
                               cluster.address, "--out", str(tmp_path / "ray"))
        assert code == 0, err
    assert err.count("sandbox workers") == 2 and err.count("skipped: no Docker engine at unix:///nonexistent") == 1, err
    local = rows(tmp_path / "local")
    assert rows(tmp_path / "ray") == local and len(local) == (2 + 4 + 4) * 3  # distinct instances (Hanoi's: one a level) × samples
    assert {row[6] for row in local} >= {"legal", "rule_violation"}


@pytest.mark.docker
def test_check_through_ray_matches_the_local_executor(cluster: Cluster, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    solver = tmp_path / "hanoi_solver.py"
    solver.write_text(oracle_source("hanoi"))
    argv = ["check", str(solver), "--puzzle", "hanoi", "--levels", "1-3", "--seeds", "1-8", "--json"]
    results = []
    for executor in (["--executor", "local"], ["--executor", "ray", "--ray-address", cluster.address]):
        code, out, err = run_cli(capsys, *argv, *executor)
        assert code == 0, err
        results.append([(r["id"], r["status"], r["detail"]) for r in json.loads(out)["results"]])
    assert results[0] == results[1] and len(results[0]) == 24 and {status for _, status, _ in results[0]} == {"legal"}


class SlowSimulated(fakes.Simulated):
    """The mock programs' facts, each taking a little while, so an actor can be killed mid-run."""

    def __call__(self, source: str, instance: dict[str, Any]) -> Facts:
        time.sleep(0.05)
        return super().__call__(source, instance)


def slow_fake(limits: Limits, workers: int) -> FakeBackend:
    return FakeBackend(SlowSimulated(), workers=workers, limits=limits)


def test_an_actor_killed_mid_run_leaves_a_complete_store_with_each_execution_once(cluster: Cluster, tmp_path: Path) -> None:
    spec = RunSpec(models=("mixed",), puzzles=("hanoi", "waterjug", "river"), levels=(1, 2, 3), instances_per_level=3,
                   samples=4, out=tmp_path / "local")
    with FakeBackend(fakes.Simulated(), workers=2) as local:
        plan, _ = fakes.run_plan(spec, {"mixed": fakes.FakeChat("mixed")}, local)
    with RayBackend(Limits(), address=cluster.address, factory=slow_fake) as sandbox:
        assert len(sandbox.nodes) == 3 and all(node.problem is None for node in sandbox.nodes)  # a fake needs no Docker
        victim = sandbox._actors[0]
        killer = threading.Timer(KILL_AFTER_S, os.kill, (victim.pid, signal.SIGKILL))
        killer.start()
        started = time.perf_counter()
        fakes.run_plan(replace(spec, out=tmp_path / "ray"), {"mixed": fakes.FakeChat("mixed")}, sandbox)
        killer.join()
        assert time.perf_counter() - started > 2 * KILL_AFTER_S and sandbox.retried >= 1  # the kill landed mid-run
    killed = rows(tmp_path / "ray")
    assert killed == rows(tmp_path / "local") and len(killed) == plan.executions
    assert not any(row[6] == "sandbox_error" for row in killed)  # the lost tasks ran again on a live actor


@pytest.fixture
def registry(tmp_path: Path) -> Iterator[str]:
    """Debian's docker-registry on a free loopback port (Docker trusts loopback registries over plain HTTP)."""
    server = Path("/usr/bin/docker-registry")
    if not server.is_file():
        pytest.fail(f"{server} is missing: run scripts/ensure-registry (as root) to install Debian's docker-registry")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = tmp_path / "registry.yml"
    config.write_text(f"version: 0.1\nstorage:\n  filesystem:\n    rootdirectory: {tmp_path / 'blobs'}\n"
                      f"http:\n  addr: 127.0.0.1:{port}\n")
    process = subprocess.Popen([str(server), "serve", str(config)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/v2/", timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        yield f"127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(10)


@pytest.mark.docker
def test_every_sandbox_node_builds_the_image_and_one_without_docker_is_named(cluster: Cluster,
                                                                             capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "sandbox", "build", "--ray-address", cluster.address)
    text = " ".join(out.split())
    assert code == 3 and text.count("image ready") == 2 and text.count("FAIL") == 1, out + err
    assert "no Docker engine at unix:///nonexistent/docker.sock" in text


@pytest.mark.docker
def test_nodes_pull_the_image_from_a_registry(cluster: Cluster, registry: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "sandbox", "build", "--ray-address", cluster.address, "--registry",
                             f"{registry}/codebench-sandbox:ci")
    text = " ".join(out.split())
    assert code == 3 and text.count("image ready") == 2 and text.count("FAIL") == 1, out + err
    tags = json.loads(urllib.request.urlopen(f"http://{registry}/v2/codebench-sandbox/tags/list", timeout=10).read())
    assert tags["tags"] == ["ci"] and f"pushing {registry}/codebench-sandbox:ci" in err


@pytest.mark.docker
def test_without_an_address_ray_starts_its_own_instance_even_where_a_dead_cluster_is_recorded(tmp_path: Path) -> None:
    """A killed `ray start` (or a killed test cluster) leaves /tmp/ray/ray_current_cluster behind; Ray's own default
    would try to join that dead cluster, and the run would fail before it began."""
    ray_tmp = Path(tempfile.mkdtemp(prefix="cbray", dir="/tmp"))  # short: Ray's socket paths must fit 107 bytes
    try:
        (ray_tmp / "ray").mkdir()
        (ray_tmp / "ray" / "ray_current_cluster").write_text("127.0.0.1:9\n")  # nothing listens on the discard port
        with start_mock_server() as server:
            done = subprocess.run([sys.executable, "-m", "codebench", "run", "--base-url", server.url, "--model", "oracle",
                                   "--puzzles", "hanoi", "--levels", "1", "--instances-per-level", "1", "--samples", "1",
                                   "--executor", "ray", "--workers", "1", "--out", str(tmp_path)],
                                  env={**os.environ, "RAY_TMPDIR": str(ray_tmp)}, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr[-3000:]
        assert [row[6] for row in rows(tmp_path)] == ["legal"]
    finally:
        shutil.rmtree(ray_tmp, ignore_errors=True)
