"""The Docker orphan sweep (run at every Docker backend's start, and by `codebench sandbox cleanup`) takes containers
that vanish while it works in its stride (issue 26): one removed between the listing and its inspection, one removed
between its inspection and the sweep's own removal; and the session-socket folders a dead run left."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

import pytest

from codebench.sandbox._docker import CHANNELS_PREFIX, IMAGE, LABEL, connect, hardening, sweep_orphans
from codebench.types import Limits

pytestmark = pytest.mark.docker


def test_the_orphan_sweep_tolerates_containers_that_vanish_during_it() -> None:
    gone = subprocess.Popen(["true"])
    gone.wait()  # a pid whose owner is dead: its containers are orphans
    labels = {f"{LABEL}.owner": f"{socket.gethostname()}:{gone.pid}", f"{LABEL}.run": "vanishing", f"{LABEL}.role": "worker"}
    client = connect()
    try:
        orphans = [client.containers.run(IMAGE, ["python3", "-c", "import time; time.sleep(120)"], detach=True, labels=labels,
                                         **hardening(Limits())).id for _ in range(3)]
        inspect, remove = client.api.inspect_container, client.api.remove_container

        def vanishing_on_inspect(container: str, *args, **kwargs):
            if container == orphans[0]:
                remove(container, force=True)  # someone else's sweep, between the listing and this inspection
            return inspect(container, *args, **kwargs)

        def vanishing_on_remove(container: str, *args, **kwargs):
            if container == orphans[1]:
                remove(container, force=True)  # between the inspection and our removal
            return remove(container, *args, **kwargs)

        client.api.inspect_container, client.api.remove_container = vanishing_on_inspect, vanishing_on_remove
        assert sweep_orphans(client) >= 1  # the third, and any real orphan of this host
        client.api.inspect_container, client.api.remove_container = inspect, remove
        assert client.containers.list(all=True, filters={"label": f"{LABEL}.run=vanishing"}) == []
    finally:
        for container in client.containers.list(all=True, filters={"label": f"{LABEL}.run=vanishing"}):
            container.remove(force=True)
        client.close()


def test_the_sweep_removes_the_session_socket_folders_of_dead_processes_only() -> None:
    """A killed run leaves its workers' socket folders behind in the temporary folder: the next sweep removes those of
    a process that is gone, never one of a live run (this one's)."""
    gone = subprocess.Popen(["true"])
    gone.wait()
    dead = Path(tempfile.mkdtemp(prefix=f"{CHANNELS_PREFIX}{gone.pid}-", suffix="-"))
    (dead / "0.sock").touch()
    live = Path(tempfile.mkdtemp(prefix=f"{CHANNELS_PREFIX}{os.getpid()}-", suffix="-"))
    client = connect()
    try:
        sweep_orphans(client)
        assert (dead.exists(), live.exists()) == (False, True)
    finally:
        client.close()
        shutil.rmtree(dead, ignore_errors=True)
        shutil.rmtree(live, ignore_errors=True)
