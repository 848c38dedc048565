"""Asks for 4 GiB at once (zero-filled, so every page is touched)."""


def solve(instance):
    block = bytearray(4 << 30)
    return {"moves": [], "size": len(block)}
