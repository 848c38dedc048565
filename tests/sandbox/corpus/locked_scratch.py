"""Makes its own scratch folder (the working directory of every later instance) unusable, and answers correctly."""

import os

from _hanoi import hanoi  # the test inlines corpus/_hanoi.py: the sandbox gets one file


def solve(instance):
    answer = hanoi(instance)
    os.chmod(os.getcwd(), 0)
    return answer
