"""SIGKILLs its parent (the supervisor) on the 3-disk instance; answers other instances correctly."""

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
        os.kill(os.getppid(), 9)
    return hanoi(instance)
