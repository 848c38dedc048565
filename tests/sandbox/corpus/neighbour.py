"""Two workers at once: the 3-disk instance fork-bombs; the 4-disk one, on the other worker, needs threads.

The kernel counts processes per uid across containers, so this shows whether workers share a solver uid.
"""

import os
import threading
import time


from _hanoi import hanoi  # the test inlines corpus/_hanoi.py: the sandbox gets one file


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
