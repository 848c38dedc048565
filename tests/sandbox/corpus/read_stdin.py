"""Reads stdin (it is /dev/null, so this returns at once), then answers correctly."""

import sys


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
    data = sys.stdin.read()
    assert data == "", data
    return hanoi(instance)
