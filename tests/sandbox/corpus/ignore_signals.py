"""Ignores every catchable "please stop" signal, then spins."""

import signal


def solve(instance):
    for name in ("SIGTERM", "SIGALRM", "SIGINT", "SIGHUP", "SIGXCPU", "SIGVTALRM", "SIGPROF"):
        signal.signal(getattr(signal, name), signal.SIG_IGN)
    while True:
        pass
