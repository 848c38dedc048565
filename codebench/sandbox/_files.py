"""The files the sandbox is made from, shipped in the package: the image's Dockerfile, the supervisor and the
offline base's bootstrap, found here and nowhere else.

`image/` holds them as the repository lays them out at its top level (`Dockerfile.sandbox`, `sandbox_images/`): in a
checkout it links there; a wheel holds copies.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import SandboxUnavailableError

IMAGE_SOURCES = Path(__file__).resolve().parent / "image"
IMAGE_FILES = ("Dockerfile.sandbox", "sandbox_images/supervisor.py", "sandbox_images/bootstrap-base.sh")
SUPERVISOR = "sandbox_images/supervisor.py"
REINSTALL = "pip install --force-reinstall codebench-puzzles"


def shipped(name: str, folder: Path | None = None) -> Path:
    """The real path of `name` (one of IMAGE_FILES) in `folder`, by default the package's own copies.

    Raises:
        SandboxUnavailableError: the file is missing (a broken install: the message says how to reinstall).
    """
    path = (folder or IMAGE_SOURCES) / name
    if not path.is_file():
        raise SandboxUnavailableError(f"{path} is missing: this codebench installation is broken; reinstall it ({REINSTALL})")
    return path.resolve()
