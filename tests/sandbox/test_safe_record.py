"""`codebench puzzles play` with a program that answers a 48 MB move full of lone surrogates, bidi overrides and C1
controls, on both backends: no traceback, the record keeps the move's head, size and SHA-256 (not the move), and what
the program wrote reaches neither the terminal nor the JSON unescaped."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

BACKENDS = [pytest.param("docker", marks=pytest.mark.docker), "local"]
HOSTILE = "\ud800\u202e\x85\x1b[2J"  # a lone surrogate, a right-to-left override, a C1 control, a terminal escape
PROGRAM = f'''
class Strategy:
    def __init__(self, setup):
        print({HOSTILE[1:]!r})  # a lone surrogate cannot even be printed

    def act(self, observation):
        return {{"card": {HOSTILE!r} + "x" * 48_000_000}}  # 48 MB of JSON, under the 64 MB answer cap
'''


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_hostile_move_is_clipped_with_its_digest_and_escaped_everywhere(tmp_path: Path, backend: str) -> None:
    program = tmp_path / "hostile.py"
    program.write_text(PROGRAM, encoding="utf-8")
    command = [sys.executable, "-m", "codebench", "puzzles", "play", "cardnim", "--players", f"{program},ref",
               "--backend", backend, "--memory", "1024"]
    env = {**os.environ, "COLUMNS": "200"}
    as_json = subprocess.run([*command, "--json"], capture_output=True, timeout=300, env=env)
    assert as_json.returncode == 0 and b"Traceback" not in as_json.stderr, as_json.stderr[-2000:]
    assert as_json.stdout.isascii()  # every character a program chose is a \\u escape
    record = json.loads(as_json.stdout)
    [move] = record["moves"]
    whole = json.dumps({"card": HOSTILE + "x" * 48_000_000}, sort_keys=True)
    assert move["move"] is None and move["move_chars"] == len(whole) > 48_000_000
    assert move["move_sha256"] == hashlib.sha256(whole.encode()).hexdigest() and move["move_head"] == whole[:4096]
    assert record["statuses"] == ["rule_violation", "legal"] and len(as_json.stdout) < 100_000
    shown = subprocess.run(command, capture_output=True, timeout=300, env=env)
    assert shown.returncode == 0 and b"Traceback" not in shown.stderr, shown.stderr[-2000:]
    text = shown.stdout.decode("utf-8")  # valid UTF-8: no lone surrogate came through
    assert "\u202e" not in text and "\x1b" not in text and "\x85" not in text
    assert "\\u202e" in text  # the escapes are visible
    assert f"{move['move_chars']} characters" in text and move["move_sha256"][:16] in text
