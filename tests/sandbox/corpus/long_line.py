"""One 50 MB line, no newline."""

import sys


def solve(instance):
    sys.stdout.write("x" * 50_000_000)
    sys.stdout.flush()
