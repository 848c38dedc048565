"""Looks for the host from inside: other processes (the test runner, the engine), a project checkout, a loopback
service on the host (the test listens on 127.0.0.1:47123), and /run/lock. Answers correctly only if it sees none."""

import os
import socket

from _hanoi import hanoi  # the test inlines corpus/_hanoi.py: the sandbox gets one file


def host_processes():
    seen = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as handle:
                    command = handle.read().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if any(word in command for word in ("pytest", "dockerd", "containerd")):
                seen.append(command[:80])
    return seen


def checkouts():
    found = []
    for top in ("/", "/work", "/root", "/home", "/opt", "/srv", "/tmp"):
        try:
            names = os.listdir(top)
        except OSError:
            continue
        found += [f"{top}/{name}" for name in names if os.path.exists(f"{top}/{name}/pyproject.toml")]
    return found


def loopback():
    try:
        socket.create_connection(("127.0.0.1", 47123), timeout=1).close()
        return ["127.0.0.1:47123 answered"]
    except OSError:
        return []


def run_lock():
    try:
        with open("/run/lock/codebench-planted", "w") as handle:
            handle.write("left behind")
        return ["/run/lock is writable"]
    except OSError:
        return []


def solve(instance):
    seen = host_processes() + checkouts() + loopback() + run_lock()
    if seen:
        print("seen:", "; ".join(seen))
        return {"moves": [], "seen": seen}
    return hanoi(instance)
