"""Looks for secrets: in its environment and in every other process's /proc/<pid>/environ.

Answers correctly only if the environment holds exactly the variables the supervisor sets and no other
process's environment is readable; otherwise it prints what it found and answers wrongly.
"""

import os

EXPECTED = {"PATH", "LANG", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "PYTHONHASHSEED", "HOME", "TMPDIR"}


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
