"""Prints, closes fd 1 (and stdin), then answers correctly: the answer travels on its own channel."""

import os


from _hanoi import hanoi  # the test inlines corpus/_hanoi.py: the sandbox gets one file


def solve(instance):
    print("last words")
    os.close(1)
    os.close(0)
    return hanoi(instance)
