"""Tries to signal anything outside its own processes: the supervisor (its pid, process group and session), the
harness (HARNESS, filled in by the test: the test runner's pid, process group, session and parent), every other pid it
can see or guess, with SIGCONT (which Linux lets through within one session, whatever the uid) and signal 0, and
setpgid into the supervisor's group. Answers correctly only if every attempt failed; otherwise prints and answers
what got through.

kill(-1) returns 0 whenever another process is visible, even if it reached none (Linux counts a target that refused
with EPERM), and so does killpg(1), which is kill(-1): their success says nothing, so kill(-1, SIGSTOP) is judged by
its effect (a supervisor it stopped would never answer) and killpg(1) only counts for the supervisor's own group,
which must not be 1.
"""

import os
import signal

from _hanoi import hanoi  # the test inlines corpus/_hanoi.py: the sandbox gets one file

HARNESS = ()  # the test replaces this line with the harness's pids
GUESSED = range(1, 4097)  # pids a namespace would hand out first, and the low host pids


def attempt(reached, what, action):
    try:
        action()
    except OSError:
        return
    reached.append(what)


def attacks():
    reached = []
    me, parent = os.getpid(), os.getppid()
    try:
        group, session = os.getpgid(parent), os.getsid(parent)
    except OSError:  # the supervisor's group and session are not even visible: try the ones it would have
        group = session = parent
    attempt(reached, f"kill({parent}, 0) (the parent)", lambda: os.kill(parent, 0))
    for sig in (signal.SIGCONT, signal.SIGSTOP, 0):
        attempt(reached, f"killpg({group}, {sig}) (the parent's group)", lambda: os.killpg(group, sig))
        attempt(reached, f"killpg({session}, {sig}) (the parent's session)", lambda: os.killpg(session, sig))
    try:
        os.kill(-1, signal.SIGSTOP)  # judged by its effect only (see above)
    except OSError:
        pass
    attempt(reached, f"setpgid(0, {group}) (joining the parent's group)", lambda: os.setpgid(0, group))
    attempt(reached, f"setpgid({parent}, {me}) (moving the parent into ours)", lambda: os.setpgid(parent, me))
    visible = {int(name) for name in os.listdir("/proc") if name.isdigit()}
    for pid in sorted(set(HARNESS) | visible | set(GUESSED)):
        if pid in (me, 0):  # 0 is our own group: a harness outside any session (CI's runner) has session 0
            continue
        for sig in (signal.SIGCONT, 0):
            attempt(reached, f"kill({pid}, {sig})", lambda: os.kill(pid, sig))
            if pid != 1:
                attempt(reached, f"killpg({pid}, {sig})", lambda: os.killpg(pid, sig))
    return reached


def solve(instance):
    reached = attacks()
    if reached:
        print("reached:", "; ".join(reached))
        return {"moves": [], "reached": reached}
    return hanoi(instance)
