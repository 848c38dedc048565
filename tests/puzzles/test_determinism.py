"""Generation is byte-identical across processes and hash seeds, and pinned by golden digests.

A failing golden digest means a generator changed the instances of fixed seeds: if that is
intended, bump that puzzle's `version` and update its digest here.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

SCRIPT = """
import hashlib, json, puzzles
digests = {}
for puzzle in puzzles.PUZZLES:
    h = hashlib.sha256()
    for level in puzzles.LEVELS:
        for seed in range(2):
            h.update(json.dumps(puzzle.generate(level, seed).to_json(), separators=(",", ":")).encode() + b"\\n")
    digests[puzzle.name] = h.hexdigest()
print(json.dumps(digests, sort_keys=True))
"""

GOLDEN: dict[str, str] = {}


def _digests(hash_seed: str) -> dict[str, str]:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    out = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, check=True, timeout=600)
    return json.loads(out.stdout)


def test_instances_are_identical_across_processes_and_match_golden_digests() -> None:
    first, second = _digests("0"), _digests("4242")
    assert first == second
    assert first == GOLDEN
