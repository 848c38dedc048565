"""The local Ray cluster the Ray executor's tests share: a head and two worker nodes of one sandbox slot each, the last
without a Docker engine (so a docker run skips it by name; a local-backend run uses all three)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import ray
from ray.cluster_utils import Cluster

from codebench.sandbox._ray import SLOTS


@pytest.fixture(scope="session")
def cluster() -> Iterator[Cluster]:
    nodes = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "resources": {SLOTS: 1}})
    nodes.add_node(num_cpus=1, resources={SLOTS: 1})
    nodes.add_node(num_cpus=1, resources={SLOTS: 1}, env_vars={"DOCKER_HOST": "unix:///nonexistent/docker.sock"})
    ray.init(address=nodes.address, log_to_driver=False, configure_logging=False)
    nodes.wait_for_nodes()
    try:
        yield nodes
    finally:
        ray.shutdown()
        nodes.shutdown()
