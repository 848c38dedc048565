"""Returns a set, which JSON cannot carry."""


def solve(instance):
    return {1, 2, 3}
