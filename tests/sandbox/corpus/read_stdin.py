"""Reads stdin (it is /dev/null, so this returns at once), then answers correctly."""

import sys


from _hanoi import hanoi  # the test inlines corpus/_hanoi.py: the sandbox gets one file


def solve(instance):
    data = sys.stdin.read()
    assert data == "", data
    return hanoi(instance)
