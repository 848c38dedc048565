"""SIGKILLs its parent (the supervisor) on the 3-disk instance; answers other instances correctly."""

import os


from _hanoi import hanoi  # the test inlines corpus/_hanoi.py: the sandbox gets one file


def solve(instance):
    if instance["n"] == 3:
        os.kill(os.getppid(), 9)
    return hanoi(instance)
