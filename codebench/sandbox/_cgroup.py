"""A local worker's cgroup: the kernel holds its memory limit (shared memory, memfds and tmpfs pages included), its
process limit, counts its CPU, and gives it a CPU share of its own, as Docker's cgroup does for a container.

Version 1 (a memory, a cpu, a cpuacct and a pids hierarchy; cpu and cpuacct may be one) and version 2 (one unified
tree with those controllers enabled) are both supported; each worker's cgroup is made under this process's own, so the
limits its parent imposes still apply. The supervisor inside the sandbox reads the counters through read-only binds of
these folders.

Every worker gets the same CPU weight (v1 cpu.shares, v2 cpu.weight): the scheduler divides a busy machine between
worker cgroups, not between processes, so a program running 40 busy processes gets one worker's share and the
program in the other seat of its game keeps its own. A weight, not pinning: it costs nothing while the other seats
are idle, and holds however many workers share the cores.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from ..errors import SandboxUnavailableError

ROOT = Path("/sys/fs/cgroup")
V1_CONTROLLERS = ("memory", "cpu", "cpuacct", "pids")
V2_CONTROLLERS = {"memory", "cpu", "pids"}
SHARES, WEIGHT = 1024, 100  # every worker's CPU weight (v1, v2): the kernel's default, written so none differs
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
                    folder = ROOT / controller / own[controller].lstrip("/") / name
                    made = [known for known in self.folders.values() if known.resolve() == folder.resolve()]  # cpu,cpuacct
                    self.folders[controller] = made[0] if made else self._make(folder)
                memory = self.folders["memory"]
                _write(memory / "memory.limit_in_bytes", memory_bytes)
                if (memory / "memory.memsw.limit_in_bytes").exists():  # without it there is no swap to escape into
                    _write(memory / "memory.memsw.limit_in_bytes", memory_bytes)
                _write(self.folders["pids"] / "pids.max", pids)
                _write(self.folders["cpu"] / "cpu.shares", SHARES)
            elif (ROOT / "cgroup.controllers").is_file():
                folder = self.folders[""] = self._make(ROOT / own.get("", "/").lstrip("/") / name)
                missing = V2_CONTROLLERS - set((folder / "cgroup.controllers").read_text().split())
                if missing:  # enabled here when the parent may (the root, or a cgroup holding no process itself)
                    _enable(folder.parent, missing)
                _write(folder / "memory.max", memory_bytes)
                _write(folder / "memory.swap.max", 0)
                _write(folder / "pids.max", pids)
                _write(folder / "cpu.weight", WEIGHT)
            else:
                raise OSError("no cgroup v1 memory/cpu/cpuacct/pids hierarchy and no cgroup v2 tree under /sys/fs/cgroup")
        except OSError as exc:
            self.remove()
            raise SandboxUnavailableError(f"the local sandbox cannot make its cgroup ({exc}); it needs root and a writable "
                                          "/sys/fs/cgroup, or use the docker backend") from None

    def _make(self, folder: Path) -> Path:
        """Make `folder`. One there already was left by a run that was killed (pids wrap, and the name holds one): it is
        removed first, which the kernel allows only while nothing runs in it."""
        try:
            folder.mkdir()
        except FileExistsError:
            folder.rmdir()
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
                if controller not in ("cpu", "pids")]

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


def _enable(parent: Path, controllers: set[str]) -> None:
    """Enable v2 `controllers` for the children of `parent`; OSError naming them when the kernel refuses."""
    try:
        (parent / "cgroup.subtree_control").write_text(" ".join(f"+{controller}" for controller in sorted(controllers)))
    except OSError as exc:
        raise OSError(f"controllers {', '.join(sorted(controllers))} are not delegated to {parent} and cannot be enabled "
                      f"there ({exc.strerror})") from None
