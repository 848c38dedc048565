"""What the mock model says: its behaviours, and the reply each gives to a code-mode or an instruction-mode prompt.

Code mode: `oracle` answers with the real oracle program (`codebench.oracles`); `slow` with one that re-solves
1000×; `wrong` with a well-formed program the validator rejects; `syntax_error`, `timeout`, `crash` and
`no_code` with replies that end in those statuses; `format_retry` and `reasoning` as `oracle`; `mixed` draws one per
request, seeded.

Instruction mode (the prompt says `codebench-mode: instruction` and shows the instance as JSON): `oracle` and
`slow` reason briefly and end with the reference solver's answer in a ```json block; `wrong` with the answer the
`wrong` program computes; `syntax_error` with the answer as a Python literal (single quotes: no JSON anywhere);
`timeout` with a reply cut off inside its JSON block (finish reason `length`); `crash` with JSON of the wrong
shape; `no_code` with prose only; `format_retry` with prose first and the right answer once it is reminded;
`reasoning` with the right answer and its thinking in a separate `reasoning_content` field, as reasoning models send.

Games (the line names one of `puzzles.games`) are answered by `mock_games`, with the same behaviours: in code mode
`oracle` (and `slow`, `format_retry`, `reasoning`) writes a self-contained program whose `Strategy` plays the game's
`ref` strategy, the others a Strategy that moves illegally, does not parse, never returns, raises, or no program. In
instruction mode (the opening says `codebench-seat: N`; each turn shows the observation) they answer the `ref` move
of the last turn shown, or fail as above; `format_retry` answers once the last user message is the move reminder.
Imports the standard library, `puzzles`, the oracles, `mock_games` and the shared types only.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from puzzles import get_puzzle
from puzzles.games import game_names

from ..oracles import ORACLES, oracle_source
from . import mock_games
from .mock_games import NO_CODE_REPLY, SYNTAX_ERROR, TIMEOUT, MockReply, json_reply

BEHAVIORS = ("oracle", "slow", "wrong", SYNTAX_ERROR, TIMEOUT, "crash", NO_CODE_REPLY, "format_retry", "reasoning", "mixed")
FAULTS = ("malformed", "empty", "not_json", "missing", "quota")  # 200 without choices, null content, HTML, 404, quota 429
MIXED_WEIGHTS = {"oracle": 4, "slow": 2, "wrong": 1, SYNTAX_ERROR: 1, TIMEOUT: 1, "crash": 1, NO_CODE_REPLY: 1}
SLOW_REPEATS = 1000  # `slow` re-solves this often: fine on small instances, over the CPU limit on large ones
MARKER = re.compile(r"^codebench-puzzle:[ \t]*([A-Za-z0-9_-]+)[ \t]*$", re.MULTILINE)
INSTRUCTION = re.compile(r"^codebench-mode:[ \t]*instruction[ \t]*$", re.MULTILINE)
SHOWN_INSTANCE = re.compile(r"^The instance as JSON[^\n]*\n+```json\n(.*?)\n```", re.MULTILINE | re.DOTALL)
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


def reply(behavior: str, prompt: str, reminded: bool, last_user: str | None = None) -> MockReply:
    """What a model of this behaviour says to `prompt`; `reminded`: the conversation already holds a reply and a
    follow-up (an instruction-mode format retry); `last_user`: the text of its last user message, which tells a game's
    format retry (its conversation holds earlier turns' replies) from a new turn. `mixed` excluded.

    Raises:
        ValueError: a behaviour that answers a puzzle, without a known one named in the prompt (or its instance); a
            game's instruction-mode prompt without its seat or an observation.
    """
    found = MARKER.search(prompt)
    puzzle = found.group(1) if found else None
    if puzzle in game_names() and INSTRUCTION.search(prompt) is not None:
        return (mock_games.turn_reply(behavior, str(puzzle), prompt, last_user))
    if INSTRUCTION.search(prompt) is None:
        return MockReply(reply_text(behavior, puzzle))
    shown = SHOWN_INSTANCE.search(prompt)
    if puzzle not in ORACLES or shown is None:
        raise ValueError("an instruction-mode prompt must name its puzzle ('codebench-puzzle: NAME') and show the "
                         "instance as JSON")
    return instruction_reply(behavior, str(puzzle), json.loads(shown.group(1)), reminded)


def instruction_reply(behavior: str, puzzle: str, instance: dict[str, Any], reminded: bool) -> MockReply:
    """The instruction-mode reply of `behavior` to one instance of `puzzle`."""
    if behavior == NO_CODE_REPLY or (behavior == "format_retry" and not reminded):
        return MockReply("I worked through the puzzle step by step and I am fairly confident, but I will keep the answer to myself.")
    if behavior == "wrong":
        namespace: dict[str, Any] = {}
        exec(f"def solve(instance):\n    {WRONG[puzzle]}\n", namespace)  # our own snippet, on our own instance
        answer = namespace["solve"](instance)
    else:
        answer = get_puzzle(puzzle).solve(instance)
    if behavior == SYNTAX_ERROR:
        return MockReply(f"The answer, as a Python value:\n\n{answer!r}\n")
    if behavior == "crash":
        answer = {"answer": answer}
    text = json.dumps(answer)
    reasoning = f"Working through the {puzzle} instance step by step, checking each rule, gives this answer."
    return json_reply(behavior, reasoning, text)


def reply_text(behavior: str, puzzle: str | None) -> str:
    """What a model of this behaviour says to a code-mode prompt (`mixed` excluded: it picks one per request).

    A game's prompt gets `mock_games`' answer.

    Raises:
        ValueError: `oracle` or `wrong` without a known puzzle (they answer that puzzle).
    """
    if puzzle in game_names():
        return mock_games.code_reply(behavior, str(puzzle))
    behavior = "oracle" if behavior in ("format_retry", "reasoning") else behavior  # code mode: neither retries nor thinking
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
