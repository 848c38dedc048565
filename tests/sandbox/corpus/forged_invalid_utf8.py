"""Forges an answer of 60 MiB of invalid UTF-8 on the result channel.

Re-encoded as JSON escapes it would be six bytes per byte and kill the supervisor: the bytes must reach the
host as they are and be judged there (not valid JSON), the program's fault.
"""

import os


def solve(instance):
    os.write(3, b'{"kind": "answer"}\n')
    chunk = b"\xff" * (1 << 20)
    for _ in range(60):
        os.write(3, chunk)
    os._exit(0)
