"""Leaves a 1,200-deep folder chain in /tmp (deeper than a recursive clean-up goes, longer than PATH_MAX),
a /dev/shm file and a System V semaphore, and answers correctly."""

import ctypes
import os

from _hanoi import hanoi  # the test inlines corpus/_hanoi.py: the sandbox gets one file


def solve(instance):
    if os.path.exists("/tmp/deep") or os.listdir("/dev/shm"):
        return {"moves": [], "seen": "an earlier chain"}
    os.mkdir("/tmp/deep")
    os.chdir("/tmp/deep")
    for _ in range(1200):
        os.mkdir("d" * 50)
        os.chdir("d" * 50)
    with open("bottom", "w") as handle:
        handle.write("left behind")
    with open("/dev/shm/left", "w") as handle:
        handle.write("left behind")
    ctypes.CDLL(None).semget(0, 1, 0o1600)  # IPC_PRIVATE, IPC_CREAT | 0600
    return hanoi(instance)
