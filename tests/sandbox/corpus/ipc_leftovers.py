"""Leaves state outside /tmp on the 3-disk instance: a /dev/shm file, a POSIX message queue and
System V shared memory (64 MB, touched, so it pins memory), a message queue and a semaphore set.

Other instances answer wrongly if any of it is still there, so leaked state shows as a rule violation.
"""

import ctypes
import os

KEY = 0xC0DE
IPC_CREAT = 0o1000


from _hanoi import hanoi  # the test inlines corpus/_hanoi.py: the sandbox gets one file


def leave_state():
    with open("/dev/shm/codebench-leak", "wb") as handle:
        handle.write(b"x" * (1 << 20))
    os.close(os.open("/dev/mqueue/codebench-leak", os.O_CREAT | os.O_RDONLY, 0o600))
    libc = ctypes.CDLL(None, use_errno=True)
    libc.shmat.restype = ctypes.c_void_p
    segment = libc.shmget(KEY, 64 << 20, IPC_CREAT | 0o600)
    address = libc.shmat(segment, None, 0)
    ctypes.memset(address, 1, 64 << 20)
    assert min(segment, libc.msgget(KEY, IPC_CREAT | 0o600), libc.semget(KEY, 1, IPC_CREAT | 0o600)) >= 0, ctypes.get_errno()


def state_found():
    found = [f"/dev/shm/{name}" for name in os.listdir("/dev/shm")]
    found += [f"/dev/mqueue/{name}" for name in os.listdir("/dev/mqueue")]
    for kind in ("shm", "msg", "sem"):
        with open(f"/proc/sysvipc/{kind}") as handle:
            found += [f"System V {kind} {line.split()[1]}" for line in handle.readlines()[1:]]
    return found


def solve(instance):
    if instance["n"] == 3:
        leave_state()
    elif state_found():
        print("found:", "; ".join(state_found()))
        return {"moves": [], "found": state_found()}
    return hanoi(instance)
