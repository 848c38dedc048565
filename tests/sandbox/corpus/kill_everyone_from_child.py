"""On the 3-disk instance a forked child calls kill(-1, SIGKILL), which reaches its parent, the solver
process; other instances are answered correctly.
"""

import os
import time


from _hanoi import hanoi  # the test inlines corpus/_hanoi.py: the sandbox gets one file


def solve(instance):
    if instance["n"] == 3:
        if os.fork() == 0:
            os.kill(-1, 9)
            os._exit(0)
        time.sleep(2)
    return hanoi(instance)
