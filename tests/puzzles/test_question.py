"""Posing a puzzle without the harness: the instruction-mode prompt and the answer reader `puzzles` exports.

A prompt's text keys stored responses, so the prompts must stay byte for byte what they were: the digest below was
taken from codebench's own instruction-mode renderer at ec209c4, before the renderer moved into `puzzles`. A change
to a template changes it too, and with it the key of every stored instruction-mode response.
"""

from __future__ import annotations

import doctest
import hashlib
import itertools
import json

import puzzles
from puzzles import LEVELS, get_puzzle, instruction_prompt, puzzle_names

PROMPTS_DIGEST = "2b660d51c3c4a0d0d7b3c823d2db1c7af1ded96aa34fbe613766b7b1d79e7d7c"  # 198 prompts, as rendered at ec209c4


def test_every_instruction_prompt_is_byte_identical_to_the_one_stored_runs_keyed() -> None:
    """Each puzzle × level × seed 0-2 × presentation parameter, hashed as codebench keys it (the messages' canonical JSON)."""
    digests = {}
    for name in puzzle_names():
        puzzle = get_puzzle(name)
        shown = [{}, *({param: value} for param in sorted(puzzle.presentation_params) for value in (True, False))]
        for level, seed, params in itertools.product(LEVELS, range(3), shown):
            messages = instruction_prompt(puzzle, puzzle.generate(level, seed, params=params or None))
            text = json.dumps(messages, ensure_ascii=False, separators=(",", ":"))
            digests[f"instruction/{name}/{level}/{seed}/{json.dumps(params)}"] = hashlib.sha256(text.encode()).hexdigest()
    combined = hashlib.sha256()
    for key in sorted(digests):
        combined.update(f"{key}\0{digests[key]}\n".encode())
    assert (len(digests), combined.hexdigest()) == (198, PROMPTS_DIGEST)


def test_the_package_docstring_example_runs() -> None:
    """The example in `puzzles`' docstring: a prompt, a reply, the answer read from it and judged legal."""
    assert doctest.testmod(puzzles, raise_on_error=True) == doctest.TestResults(failed=0, attempted=8)
