"""Starts sleeping threads until the process-count limit refuses one."""

import threading
import time


def solve(instance):
    while True:
        threading.Thread(target=time.sleep, args=(1000,), daemon=True).start()
