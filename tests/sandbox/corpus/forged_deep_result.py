"""Writes a 100,000-deep `[[[…` straight to the result channel (fd 3) instead of answering, then exits.

The supervisor must not recurse out parsing it: a forged result is the program's fault (bad_result), never sandbox_error.
"""

import os


def solve(instance):
    os.write(3, b"[" * 100_000)
    os._exit(0)
