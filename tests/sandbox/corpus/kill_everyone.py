"""kill(-1, SIGKILL) on the 3-disk instance, then answers correctly; answers other instances correctly.

Linux's kill(-1) spares the caller and reaches only processes of the same uid: the solver owns no
other process and the supervisor is root, so the call succeeds, hits nothing, and the answer is legal.
"""

import os


from _hanoi import hanoi  # the test inlines corpus/_hanoi.py: the sandbox gets one file


def solve(instance):
    if instance["n"] == 3:
        os.kill(-1, 9)
    return hanoi(instance)
