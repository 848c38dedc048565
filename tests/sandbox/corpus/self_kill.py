"""SIGKILLs itself: neither a timeout nor a memory kill."""

import os


def solve(instance):
    os.kill(os.getpid(), 9)
