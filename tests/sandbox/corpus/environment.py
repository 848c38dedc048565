"""Looks for secrets: in its environment and in every other process's /proc/<pid>/environ.

Answers correctly only if the environment holds exactly the variables the supervisor sets and no other
process's environment is readable; otherwise it prints what it found and answers wrongly.
"""

import os

EXPECTED = {"PATH", "LANG", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "PYTHONHASHSEED", "HOME", "TMPDIR"}


from _hanoi import hanoi  # the test inlines corpus/_hanoi.py: the sandbox gets one file


def leaks():
    found = [f"unexpected variable {name}" for name in os.environ if name not in EXPECTED]
    found += [f"suspicious variable {name}" for name in os.environ
              if any(word in name.upper() for word in ("KEY", "TOKEN", "SECRET", "PASSWORD", "AUTH"))]
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid():
            try:
                with open(f"/proc/{entry}/environ", "rb") as handle:
                    handle.read()
                found.append(f"readable /proc/{entry}/environ")
            except OSError:
                pass
    return found


def solve(instance):
    found = leaks()
    if found:
        print("leaks:", "; ".join(found))
        return {"moves": [], "leaks": found}
    return hanoi(instance)
