"""Raises an exception with a one-million-character class name and a message whose str() raises."""


class Unprintable(Exception):
    def __str__(self):
        raise RuntimeError("no")


Huge = type("E" * 1_000_000, (Unprintable,), {})


def solve(instance):
    raise Huge()
