"""A multiprocessing pool whose workers all spin: CPU is counted over every process, not just the child."""

import multiprocessing


def spin(_):
    while True:
        pass


def solve(instance):
    with multiprocessing.Pool(4) as pool:
        pool.map(spin, range(4))
