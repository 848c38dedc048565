"""Fills /tmp with 4 MB files until the scratch filesystem is full (ENOSPC)."""

import os


def solve(instance):
    chunk = b"x" * (4 << 20)
    for index in range(10**6):
        with open(os.path.join("/tmp", f"fill-{index}"), "wb") as handle:
            handle.write(chunk)
