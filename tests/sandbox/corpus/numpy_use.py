"""Solves Hanoi with vectorised numpy arithmetic (the image ships numpy)."""

import numpy as np


def solve(instance):
    n, start, goal = instance["n"], instance["start"], instance["goal"]
    (spare,) = set(instance["pegs"]) - {start, goal}
    order = np.array([start, spare, goal] if n % 2 else [start, goal, spare])
    steps = np.arange(1, 2**n, dtype=np.int64)
    disks = np.log2(steps & -steps).astype(np.int64) + 1  # the disk moved at step m: m's lowest set bit
    sources = order[(steps & (steps - 1)) % 3]
    targets = order[((steps | (steps - 1)) + 1) % 3]
    return {"moves": [[int(d), str(s), str(t)] for d, s, t in zip(disks, sources, targets)]}
