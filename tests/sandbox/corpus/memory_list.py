"""Grows a list of distinct 1 MB strings until something gives."""


def solve(instance):
    hoard = []
    while True:
        hoard.append(bytes(1 << 20) + len(hoard).to_bytes(8, "little"))
