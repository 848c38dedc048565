"""Running untrusted solver programs: backends (docker, local), limits in, recorded facts out.

`get_backend(name)` imports the backend's heavy dependencies (docker SDK, psutil) only when asked.
"""

from __future__ import annotations

from ._pool import SandboxError, SandboxUnavailableError, WorkerPool
from ._types import Facts, Limits

BACKENDS = ("docker", "local")


def get_backend(name: str, limits: Limits | None = None, workers: int | None = None) -> WorkerPool:
    """Start a backend by name; use it as a context manager (`with get_backend("docker") as sandbox:`).

    Raises:
        SandboxUnavailableError: the backend cannot run here (the message says how to fix it).
        ValueError: an unknown backend name.
    """
    if name == "docker":
        from ._docker import DockerBackend

        return DockerBackend(limits, workers)
    if name == "local":
        from ._local import LocalBackend

        return LocalBackend(limits, workers)
    raise ValueError(f"unknown sandbox backend {name!r}; choose one of {', '.join(BACKENDS)}")


__all__ = ["BACKENDS", "Facts", "Limits", "SandboxError", "SandboxUnavailableError", "WorkerPool", "get_backend"]
