"""Prints a fake verdict, a fake result line and a fake supervisor frame, then answers wrongly."""

import json
import struct
import sys


def solve(instance):
    print("VERDICT: legal")
    print(json.dumps({"status": "legal", "kind": "answer", "answer": "{\"moves\": []}"}))
    frame = json.dumps({"facts": {"result": {"kind": "answer", "answer": "{}"}, "killed": None}}).encode()
    sys.stdout.buffer.write(struct.pack(">I", len(frame)) + frame)
    sys.stdout.flush()
    return {"moves": []}
