"""Checks what it starts with: descriptors 0-4 only (0 /dev/null, 1-4 pipes), the rlimits (hard = soft), no new
privileges, umask 077, and the first place in line for the kernel's memory killer.

Answers correctly only if all hold; otherwise it prints what differs and answers wrongly. Its forker sets part of
this once for all its children and each child the rest: a change on either side that drops one shows here.
"""

import fcntl
import os
import resource

from _hanoi import hanoi  # the test inlines corpus/_hanoi.py: the sandbox gets one file

MIB = 1 << 20
LIMITS = {"RLIMIT_CORE": 0, "RLIMIT_FSIZE": 16 * MIB, "RLIMIT_NOFILE": 256, "RLIMIT_NPROC": 64}  # test_corpus.LIMITS


def is_open(fd):
    try:
        fcntl.fcntl(fd, fcntl.F_GETFD)
        return True
    except OSError:
        return False


def differences():
    found = []
    descriptors = [fd for fd in range(256) if is_open(fd)]  # RLIMIT_NOFILE: none above; listing /proc opens one
    if descriptors != [0, 1, 2, 3, 4]:
        found.append(f"descriptors {descriptors}")
    kinds = [os.readlink(f"/proc/self/fd/{fd}") for fd in range(5) if fd in descriptors]
    if kinds[:1] != ["/dev/null"] or not all(kind.startswith("pipe:") for kind in kinds[1:]):
        found.append(f"descriptor kinds {kinds}")
    for name, value in LIMITS.items():
        if resource.getrlimit(getattr(resource, name)) != (value, value):
            found.append(f"{name} {resource.getrlimit(getattr(resource, name))}")
    soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
    if (soft, hard) != (1, 2):  # the child's own, with its task: test_corpus.LIMITS.cpu_s, hard = soft + 1
        found.append(f"RLIMIT_CPU {(soft, hard)}")
    with open("/proc/self/status") as status:
        if "NoNewPrivs:\t1" not in status.read():
            found.append("new privileges allowed")
    mask = os.umask(0o077)
    if mask != 0o077:
        found.append(f"umask {mask:o}")
    with open("/proc/self/oom_score_adj") as score:
        if score.read().strip() != "1000":
            found.append("not first for the memory killer")
    return found


def solve(instance):
    found = differences()
    if found:
        print("differs:", "; ".join(found))
        return {"moves": [], "differs": found}
    return hanoi(instance)
