"""A local worker's cgroup: the kernel holds its memory limit (shared memory, memfds and tmpfs pages included), its
process limit, and counts its CPU, as Docker's cgroup does for a container.

Version 1 (a memory, a cpuacct and a pids hierarchy) and version 2 (one unified tree with those controllers
enabled) are both supported; each worker's cgroup is made under this process's own, so the limits its parent
imposes still apply. The supervisor inside the sandbox reads the counters through read-only binds of these folders.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from ..errors import SandboxUnavailableError

ROOT = Path("/sys/fs/cgroup")
V1_CONTROLLERS = ("memory", "cpuacct", "pids")
REMOVE_TIMEOUT_S = 5.0  # a torn-down namespace releases its tmpfs pages a moment after its last process


def _own_paths() -> dict[str, str]:
    """This process's cgroup path per v1 controller, and "" → its v2 path."""
    paths: dict[str, str] = {}
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        for controller in controllers.split(",") if controllers else [""]:
            paths[controller] = path
    return paths


class WorkerCgroup:
    """The cgroup folders of one worker, made on creation and removed by `remove()`.

    Raises (on creation):
        SandboxUnavailableError: no writable cgroup hierarchy with these controllers (the message says which).
    """

    def __init__(self, name: str, memory_bytes: int, pids: int) -> None:
        own = _own_paths()
        self.folders: dict[str, Path] = {}  # controller ("" for v2) → its folder
        try:
            if all((ROOT / c).is_dir() for c in V1_CONTROLLERS) and all(c in own for c in V1_CONTROLLERS):
                for controller in V1_CONTROLLERS:
                    self.folders[controller] = self._make(ROOT / controller / own[controller].lstrip("/") / name)
                memory = self.folders["memory"]
                _write(memory / "memory.limit_in_bytes", memory_bytes)
                if (memory / "memory.memsw.limit_in_bytes").exists():  # without it there is no swap to escape into
                    _write(memory / "memory.memsw.limit_in_bytes", memory_bytes)
                _write(self.folders["pids"] / "pids.max", pids)
            elif (ROOT / "cgroup.controllers").is_file():
                folder = self.folders[""] = self._make(ROOT / own.get("", "/").lstrip("/") / name)
                missing = {"memory", "cpu", "pids"} - set((folder / "cgroup.controllers").read_text().split())
                if missing:
                    raise OSError(f"controllers {', '.join(sorted(missing))} are not delegated to {folder.parent}")
                _write(folder / "memory.max", memory_bytes)
                _write(folder / "memory.swap.max", 0)
                _write(folder / "pids.max", pids)
            else:
                raise OSError("no cgroup v1 memory/cpuacct/pids hierarchy and no cgroup v2 tree under /sys/fs/cgroup")
        except OSError as exc:
            self.remove()
            raise SandboxUnavailableError(f"the local sandbox cannot make its cgroup ({exc}); it needs root and a writable "
                                          "/sys/fs/cgroup, or use the docker backend") from None

    def _make(self, folder: Path) -> Path:
        folder.mkdir()
        return folder

    def join(self) -> None:
        """Move the calling process into every folder (called in the sandbox's process before it execs)."""
        pid = str(os.getpid()).encode()
        for folder in self.folders.values():
            fd = os.open(folder / "cgroup.procs", os.O_WRONLY)
            try:
                os.write(fd, pid)
            finally:
                os.close(fd)

    def binds(self) -> list[tuple[Path, str]]:
        """(folder, where the supervisor reads it): its `--cgroup /sys/fs/cgroup` finds the counters there."""
        return [(folder, str(ROOT / controller) if controller else str(ROOT)) for controller, folder in self.folders.items()
                if controller != "pids"]

    def remove(self) -> None:
        """Remove the folders once their last process is gone (retried briefly: the kernel releases pages late)."""
        deadline = time.monotonic() + REMOVE_TIMEOUT_S
        for folder in list(self.folders.values()):
            while True:
                try:
                    folder.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    if time.monotonic() > deadline:
                        break  # left behind empty: it holds nothing and costs nothing
                    time.sleep(0.02)
        self.folders.clear()


def _write(path: Path, value: int) -> None:
    path.write_text(str(value))
