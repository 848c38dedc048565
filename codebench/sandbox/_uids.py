"""Unused uids for local sandboxes' programs, each held through a lock file for its worker's lifetime.

As root, each worker runs its programs as its own uid with no account, no group and no process: a program can then
neither signal nor read the supervisor, and a kill(-1) made as that uid reaches that worker's programs only (a uid
shared by all workers, such as nobody, would let one worker's clean-up kill another's running program).
"""

from __future__ import annotations

import fcntl
import grp
import os
import pwd
import stat

import psutil

from ..errors import SandboxUnavailableError

SOLVER_UIDS = (range(1_990_000_000, 1_990_000_512), range(64_000, 64_512))  # tried in order; must be unused
LOCK_DIR = "/run/codebench-local"


def claim_uid() -> tuple[int, int]:
    """An unused uid (no account, no group, no process, mapped here) and the lock file held for it.

    Raises:
        SandboxUnavailableError: none is free (the message says what to do).
    """
    os.makedirs(LOCK_DIR, mode=0o700, exist_ok=True)
    folder = os.lstat(LOCK_DIR)
    if not stat.S_ISDIR(folder.st_mode) or folder.st_uid != 0 or folder.st_mode & 0o022:
        raise SandboxUnavailableError(f"{LOCK_DIR} must be a folder owned by root and writable only by root; remove it")
    for block in SOLVER_UIDS:
        for uid in block:
            if not _unused_account(uid):
                continue
            fd = os.open(os.path.join(LOCK_DIR, str(uid)), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            if not any(p.info["uids"] and p.info["uids"].real == uid for p in psutil.process_iter(["uids"])):
                return uid, fd
            os.close(fd)
    raise SandboxUnavailableError("no unused uid is left for the local sandbox's programs (this user namespace maps "
                                  "too few?); use the docker backend")


def _unused_account(uid: int) -> bool:
    for getter in (pwd.getpwuid, grp.getgrgid):
        try:
            getter(uid)
            return False
        except KeyError:
            pass
    return all(_mapped(uid, f"/proc/self/{name}") for name in ("uid_map", "gid_map"))


def _mapped(number: int, map_file: str) -> bool:
    with open(map_file) as handle:
        for line in handle:
            inside, _, count = (int(field) for field in line.split())
            if inside <= number < inside + count:
                return True
    return False
