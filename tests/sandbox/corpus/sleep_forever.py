"""Sleeps without using CPU: only the wall-clock limit ends it."""

import time


def solve(instance):
    time.sleep(10**6)
