"""Raises the recursion limit and recurses through a C function until the C stack overflows."""

import sys


def descend(depth):
    return max(map(descend, [depth + 1]))


def solve(instance):
    sys.setrecursionlimit(10**7)
    return descend(0)
