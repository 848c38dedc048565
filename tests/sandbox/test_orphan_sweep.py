"""The Docker orphan sweep (run at every Docker backend's start, and by `codebench sandbox cleanup`) takes containers
that vanish while it works in its stride (issue 26): one removed between the listing and its inspection, one removed
between its inspection and the sweep's own removal."""

from __future__ import annotations

import socket
import subprocess

import pytest

from codebench.sandbox._docker import IMAGE, LABEL, connect, hardening, sweep_orphans
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
