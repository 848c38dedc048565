"""Spins forever in pure Python: the CPU limit ends it."""


def solve(instance):
    while True:
        pass
