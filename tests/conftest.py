"""Shared pytest configuration: tests marked `docker` need the engine and a current sandbox image.

Without them those tests fail (never skip) with the command that fixes it: Docker tests run in CI.
"""

from __future__ import annotations

import functools

import pytest


@functools.cache
def docker_problem() -> str | None:
    """Why Docker tests cannot run here (with the fix), or None when the engine and image are ready."""
    try:
        import docker.errors

        from codebench.errors import SandboxUnavailableError
        from codebench.sandbox._docker import IMAGE, LABEL, connect
        from codebench.sandbox._image import image_digest
    except ImportError as exc:
        return f"{exc}; fix: pip install -e '.[test]'"
    try:
        client = connect()
    except SandboxUnavailableError as exc:
        return str(exc)
    try:
        labels = client.images.get(IMAGE).labels or {}
    except docker.errors.ImageNotFound:
        return f"image {IMAGE} is missing; fix: codebench sandbox build"
    finally:
        client.close()
    if labels.get(f"{LABEL}.digest") != image_digest():
        return f"image {IMAGE} predates the current sandbox_images/ sources; fix: codebench sandbox build"
    return None


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker("docker") is not None and (problem := docker_problem()) is not None:
        pytest.fail(f"this test needs Docker: {problem}", pytrace=False)
