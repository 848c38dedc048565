"""Holds memory where a per-process limit does not look: 400 MiB across anonymous memfds (each under the file-size
limit), with no mapping of its own."""

import os


def solve(instance):
    chunk = b"x" * (1 << 20)
    held = []
    for _ in range(40):
        fd = os.memfd_create("hoard")
        for _ in range(10):
            os.write(fd, chunk)
        held.append(fd)
    return {"moves": [], "held": len(held)}
