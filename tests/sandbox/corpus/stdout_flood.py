"""Prints without end."""


def solve(instance):
    while True:
        print("spam " * 20)
