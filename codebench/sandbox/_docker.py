"""Docker backend: a few warm, hardened worker containers, each running the trusted supervisor.

The only module that imports the docker SDK. Container creation stays off the hot path: a
program is loaded once per container (one `docker exec`), then each instance costs one fork, and
the supervisor's frames travel over a unix socket it dials back on, never through the engine.
"""

from __future__ import annotations

import itertools
import os
import random
import shutil
import socket
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import docker
import docker.errors
import requests
from docker.types import LogConfig, Mount, Ulimit

from ..errors import SandboxError, SandboxUnavailableError
from ..types import MIB, Limits
from ._pool import PooledBackend, WorkerPool
from ._session import READY_TIMEOUT_S, Session, SessionBroken, SocketTransport

IMAGE = "codebench-sandbox:latest"
API_VERSION = "1.41"  # Docker 20.10, Debian 12's docker.io; newer engines still serve it
# The kernel counts RLIMIT_NPROC per uid across every container: a fork bomb in one worker would starve
# the others if they shared a solver uid. Each worker gets its own, drawn at random so that concurrent
# runs on one host do not share one either (the supervisor needs no user account for it).
SOLVER_UIDS = range(20000, 60000)
LABEL = "org.codebench"  # every container carries {LABEL}.owner, {LABEL}.run, {LABEL}.role
CHANNELS = "/run/codebench"  # in a worker: the host's folder of session sockets, read-only, reachable by root alone
CHANNELS_PREFIX = "codebench-channels-"  # such a folder on the host: {prefix}{pid}-{random}-, in the temporary folder


def supervisor_command(solver_uid: int) -> list[str]:
    return ["python3", "-I", "/opt/codebench/supervisor.py", "--solver-uid", str(solver_uid),
            "--scratch", "/tmp/work", "--wipe", "/tmp", "--cgroup", "/sys/fs/cgroup"]


ENGINE_FIX = "start the Docker engine: sudo scripts/ensure-docker (installs docker.io and starts dockerd)"


def connect() -> docker.DockerClient:
    """A client for the local engine.

    Raises:
        SandboxUnavailableError: no engine answers (the message says how to start one).
    """
    _probe_socket()
    client = docker.from_env(version=API_VERSION, timeout=60)  # a fixed version: no probe before ping
    try:
        client.ping()
    except (docker.errors.DockerException, requests.exceptions.RequestException) as exc:
        client.close()
        raise SandboxUnavailableError(f"the Docker engine does not answer ({exc}); {ENGINE_FIX}") from None
    return client


def _probe_socket() -> None:
    """Fail fast, and without leaking a socket, when a unix-socket engine is not listening."""
    host = os.environ.get("DOCKER_HOST", "unix:///var/run/docker.sock")
    if not host.startswith("unix://"):
        return
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        try:
            probe.connect(host.removeprefix("unix://"))
        except OSError as exc:
            raise SandboxUnavailableError(f"no Docker engine at {host} ({exc.strerror}); {ENGINE_FIX}") from None


def owner_label() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def hardening(limits: Limits) -> dict[str, Any]:
    """Every `docker run` flag that applies to an untrusted, offline Python program."""
    memory = f"{limits.worker_memory_mib}m"
    return {
        "network_mode": "none",
        "read_only": True,
        "tmpfs": {"/tmp": f"rw,nosuid,nodev,size={limits.tmpfs_mib}m,mode=1777"},
        "cap_drop": ["ALL"],
        "cap_add": ["SETUID", "SETGID"],  # the root supervisor drops each child to the solver uid
        "security_opt": ["no-new-privileges"],
        "pids_limit": 2 * limits.processes,
        "mem_limit": memory,
        "memswap_limit": memory,
        "nano_cpus": 1_000_000_000,
        "ulimits": [Ulimit(name="nofile", soft=256, hard=256), Ulimit(name="core", soft=0, hard=0),
                    Ulimit(name="fsize", soft=limits.file_bytes, hard=limits.file_bytes)],
        "init": True,
        "log_config": LogConfig(type="none"),
        "shm_size": 16 * MIB,
        "environment": {},
        "user": "0:0",
    }


class DockerWorker:
    """One warm hardened container; recycled (removed and recreated) whenever it misbehaves, never after close()."""

    def __init__(self, client: docker.DockerClient, image: str, limits: Limits, run_id: str, cpuset: str | None,
                 solver_uid: int) -> None:
        self.client, self.image, self.limits, self.run_id, self.cpuset = client, image, limits, run_id, cpuset
        self.solver_uid = solver_uid
        self.container: Any = None
        self.closed = False
        # root's, 0700, bound at CHANNELS read-only; named for this process, so that a sweep finds those of a dead one
        self.channels = Path(tempfile.mkdtemp(prefix=f"{CHANNELS_PREFIX}{os.getpid()}-", suffix="-"))
        self.sessions = itertools.count()
        self.start()

    def start(self) -> None:
        if self.closed:
            raise SandboxError("the worker is closed")
        labels = {f"{LABEL}.owner": owner_label(), f"{LABEL}.run": self.run_id, f"{LABEL}.role": "worker"}
        try:  # created, then started: `containers.run` would try to pull a missing image (there is no registry here)
            self.container = self.client.containers.create(
                self.image, labels=labels, cpuset_cpus=self.cpuset, **hardening(self.limits),
                mounts=[Mount(CHANNELS, str(self.channels), type="bind", read_only=True)])
            self.container.start()
        except docker.errors.ImageNotFound:
            raise SandboxUnavailableError(f"image {self.image} is missing; build it: codebench sandbox build") from None
        except (docker.errors.DockerException, requests.exceptions.RequestException) as exc:
            raise SandboxError(f"cannot start a worker container: {exc}") from None

    def open_session(self) -> Session:
        """A supervisor started with `docker exec`, speaking over a unix socket it dials back on: its frames never pass
        through the engine (one exec per program; every instance and move then costs no engine round trip)."""
        if self.container is None:  # a recycle that failed: try again now
            self.start()
        name = f"{next(self.sessions)}.sock"
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as listener:
            listener.bind(str(self.channels / name))
            listener.listen(1)
            try:
                exec_id = self.client.api.exec_create(self.container.id, [*supervisor_command(self.solver_uid), "--channel",
                                                      f"{CHANNELS}/{name}"], stdin=False, stdout=False, stderr=False)["Id"]
                self.client.api.exec_start(exec_id, detach=True)
                connection = self._called_back(listener, exec_id)
            except (docker.errors.DockerException, requests.exceptions.RequestException) as exc:
                raise SandboxError(f"docker exec failed: {exc}") from None
            finally:
                (self.channels / name).unlink(missing_ok=True)
        return Session(SocketTransport(connection))

    def _called_back(self, listener: socket.socket, exec_id: str) -> socket.socket:
        """The supervisor's connection, or SessionBroken once its exec has ended without one (or never made one)."""
        deadline = time.monotonic() + READY_TIMEOUT_S
        listener.settimeout(0.25)
        while time.monotonic() < deadline:
            try:
                return listener.accept()[0]
            except TimeoutError:
                state = self.client.api.exec_inspect(exec_id)
                if not state["Running"] and state["ExitCode"] is not None:
                    raise SessionBroken(f"the supervisor exited (status {state['ExitCode']}) before it called back") from None
        raise SessionBroken("the supervisor did not call back in time")

    def recycle(self) -> None:
        self._remove()
        self.start()

    def close(self) -> None:
        self.closed = True
        self._remove()
        shutil.rmtree(self.channels, ignore_errors=True)

    def _remove(self) -> None:
        container, self.container = self.container, None
        if container is not None:
            try:
                container.remove(force=True)
            except (docker.errors.DockerException, requests.exceptions.RequestException):
                pass  # already gone; `codebench sandbox cleanup` sweeps anything left by label


class DockerBackend(PooledBackend):
    """The default sandbox: `workers` warm containers (default one per core), each pinned to a core."""

    name = "docker"

    def __init__(self, limits: Limits, workers: int | None = None) -> None:
        super().__init__(limits)
        self.client = connect()
        sweep_orphans(self.client)
        count = workers or os.cpu_count() or 1
        cores = os.cpu_count() or 1
        run_id = uuid.uuid4().hex[:12]
        started: list[DockerWorker] = []
        try:
            for index, uid in enumerate(random.sample(SOLVER_UIDS, count)):
                started.append(DockerWorker(self.client, IMAGE, limits, run_id, str(index % cores), uid))
        except SandboxError:
            for worker in started:
                worker.close()
            self.client.close()
            raise
        self.pool = WorkerPool(started, limits, limits.for_supervisor())

    def close(self) -> None:
        super().close()
        self.client.close()


def codebench_containers(client: docker.DockerClient) -> list[Any]:
    """Every container with codebench's labels; one removed while they are listed (its run closing, another sweep) is
    left out."""
    return client.containers.list(all=True, filters={"label": f"{LABEL}.role"}, ignore_removed=True)


def remove_container(container: Any) -> bool:
    """Force-remove `container`; False when it was gone already, or being removed by someone else."""
    try:
        container.remove(force=True)
    except docker.errors.NotFound:
        return False
    except docker.errors.APIError as exc:
        if exc.status_code == 409:  # "removal of container … is already in progress"
            return False
        raise
    return True


def sweep_orphans(client: docker.DockerClient) -> int:
    """Remove worker containers whose owning process on this host is gone (and their session-socket folders); returns
    how many containers."""
    removed = 0
    host = socket.gethostname()
    for container in codebench_containers(client):
        owner = container.labels.get(f"{LABEL}.owner", "")
        owner_host, _, pid = owner.rpartition(":")
        if owner_host == host and pid.isdigit() and not _alive(int(pid)):
            removed += remove_container(container)
    for folder in Path(tempfile.gettempdir()).glob(f"{CHANNELS_PREFIX}*-"):  # named for the process that made them
        pid = folder.name.removeprefix(CHANNELS_PREFIX).split("-")[0]
        if pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(folder, ignore_errors=True)
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
