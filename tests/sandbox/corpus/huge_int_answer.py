"""Lifts the int-digit limit and returns 10**5000: the host's parser must refuse it as the program's answer."""

import sys


def solve(instance):
    sys.set_int_max_str_digits(0)
    return {"moves": [[10**5000, "A", "C"]]}
