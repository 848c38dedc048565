"""Leaves a setsid double-forked daemon behind that writes to /tmp every 10 ms, then answers correctly.

An instance that still sees an earlier daemon's heartbeat answers wrongly, so a surviving daemon
(or an unwiped file) turns the second of two instances into a rule violation.
"""

import os
import time

HEARTBEATS = ("/tmp/daemon-heartbeat", "/tmp/work/daemon-heartbeat")


from _hanoi import hanoi  # the test inlines corpus/_hanoi.py: the sandbox gets one file


def daemonize():
    if os.fork():
        return
    os.setsid()
    if os.fork():
        os._exit(0)
    while True:
        for path in HEARTBEATS:
            with open(path, "w") as handle:
                handle.write(str(time.time()))
        time.sleep(0.01)


def solve(instance):
    if any(os.path.exists(path) for path in HEARTBEATS):
        return {"moves": [], "seen": "an earlier daemon's heartbeat"}
    daemonize()
    deadline = time.monotonic() + 1
    while not all(os.path.exists(path) for path in HEARTBEATS) and time.monotonic() < deadline:
        time.sleep(0.01)
    return hanoi(instance)
