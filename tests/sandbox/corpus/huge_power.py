"""One long C-level call (a 10**8-digit power): no Python-level check can interrupt it."""


def solve(instance):
    return {"moves": [], "x": 10 ** (10**8) % 7}
