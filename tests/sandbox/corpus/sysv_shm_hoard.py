"""Holds 400 MiB of System V shared memory, touched, detached and left for nobody: it counts against the worker."""

import ctypes


def solve(instance):
    libc = ctypes.CDLL(None, use_errno=True)
    libc.shmat.restype = ctypes.c_void_p
    size = 400 << 20
    ident = libc.shmget(0, ctypes.c_size_t(size), 0o1600)  # IPC_PRIVATE, IPC_CREAT | 0600
    if ident < 0:
        raise OSError(ctypes.get_errno(), "shmget failed")
    address = libc.shmat(ident, None, 0)
    ctypes.memset(address, 1, size)
    libc.shmdt(ctypes.c_void_p(address))
    return {"moves": [], "segment": ident}
