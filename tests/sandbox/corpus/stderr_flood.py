"""Writes to stderr without end."""

import sys


def solve(instance):
    while True:
        sys.stderr.write("warning " * 20 + "\n")
