"""Local backend for machines without Docker: each worker is the trusted supervisor inside bubblewrap's namespaces.

A worker session is one `bwrap` process, started by root without a user namespace and left only CAP_SETUID and
CAP_SETGID (as the Docker worker is): private pid, IPC (System V, POSIX queues), network (its own loopback, nothing
else), UTS and mount namespaces; a read-only view of /usr and of the Python installation only (no checkout, no home,
no other process), a fresh tmpfs /tmp and /dev/shm per session. Programs run as the worker's own unused uid, forked
from the warm supervisor exactly as in the image; the worker's cgroup (`_cgroup.py`) holds the memory limit (shared
memory, memfds and tmpfs pages included) and the process limit, and counts CPU in the kernel. Between instances the
supervisor resets and checks the slate as in Docker; a worker is recycled by starting a new session (~25 ms).

Needs Linux, root (for the second uid and the cgroup) and `bwrap` (Debian's bubblewrap package); otherwise it
refuses and says why. `--backend unsafe-local` keeps the older, weaker backend, for trusted code only.
"""

from __future__ import annotations

import itertools
import os
import shutil
import sys
from pathlib import Path

from ..errors import SandboxUnavailableError
from ..types import MIB, Limits
from ._cgroup import WorkerCgroup
from ._files import SUPERVISOR, shipped
from ._pool import PooledBackend, WorkerPool
from ._session import PipeTransport, Session
from ._uids import claim_uid

INSIDE = "/opt/codebench"  # where the supervisor and the packages programs may import appear in the sandbox
SHARED_PACKAGES = ("numpy", "numpy.libs")  # site-packages entries bound read-only, as the image ships numpy
SUPERVISOR_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "OPENBLAS_NUM_THREADS": "1",
                  "OMP_NUM_THREADS": "1", "MALLOC_ARENA_MAX": "2"}  # forked children keep the warm allocator's setting
# `python -I -c PREAMBLE SITE SUPERVISOR ARGS…`: the supervisor leads a session and process group of its own (under
# bwrap's init it would share group 1, and a program's killpg(getpgid(getppid())) would be kill(-1)), the bound packages
# go first on the path, then the supervisor runs as main
PREAMBLE = ("import os, runpy, sys; os.setsid(); sys.path.insert(0, sys.argv.pop(1)); sys.argv.pop(0); "
            "runpy.run_path(sys.argv[0], run_name='__main__')")
NO_BWRAP = ("the local sandbox needs bubblewrap: sudo scripts/ensure-bubblewrap (installs Debian's bubblewrap), or use "
            "the docker backend (--backend unsafe-local runs trusted code without isolation)")


def _python_home() -> Path:
    """The installation the interpreter runs from (a venv's base): bound read-only at the same path."""
    return Path(sys.base_prefix).resolve()


def _site_packages() -> Path | None:
    """The folder holding numpy, if this Python has it."""
    try:
        import numpy
    except ImportError:
        return None
    return Path(numpy.__file__).resolve().parents[1]


def bwrap_command(uid: int, limits: Limits, cgroup: WorkerCgroup) -> list[str]:
    """The `bwrap` command line of one worker session: the namespaces, the read-only world, then the supervisor."""
    home, site = _python_home(), _site_packages()
    argv = ["bwrap", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
            "--die-with-parent", "--new-session", "--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID",
            "--hostname", "sandbox"]
    for name in ("usr", "bin", "lib", "lib64", "sbin"):  # the system, read-only (symlinks such as /lib -> usr/lib kept)
        path = Path("/") / name
        if path.is_symlink():
            argv += ["--symlink", os.readlink(path), str(path)]
        elif path.is_dir():
            argv += ["--ro-bind", str(path), str(path)]
    for ancestor in reversed(home.parents[:-1]):  # bwrap would copy a parent's mode (/root is 0700): make them passable
        argv += ["--perms", "0755", "--dir", str(ancestor)]
    argv += ["--ro-bind", str(home), str(home), "--ro-bind", str(shipped(SUPERVISOR)), f"{INSIDE}/supervisor.py"]
    if site is not None:
        argv += [arg for name in SHARED_PACKAGES if (site / name).exists()
                 for arg in ("--ro-bind", str(site / name), f"{INSIDE}/site/{name}")]
    argv += ["--proc", "/proc", "--dev", "/dev", "--mqueue", "/dev/mqueue",
             "--perms", "1777", "--size", str(16 * MIB), "--tmpfs", "/dev/shm",
             "--perms", "1777", "--size", str(limits.tmpfs_mib * MIB), "--tmpfs", "/tmp"]
    for folder, inside in cgroup.binds():
        argv += ["--ro-bind", str(folder), inside]
    argv += ["--dir", "/var/tmp", "--remount-ro", "/"]  # as in the image: the root, /var/tmp included, is read-only
    python = str(Path(sys.executable).resolve())  # inside the home bound above
    return argv + [python, "-I", "-c", PREAMBLE, f"{INSIDE}/site", f"{INSIDE}/supervisor.py", "--solver-uid", str(uid),
                   "--scratch", "/tmp/work", "--wipe", "/tmp", "--cgroup", "/sys/fs/cgroup"]


class LocalWorker:
    """One bubblewrap session at a time, in the worker's own cgroup and with its own solver uid."""

    def __init__(self, limits: Limits, name: str) -> None:
        self.limits = limits
        self.uid, lock_fd = claim_uid()
        self.lock_fd: int | None = lock_fd
        try:
            self.cgroup = WorkerCgroup(name, limits.worker_memory_mib * MIB, 2 * limits.processes)
        except BaseException:
            os.close(lock_fd)
            raise

    def open_session(self) -> Session:
        return Session(PipeTransport(bwrap_command(self.uid, self.limits, self.cgroup), env=SUPERVISOR_ENV,
                                     preexec_fn=self.cgroup.join))

    def recycle(self) -> None:
        """Nothing to rebuild: every session is a new sandbox with fresh namespaces and file systems."""

    def close(self) -> None:
        self.cgroup.remove()
        if self.lock_fd is not None:
            os.close(self.lock_fd)
            self.lock_fd = None  # the pool closes its workers once more when the backend is closed twice


_WORKER_NUMBERS = itertools.count()  # a worker's cgroup is named by its process and number: two backends never collide


class LocalBackend(PooledBackend):
    """`workers` bubblewrap sandboxes on this machine (default one per core); see the module docstring."""

    name = "local"

    def __init__(self, limits: Limits, workers: int | None = None) -> None:
        super().__init__(limits)
        refusal = why_not_here()
        if refusal:
            raise SandboxUnavailableError(refusal)
        started: list[LocalWorker] = []
        try:
            for _ in range(workers or os.cpu_count() or 1):
                started.append(LocalWorker(limits, f"codebench-{os.getpid()}-{next(_WORKER_NUMBERS)}"))
        except BaseException:
            for worker in started:
                worker.close()
            raise
        self.pool = WorkerPool(started, limits, limits.for_supervisor())


def why_not_here() -> str | None:
    """Why no worker can be made on this machine, or None."""
    if not sys.platform.startswith("linux") or not hasattr(os, "pidfd_open"):
        return "the local sandbox needs Linux 5.3 or newer; elsewhere use the docker backend"
    if os.geteuid() != 0:
        return ("the local sandbox needs root (a separate uid for programs, and a cgroup for their memory and CPU); "
                "run as root, use the docker backend, or --backend unsafe-local for trusted code")
    if shutil.which("bwrap") is None:
        return NO_BWRAP
    try:
        shipped(SUPERVISOR)
    except SandboxUnavailableError as exc:
        return str(exc)
    return None
