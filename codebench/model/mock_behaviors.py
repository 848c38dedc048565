"""What the mock model says: its behaviours, and the reply each gives to a code-mode prompt of a puzzle.

`oracle` answers with the real oracle program (`codebench.oracles`); `slow` with one that re-solves
1000×; `wrong` with a well-formed program the validator rejects; `syntax_error`, `timeout`, `crash` and
`no_code` with replies that end in those statuses; `mixed` draws one of them per request, seeded.
Imports the standard library, the oracles and the shared types only.
"""

from __future__ import annotations

import hashlib
import json
import re

from ..oracles import ORACLES, oracle_source
from ..types import Status

# `syntax_error`, `timeout` and `no_code` are named after the status their replies end in
SYNTAX_ERROR, TIMEOUT, NO_CODE_REPLY = Status.SYNTAX_ERROR.value, Status.TIMEOUT.value, Status.NO_CODE.value
BEHAVIORS = ("oracle", "slow", "wrong", SYNTAX_ERROR, TIMEOUT, "crash", NO_CODE_REPLY, "mixed")
FAULTS = ("malformed", "empty", "not_json", "missing", "quota")  # 200 without choices, null content, HTML, 404, quota 429
MIXED_WEIGHTS = {"oracle": 4, "slow": 2, "wrong": 1, SYNTAX_ERROR: 1, TIMEOUT: 1, "crash": 1, NO_CODE_REPLY: 1}
SLOW_REPEATS = 1000  # `slow` re-solves this often: fine on small instances, over the CPU limit on large ones
MARKER = re.compile(r"^codebench-puzzle:[ \t]*([A-Za-z0-9_-]+)[ \t]*$", re.MULTILINE)
WRONG = {  # a well-formed answer the validator rejects on every instance of the puzzle
    "hanoi": 'return {"moves": [[instance["n"], instance["start"], instance["goal"]]]}  # the whole tower at once',
    "checkers": 'return {"moves": []}  # the board is already swapped',
    "river": 'return {"trips": [list(instance["people"])]}  # everyone crosses together',
    "sat": 'clause = instance["clauses"][0]\n    assignment = {str(abs(v)): v < 0 for c in instance["clauses"] for v in c}\n'
           '    assignment.update({str(abs(v)): v < 0 for v in clause})  # every literal of clause 0 false\n'
           '    return {"assignment": assignment}',
    "cryptarithm": 'letters = set("".join(instance["addends"]) + instance["result"])\n    return {"mapping": {c: 0 for c in letters}}',
    "coloring": 'return {"coloring": {str(v): 1 for v in range(instance["num_nodes"])}}  # one colour for all',
    "waterjug": 'return {"steps": ["Fill A"]}  # a full jug is never the target',
    "sudoku": 'return {"grid": [[value or 1 for value in row] for row in instance["grid"]]}  # every blank a 1',
    "rubik": 'return {"moves": ""}  # the cube is already solved',
}
PROGRAMS = {
    SYNTAX_ERROR: 'def solve(instance)\n    answer = {key: instance[key] for key in instance\n    return answer\n',
    TIMEOUT: 'def solve(instance):\n    size = 1\n    while True:  # try every candidate of every size\n        size += 1\n',
    "crash": 'def solve(instance):\n    keys = sorted(instance)\n    return {keys[0]: instance[keys[len(keys)]]}\n',
}
NO_CODE = ("I cannot give a program I trust for this puzzle. A breadth-first search over states, stopping at the first "
           "goal state, would find an answer, but I would rather describe that idea than guess at the details.")


def reply_text(behavior: str, puzzle: str | None) -> str:
    """What a model of this behaviour says (`mixed` excluded: it picks one of these per request).

    Raises:
        ValueError: `oracle` or `wrong` without a known puzzle (they answer that puzzle).
    """
    if behavior in ("oracle", "slow", "wrong") and puzzle not in ORACLES:
        raise ValueError(f"behaviour {behavior} needs a prompt line 'codebench-puzzle: NAME' naming one of {', '.join(ORACLES)}")
    if behavior == "oracle":
        return f"Here is a program that solves any {puzzle} instance.\n\n```python\n{oracle_source(str(puzzle))}```\n"
    if behavior == "slow":  # correct, but its cost grows with the instance: accuracy collapses at high levels
        return (f"This solves any {puzzle} instance; it double-checks by solving again.\n\n```python\n"
                f"{oracle_source(str(puzzle))}\n\n_solve_once = solve\n\n\ndef solve(instance):\n"
                f"    for _ in range({SLOW_REPEATS} - 1):\n        _solve_once(instance)\n    return _solve_once(instance)\n```\n")
    if behavior == "wrong":
        return f"This builds the answer directly.\n\n```python\ndef solve(instance):\n    {WRONG[str(puzzle)]}\n```\n"
    if behavior == NO_CODE_REPLY:
        return NO_CODE
    return f"Here is my solution.\n\n```python\n{PROGRAMS[behavior]}```\n"


def mixed_choice(seed: int, request_seed: object, messages: object) -> str:
    """The behaviour `mixed` plays for a request: fixed by (server seed, request seed, messages), oracle most often."""
    blob = json.dumps([seed, request_seed, messages], sort_keys=True, default=str).encode()
    ticket = int.from_bytes(hashlib.sha256(blob).digest()[:8], "big") % sum(MIXED_WEIGHTS.values())
    for behavior, weight in MIXED_WEIGHTS.items():
        if ticket < weight:
            return behavior
        ticket -= weight
    raise AssertionError("unreachable: the ticket is below the weights' sum")
