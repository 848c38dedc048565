"""Forges a well-formed result header followed by a 100,000-deep `[[[…` as the answer text: the host's
validator must judge it (not valid JSON it will parse), never crash."""

import os


def solve(instance):
    os.write(3, b'{"kind": "answer"}\n' + b"[" * 100_000)
    os._exit(0)
