"""Sets of small integers as Python ints (bit i set: i is in the set), as the games' exact searches keep them."""

from __future__ import annotations


def members(mask: int) -> list[int]:
    """The set's members, smallest first."""
    found = []
    while mask:
        low = mask & -mask
        found.append(low.bit_length() - 1)
        mask ^= low
    return found
