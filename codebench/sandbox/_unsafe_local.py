"""`--backend unsafe-local`, for trusted code only: the trusted supervisor as a plain host subprocess per worker.

No boundary, and it says so once on stderr: no namespaces, the program shares the host's kernel, network and file
system (the `local` backend isolates with bubblewrap instead). What restrains it:

- the supervisor's per-child rlimits (CPU, file size, open files, core), plus RLIMIT_AS (memory
  limit + headroom for the interpreter) because there is no memory cgroup;
- as root, each worker runs its programs as its own unused uid (`_uids.py`). Files that uid leaves at the top of
  /tmp, /var/tmp or /dev/shm are removed after each run.
  Not as root, programs run as the user, and the supervisor (a child subreaper) kills its descendants;
- the watchdog (`_watchdog.py`): summed RSS past the memory limit → runtime_error `oom`, summed CPU
  of all the program's processes past the CPU limit → timeout `cpu_limit` (as the cgroup counts it
  in Docker), more than `processes` processes → runtime_error `process_limit`;
- the static guard (`_guard.py`), which refuses some imports and attributes before anything runs.

A MemoryError raised by the program also counts as `oom`: under RLIMIT_AS that is how running out
of memory usually shows. A game's player is not watched: its moves run under the supervisor's own move and game
limits and RLIMIT_AS only.
"""

from __future__ import annotations

import logging
import os
import shutil
import sys
import tempfile
import threading
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import psutil

from ..errors import SandboxUnavailableError
from ..types import MIB, Batch, Facts, Limits, Result
from . import Deliver, _guard
from ._files import SUPERVISOR, shipped
from ._local import SUPERVISOR_ENV
from ._pool import PooledBackend, WorkerPool
from ._session import PipeTransport, Session
from ._uids import claim_uid
from ._watchdog import Watchdog, kill

# The solver uid may be unable to read the Python installation (a pyenv under /root, say): the supervisor
# is started by this preamble, which first imports what programs may use (the guard's allow-list) and what
# the supervisor's child needs after dropping to that uid, so every forked child finds them loaded.
PREAMBLE = ("import runpy, sys\n"
            "for name in sys.argv[1].split(','):\n"
            "    try:\n"
            "        __import__(name)\n"
            "    except ImportError:\n"
            "        pass\n"
            "sys.argv = sys.argv[2:]\n"
            "runpy.run_path(sys.argv[0], run_name='__main__')\n")
PRELOADED = sorted(_guard.ALLOWED_MODULES | {
    "collections.abc", "_strptime", "ctypes",  # time.strptime's helper; the supervisor's prctl
    "numpy.linalg", "numpy.fft", "numpy.random", "numpy.polynomial", "numpy.ma",  # numpy 2 loads these lazily
    *(f"encodings.{codec}" for codec in ("ascii", "latin_1", "utf_16", "utf_32", "utf_8_sig", "cp437", "cp1252",
                                         "unicode_escape", "raw_unicode_escape")),
})
ADDRESS_SPACE_HEADROOM_MIB = 256  # the warm interpreter with numpy maps ~100 MiB; threads map stacks
SWEPT_DIRS = ("/tmp", "/var/tmp", "/dev/shm")
NOTICE = ("codebench: the unsafe-local sandbox does not isolate programs: they share this machine's kernel, network "
          "and files, restrained only by rlimits, a process watchdog, a separate uid (when run as root) and a static "
          "import guard. Use it for programs you trust; for untrusted ones use the local backend (bubblewrap) or the "
          "docker backend.")

log = logging.getLogger("codebench.sandbox")
_announced = threading.Event()


def announce() -> None:
    """Say once per process, on stderr through logging, that this isolation is weaker."""
    if not _announced.is_set():
        _announced.set()
        log.warning(NOTICE)


class WatchedSession(Session):
    """A supervisor session whose requests run under the worker's watchdog; cleans its folder on close."""

    def __init__(self, transport: PipeTransport, watchdog: Watchdog, home: str) -> None:
        self.pid = transport.process.pid
        self.watchdog = watchdog
        self.home = home
        super().__init__(transport)

    def load(self, source: str, entry: str, limits: Limits, enforced: dict[str, Any]) -> Facts:
        return self._watched(lambda: super(WatchedSession, self).load(source, entry, limits, enforced))

    def run(self, instance: dict[str, Any], limits: Limits) -> Facts:
        return self._watched(lambda: super(WatchedSession, self).run(instance, limits))

    def _watched(self, request: Callable[[], Facts]) -> Facts:
        self.watchdog.arm(self.pid)
        try:
            facts = request()
        finally:
            reason = self.watchdog.disarm()
        if self.watchdog.uid is not None:
            sweep_files(self.watchdog.uid)
        memory_error = facts.result.get("kind") == "exception" and facts.result.get("type") == "MemoryError"
        if reason == "oom" or memory_error:
            return replace(facts, oom=True)
        return replace(facts, killed=reason) if reason and not facts.killed else facts

    def close(self) -> bool:
        try:
            stray = self.watchdog.program(psutil.Process(self.pid))
        except psutil.Error:
            stray = []
        try:
            return super().close()  # every session has its own folder and supervisor: nothing is reused either way
        finally:
            kill(stray)  # a supervisor that had to be killed could not clean up after its program
            if self.watchdog.uid is not None:
                sweep_files(self.watchdog.uid)
            shutil.rmtree(self.home, ignore_errors=True)


class UnsafeLocalWorker:
    """One supervisor subprocess at a time (a fresh one per session), with its own folder and watchdog."""

    def __init__(self, limits: Limits, uid: int | None, lock_fd: int | None) -> None:
        self.uid, self.lock_fd = uid, lock_fd
        self.watchdog = Watchdog(limits, uid)

    def open_session(self) -> Session:
        home = tempfile.mkdtemp(prefix="codebench-local-")
        work = os.path.join(home, "work")
        os.mkdir(work, 0o700)
        argv = [sys.executable, "-I", "-c", PREAMBLE, ",".join(PRELOADED), str(shipped(SUPERVISOR)), "--scratch", work, "--wipe", work]
        if self.uid is not None:
            os.chmod(home, 0o711)
            os.chown(work, self.uid, self.uid)
            argv += ["--solver-uid", str(self.uid)]
        transport = None
        try:
            transport = PipeTransport(argv, env=SUPERVISOR_ENV)
            return WatchedSession(transport, self.watchdog, home)
        except BaseException:
            if transport is not None:
                transport.close()
            shutil.rmtree(home, ignore_errors=True)
            raise

    def recycle(self) -> None:
        """Nothing to rebuild: every session starts its own supervisor and folder."""

    def close(self) -> None:
        self.watchdog.stop()
        if self.lock_fd is not None:
            os.close(self.lock_fd)
            self.lock_fd = None


class UnsafeLocalBackend(PooledBackend):
    """`workers` supervisors on the host (default one per core); see the module docstring for what restrains them."""

    name = "unsafe-local"

    def __init__(self, limits: Limits, workers: int | None = None) -> None:
        super().__init__(limits)
        if not sys.platform.startswith("linux") or not hasattr(os, "pidfd_open"):
            raise SandboxUnavailableError("the unsafe-local sandbox needs Linux (5.3 or newer); elsewhere use the docker backend")
        shipped(SUPERVISOR)  # a broken install is refused here, before any worker starts
        count = workers or os.cpu_count() or 1
        claims: list[tuple[int | None, int | None]] = []
        try:
            for _ in range(count):
                claims.append(claim_uid() if os.geteuid() == 0 else (None, None))
        except BaseException:
            for _, fd in claims:
                if fd is not None:
                    os.close(fd)
            raise
        announce()
        # No memory cgroup here: the address space of each process is capped instead.
        enforced = {**limits.for_supervisor(), "address_space_bytes": (limits.memory_mib + ADDRESS_SPACE_HEADROOM_MIB) * MIB}
        self.pool = WorkerPool([UnsafeLocalWorker(limits, uid, fd) for uid, fd in claims], limits, enforced)

    def submit(self, batch: Batch, deliver: Deliver) -> None:
        """As the protocol says; a program the guard refuses never starts (its load facts stand for every task)."""
        refused = _guard.check(batch.program.source)
        if refused is None:
            super().submit(batch, deliver)
            return
        for task in batch.tasks:
            deliver(Result(batch, task, refused))


def sweep_files(uid: int) -> None:
    """Remove what `uid` left at the top of the shared temporary folders (its processes are all dead)."""
    for folder in SWEPT_DIRS:
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.stat(follow_symlinks=False).st_uid != uid:
                    continue
                if entry.is_dir(follow_symlinks=False):
                    shutil.rmtree(entry.path, ignore_errors=True)
                else:
                    os.unlink(entry.path)
            except OSError:
                continue
