"""The unsafe-local backend's watchdog: one thread per worker samples the program's processes with psutil.

While a request is armed it sums the RSS and the CPU time of every process of the program (not only
the supervisor's direct child) every 50 ms, and kills them all by pid past the memory, CPU or process
limits, recording why. Summed RSS counts pages shared between processes once per process, so it
errs towards `oom` for programs of many processes.
"""

from __future__ import annotations

import os
import threading

import psutil

from ..types import MIB, Limits
from ._session import SessionBroken

SAMPLE_S = 0.05


class Watchdog:
    """Samples one worker's program processes while a request is armed; kills them past the limits."""

    def __init__(self, limits: Limits, uid: int | None) -> None:
        self.memory_bytes = limits.memory_mib * MIB
        self.cpu_s = limits.cpu_limit_s + 0.5
        self.processes = limits.processes
        self.uid = uid
        self.lock = threading.Lock()
        self.supervisor: psutil.Process | None = None
        self.baseline = 0  # the supervisor's RSS: each forked child starts out sharing it
        self.cpu_seen: dict[tuple[int, float], float] = {}
        self.reason: str | None = None
        self.stopped = threading.Event()
        threading.Thread(target=self.loop, name="codebench-watchdog", daemon=True).start()

    def arm(self, supervisor_pid: int) -> None:
        with self.lock:
            try:
                supervisor = psutil.Process(supervisor_pid)
                self.baseline = supervisor.memory_info().rss
            except psutil.Error as exc:
                raise SessionBroken(f"the supervisor is gone ({exc})") from None
            self.supervisor, self.cpu_seen, self.reason = supervisor, {}, None

    def disarm(self) -> str | None:
        """Stop watching; the reason the watchdog killed the program during the request, if it did."""
        with self.lock:
            self.supervisor = None
            return self.reason

    def loop(self) -> None:
        while not self.stopped.wait(SAMPLE_S):
            with self.lock:
                if self.supervisor is not None and self.reason is None:
                    self.sample(self.supervisor)

    def sample(self, supervisor: psutil.Process) -> None:
        processes = self.program(supervisor)
        rss = 0
        for process in processes:
            try:
                with process.oneshot():
                    rss += process.memory_info().rss
                    times = process.cpu_times()
                    self.cpu_seen[(process.pid, process.create_time())] = times.user + times.system
            except psutil.Error:
                continue
        if rss > self.memory_bytes + self.baseline:
            self.reason = "oom"
        elif sum(self.cpu_seen.values()) > self.cpu_s:
            self.reason = "cpu_limit"
        elif len(processes) > self.processes:
            self.reason = "process_limit"
        if self.reason:
            kill(processes)

    def program(self, supervisor: psutil.Process) -> list[psutil.Process]:
        """The program's processes: its uid's (as root), else the supervisor's descendants; never the
        supervisor's own helpers, which stay in its session while every program process runs in a new one."""
        try:
            if self.uid is None:
                candidates = supervisor.children(recursive=True)
            else:
                candidates = [p for p in psutil.process_iter(["uids"]) if p.info["uids"] and p.info["uids"].real == self.uid]
        except psutil.Error:
            return []
        return [process for process in candidates if _live(process) and _session_of(process.pid) not in (None, supervisor.pid)]

    def stop(self) -> None:
        self.stopped.set()


def _live(process: psutil.Process) -> bool:
    """Not a zombie: a killed orphan waits for init to reap it, its final CPU time already counted."""
    try:
        return process.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def _session_of(pid: int) -> int | None:
    try:
        return os.getsid(pid)
    except OSError:
        return None


def kill(processes: list[psutil.Process]) -> None:
    """SIGKILL each process by pid (psutil checks it is still the same process); never kill(-1)."""
    for process in processes:
        try:
            process.kill()
        except psutil.Error:
            pass
