"""kill(-1, SIGKILL) on the 3-disk instance, then answers correctly; answers other instances correctly.

Linux's kill(-1) spares the caller and reaches only processes of the same uid: the solver owns no
other process and the supervisor is root, so the call succeeds, hits nothing, and the answer is legal.
"""

import os


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
        os.kill(-1, 9)
    return hanoi(instance)
