"""Calls sys.exit(0) inside solve."""

import sys


def solve(instance):
    sys.exit(0)
