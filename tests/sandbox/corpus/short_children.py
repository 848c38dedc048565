"""Burns CPU in children that each live 20 ms, shorter than any sampling watchdog's period: the kernel's
accounting of the whole worker must still stop it at the CPU limit."""

import os
import time


def solve(instance):
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        pid = os.fork()
        if pid == 0:
            spin_until = time.monotonic() + 0.02
            while time.monotonic() < spin_until:
                pass
            os._exit(0)
        os.waitpid(pid, 0)
    return {"moves": []}
