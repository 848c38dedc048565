"""Checks that nothing of an earlier program is visible: no process of this uid, an empty /tmp with its
space free, no POSIX shared memory or message queue, no System V IPC object.

Answers correctly only on a clean slate; otherwise it prints what it found and answers wrongly.
"""

import os
import time


from _hanoi import hanoi  # the test inlines corpus/_hanoi.py: the sandbox gets one file


def others_of_my_uid():
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid():
            try:
                with open(f"/proc/{entry}/status") as handle:
                    fields = dict(line.split(":", 1) for line in handle if ":" in line)
            except OSError:
                continue
            if int(fields["Uid"].split()[0]) == os.getuid() and fields["State"].strip()[0] != "Z":
                found.append(f"pid {entry} ({fields['Name'].strip()})")
    return found


def dirt():
    found = others_of_my_uid()
    time.sleep(0.05)  # a live daemon would rewrite its heartbeat meanwhile
    found += [f"/tmp/{name}" for name in os.listdir("/tmp") if name != "work"]
    found += [f"/tmp/work/{name}" for name in os.listdir("/tmp/work")]
    found += [f"/dev/shm/{name}" for name in os.listdir("/dev/shm")]
    found += [f"/dev/mqueue/{name}" for name in os.listdir("/dev/mqueue")]
    for kind in ("shm", "msg", "sem"):
        with open(f"/proc/sysvipc/{kind}") as handle:
            found += [f"System V {kind} {line.split()[1]}" for line in handle.readlines()[1:]]
    space = os.statvfs("/tmp")
    if space.f_bfree < 0.9 * space.f_blocks:
        found.append(f"/tmp is {1 - space.f_bfree / space.f_blocks:.0%} full")
    return found


def solve(instance):
    found = dirt()
    if found:
        print("dirty:", "; ".join(found))
        return {"moves": [], "dirty": found}
    return hanoi(instance)
