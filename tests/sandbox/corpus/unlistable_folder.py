"""Leaves files in folders it then makes unlistable (mode 0), in the scratch folder and in /tmp, and answers correctly."""

import os

from _hanoi import hanoi  # the test inlines corpus/_hanoi.py: the sandbox gets one file


def solve(instance):
    for top in (os.path.join(os.getcwd(), "locked"), "/tmp/locked"):
        if os.path.exists(top):
            return {"moves": [], "seen": top}
        os.makedirs(f"{top}/inner")
        for path in (f"{top}/file", f"{top}/inner/file"):
            with open(path, "w") as handle:
                handle.write("left behind")
        os.chmod(f"{top}/inner", 0)
        os.chmod(top, 0)
    return hanoi(instance)
