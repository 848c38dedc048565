"""Generation is byte-identical across processes and hash seeds, and pinned by golden digests.

A failing golden digest means a generator changed the records of fixed seeds: if their instances
changed, bump that puzzle's `version` and update its digest here; a new fact in `meta` alone (as
`search_nodes` was) keeps the version.
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

GOLDEN: dict[str, str] = {
    "checkers": "360bbc979c302e38d243d90fdce076600648f794299b13b8f9775b067f8184e4",
    "coloring": "5f2be75e43c843eac48289fbc8c638fc23e62157c45b3bac1524c12243ec1f29",
    "cryptarithm": "0c9f3fcf9f26a2f0e88fc349fbcda0352b3d8a7e6f64ee6c8afb64628c2a1d83",
    "hanoi": "d441ad8546642ff5d5518c9c6652a6f839b2f17b4605feaf178531da2739f935",
    "river": "c353f252b3a9d81e66081376edca2bd04a121465f5307c2b09e8c2aed18ad659",
    "rubik": "a8ccd886e07b01ef2d357730f5aedfe9a07af5c02a3628302e88390077ff074b",
    "sat": "6bb4a799054fc4589303a93fc4148bd28693556114895c41be5f1e52276a2cc4",
    "sudoku": "51ffd10ef9a550b37c8f1da283eefc0173e3270287be229a290ef806bb3366c6",
    "waterjug": "8f633cfdb4de0c365a55c1d9312ba034a7be1ec505c78b6508cc317639f4735b",
}


def digests(script: str, hash_seed: str) -> dict[str, str]:
    """What `script` prints (JSON digests of generated records) in a fresh interpreter with PYTHONHASHSEED `hash_seed`."""
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True, timeout=600)
    return json.loads(out.stdout)


def test_instances_are_identical_across_processes_and_match_golden_digests() -> None:
    first, second = digests(SCRIPT, "0"), digests(SCRIPT, "4242")
    assert first == second
    assert first == GOLDEN
