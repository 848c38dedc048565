"""Writes bytes that are not UTF-8 to stdout, then answers correctly."""

import sys


from _hanoi import hanoi  # the test inlines corpus/_hanoi.py: the sandbox gets one file


def solve(instance):
    sys.stdout.buffer.write(b"before \xff\xfe\xc3\x28 after\n")
    sys.stdout.buffer.flush()
    return hanoi(instance)
