"""What the mock model says: its behaviours, and the reply each gives to a code-mode or an instruction-mode prompt.

Code mode: `oracle` answers with the real oracle program (`codebench.oracles`); `slow` with one that re-solves
1000×; `wrong` with a well-formed program the validator rejects; `syntax_error`, `timeout`, `crash` and
`no_code` with replies that end in those statuses; `format_retry` and `reasoning` as `oracle`; `mixed` draws one per
request, seeded.

Instruction mode (the prompt says `codebench-mode: instruction` and shows the instance as JSON; the last one shown is
the question's, worked examples as earlier turns come before it): `oracle` and `slow` reason briefly and end with the
reference solver's answer in a ```json block; `wrong` with the answer the `wrong` program computes; `syntax_error` with
the answer as a Python literal (single quotes: no JSON anywhere);
`timeout` with a reply cut off inside its JSON block (finish reason `length`); `crash` with JSON of the wrong
shape; `no_code` with prose only; `format_retry` with prose first and the right answer once it is reminded;
`reasoning` with the right answer and its thinking in a separate `reasoning_content` field, as reasoning models send.
Three flaw a plan (hanoi, checkers, river, waterjug, rubik) the way the first seed's failure modes describe, each edit
confirmed by the validator: `slip` follows the reference plan, then makes an illegal move from its middle on (a state
inconsistency); `astray` answers a legal plan at least as long as the shortest that ends off the goal, stated
confidently (a confident error); `hedged` answers that plan in hedged prose (incomplete reasoning). Where no such edit
exists (no plan, or no illegal move: rubik's `slip`) they answer as `wrong`. In code mode and in games they play `wrong`.
`mixed` keeps one behaviour through a puzzle's instruction-mode conversation (see `mixed_choice`).

A simulated collapse, named by the model `collapse-M` or `collapse-M-S` (`Collapse`: midpoint M, slope S per unit of λ,
default 2), succeeds less often as complexity λ rises, with a known truth to check an adaptive search against. In
instruction mode it reads λ from the instance shown and answers as `oracle` with probability p(λ) = 1 / (1 + e^(S·(λ −
M))), else as `wrong` (a seeded draw: `collapse_choice`). In code mode its program solves as the oracle's when λ ≤ M and
answers as `wrong`'s above: a deterministic step at M, since one program is judged on every instance. It serves the
puzzles whose λ the instance itself gives (LAMBDA); another puzzle is refused; in games it plays `wrong`.

A plugin's puzzle (installed through an entry point) is answered as the built-ins are, with these differences: in code
mode `oracle` and `slow` answer with the oracle program the plugin ships as `oracles/<name>.py` beside its module (as
`no_code` when it ships none), `wrong` with a program returning {}; in instruction mode `wrong` (and a flaw that finds
no edit) answers the reference answer with its first number made -1, or its first string "?".

Games (the line names one of `puzzles.games`) are answered by `mock_games`, with the same behaviours: in code mode
`oracle` (and `slow`, `format_retry`, `reasoning`) writes a self-contained program whose `Strategy` plays the game's
`ref` strategy, the others a Strategy that moves illegally, does not parse, never returns, raises, or no program. In
instruction mode (the opening says `codebench-seat: N`; each turn shows the observation) they answer the `ref` move
of the last turn shown, or fail as above; `format_retry` answers once the last user message is the move reminder.
Imports the standard library, `puzzles`, the oracles, `mock_games` and the shared types only.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import re
from dataclasses import dataclass
from itertools import islice, takewhile
from typing import Any

from puzzles import IssueCode, get_puzzle, puzzle_names
from puzzles._plugins import plugin_folder
from puzzles.games import game_names

from ..oracles import ORACLES, oracle_source
from . import mock_games
from .mock_games import NO_CODE_REPLY, SYNTAX_ERROR, TIMEOUT, MockReply, illegal, json_reply

PLAN_FLAWS = ("slip", "astray", "hedged")  # instruction-mode flaws of a plan; elsewhere they play `wrong`
BEHAVIORS = ("oracle", "slow", "wrong", SYNTAX_ERROR, TIMEOUT, "crash", NO_CODE_REPLY, "format_retry", "reasoning", *PLAN_FLAWS,
             "mixed")
FAULTS = ("malformed", "empty", "not_json", "missing", "quota")  # 200 without choices, null content, HTML, 404, quota 429
MIXED_WEIGHTS = {"oracle": 4, "slow": 2, "wrong": 1, SYNTAX_ERROR: 1, TIMEOUT: 1, "crash": 1, NO_CODE_REPLY: 1}
INSTRUCTION_WEIGHTS = {**MIXED_WEIGHTS, "format_retry": 1, **dict.fromkeys(PLAN_FLAWS, 1)}  # `mixed` on a puzzle's instruction prompt
FLAW_TRIES = 64  # validator calls a flaw may spend looking for its edit (a plan's steps are few and alike)
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
    "cryptarithm": 'letters = sorted(set("".join(instance["addends"]) + instance["result"]))  # the same text in every process\n'
                   '    return {"mapping": {c: 0 for c in letters}}',
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
PLUGIN_WRONG = "return {}  # no answer field at all"  # `wrong`'s program for a plugin's puzzle
PLUGIN_ORACLES = "oracles"  # the folder beside a plugin's module that may hold its oracle programs, `<name>.py`
NO_CODE = ("I cannot give a program I trust for this puzzle. A breadth-first search over states, stopping at the first "
           "goal state, would find an answer, but I would rather describe that idea than guess at the details.")
COLLAPSE = re.compile(r"collapse-([0-9]+(?:\.[0-9]+)?)(?:-([0-9]+(?:\.[0-9]+)?))?")  # midpoint, slope
COLLAPSE_FORM = "collapse-M or collapse-M-S (midpoint M >= 0 and slope S > 0 per unit of λ, default 2; e.g. collapse-5-1.5)"
COLLAPSE_SLOPE = 2.0
LAMBDA = {  # λ (the family's complexity axis) of an instance, as a Python expression over `instance`; `oracle`: the
    # oracle program's solve. cryptarithm's λ (max_len) bounds the addends' lengths without showing in them, rubik's (the
    # scramble's length) is hidden: neither can be read from the instance
    "hanoi": 'instance["n"]',
    "checkers": 'instance["n"]',
    "river": 'instance["pairs"]',
    "sat": 'instance["num_vars"]',
    "coloring": 'instance["num_nodes"]',
    "waterjug": 'len(oracle(instance)["steps"]) // 2',  # pours: a shortest plan takes exactly 2λ steps
    "sudoku": 'sum(row.count(0) for row in instance["grid"])',  # q, the blanks (levels 1-2's small grids: theirs)
}


def reply(behavior: str, prompt: str, reminded: bool, last_user: str | None = None) -> MockReply:
    """What a model of this behaviour says to `prompt`; `reminded`: the conversation already holds a reply and a
    follow-up (an instruction-mode format retry); `last_user`: the text of its last user message, which tells a game's
    format retry (its conversation holds earlier turns' replies) from a new turn. `mixed` excluded, and a collapse on a
    puzzle's instruction-mode prompt (the caller draws for both: `mixed_choice`, `collapse_choice`).

    Raises:
        ValueError: a behaviour that answers a puzzle, without a known one named in the prompt (or its instance); a
            game's instruction-mode prompt without its seat or an observation; a collapse on a puzzle it cannot serve.
    """
    found = MARKER.search(prompt)
    puzzle = found.group(1) if found else None
    if puzzle in game_names(variants=True, plugins=True) and INSTRUCTION.search(prompt) is not None:
        plays_wrong = behavior in PLAN_FLAWS or collapse_of(behavior) is not None
        return mock_games.turn_reply("wrong" if plays_wrong else behavior, str(puzzle), prompt, last_user)
    if INSTRUCTION.search(prompt) is None:
        return MockReply(reply_text(behavior, puzzle))
    shown = SHOWN_INSTANCE.findall(prompt)  # the question's is the last: worked examples (--shots) come before it
    if puzzle not in puzzle_names(plugins=True) or not shown:
        raise ValueError("an instruction-mode prompt must name its puzzle ('codebench-puzzle: NAME') and show the "
                         "instance as JSON")
    asked = last_user is None or SHOWN_INSTANCE.search(last_user) is not None  # else the last is a format reminder
    return instruction_reply(behavior, str(puzzle), json.loads(shown[-1]), reminded and not asked)


def instruction_reply(behavior: str, puzzle: str, instance: dict[str, Any], reminded: bool) -> MockReply:
    """The instruction-mode reply of `behavior` to one instance of `puzzle`."""
    if behavior == NO_CODE_REPLY or (behavior == "format_retry" and not reminded):
        return MockReply("I worked through the puzzle step by step and I am fairly confident, but I will keep the answer to myself.")
    flawed = flawed_plan(puzzle, instance, behavior) if behavior in PLAN_FLAWS else None
    if flawed is not None:
        answer = flawed
    elif behavior in ("wrong", *PLAN_FLAWS) and puzzle not in WRONG:  # a plugin's puzzle
        answer = illegal(get_puzzle(puzzle).solve(instance))
    elif behavior in ("wrong", *PLAN_FLAWS):
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
    reasoning = (f"I think this is probably the answer to the {puzzle} instance, but I am not sure it reaches the goal."
                 if behavior == "hedged" else
                 f"Working through the {puzzle} instance step by step, checking each rule, gives this answer.")
    return json_reply(behavior, reasoning, text)


def flawed_plan(puzzle: str, instance: dict[str, Any], flaw: str) -> dict[str, Any] | None:
    """The reference plan with one edit the validator confirms: `slip` replaces a step from the middle on by another step
    of the plan, illegal there; `astray` and `hedged` append a step of the plan, put one in place of the last, or swap two
    neighbours, so that every step is legal and the plan ends off the goal. None: the answer is not a plan (one list or
    string of moves), or no such edit was found within FLAW_TRIES validations."""
    judge = get_puzzle(puzzle)
    solved = judge.solve(instance)
    if not (isinstance(solved, dict) and len(solved) == 1):  # a plugin's puzzle may answer with several fields
        return None
    ((field, plan),) = solved.items()
    steps = plan.split() if isinstance(plan, str) else list(plan) if isinstance(plan, list) else []
    if len(steps) < 2:
        return None
    distinct = [json.loads(text) for text in dict.fromkeys(json.dumps(step) for step in steps)]
    if flaw == "slip":
        middle = len(steps) // 2
        candidates = ((k, steps[:k] + [step] + steps[k + 1:]) for k in (*range(middle, len(steps)), *range(middle - 1, 0, -1))
                      for step in distinct if step != steps[k])
    else:
        swaps = (steps[:k] + [steps[k + 1], steps[k]] + steps[k + 2:] for k in range(len(steps) - 2, -1, -1))
        candidates = ((None, edited) for edited in (*(steps + [step] for step in distinct), *(steps[:-1] + [step] for step in distinct),
                                                    *swaps))
    for illegal_at, edited in islice(candidates, FLAW_TRIES):
        answer = {field: " ".join(edited) if isinstance(plan, str) else edited}
        verdict = judge.validate(instance, answer)
        if illegal_at is not None and verdict.first_illegal_step == illegal_at and IssueCode.ILLEGAL_MOVE in verdict.codes:
            return answer
        if illegal_at is None and verdict.codes == {IssueCode.GOAL_NOT_REACHED}:  # every edit keeps at least its length
            return answer
    return None


def reply_text(behavior: str, puzzle: str | None) -> str:
    """What a model of this behaviour says to a code-mode prompt (`mixed` excluded: it picks one per request).

    A game's prompt gets `mock_games`' answer.

    Raises:
        ValueError: `oracle`, `wrong` or a collapse without a known puzzle (they answer that puzzle); a collapse on a
            puzzle it cannot serve.
    """
    collapse = collapse_of(behavior)
    behavior = "wrong" if behavior in PLAN_FLAWS else behavior  # code mode: the flaws are instruction mode's
    if puzzle in game_names(variants=True, plugins=True):
        return mock_games.code_reply("wrong" if collapse is not None else behavior, str(puzzle))
    if collapse is not None:
        return f"This solves {puzzle} instances.\n\n```python\n{collapse_program(collapse, str(puzzle))}```\n"
    behavior = "oracle" if behavior in ("format_retry", "reasoning") else behavior  # code mode: neither retries nor thinking
    if behavior in ("oracle", "slow", "wrong") and puzzle not in puzzle_names(plugins=True):
        raise ValueError(f"behaviour {behavior} needs a prompt line 'codebench-puzzle: NAME' naming one of "
                         f"{', '.join(puzzle_names(plugins=True))}")
    source = oracle_program(str(puzzle)) if behavior in ("oracle", "slow") else None
    if behavior in ("oracle", "slow") and source is None:
        return NO_CODE  # a plugin's puzzle that ships no oracle program
    if behavior == "oracle":
        return f"Here is a program that solves any {puzzle} instance.\n\n```python\n{source}```\n"
    if behavior == "slow":  # correct, but its cost grows with the instance: accuracy collapses at high levels
        return (f"This solves any {puzzle} instance; it double-checks by solving again.\n\n```python\n"
                f"{source}\n\n_solve_once = solve\n\n\ndef solve(instance):\n"
                f"    for _ in range({SLOW_REPEATS} - 1):\n        _solve_once(instance)\n    return _solve_once(instance)\n```\n")
    if behavior == "wrong":
        return f"This builds the answer directly.\n\n```python\ndef solve(instance):\n    {WRONG.get(str(puzzle), PLUGIN_WRONG)}\n```\n"
    if behavior == NO_CODE_REPLY:
        return NO_CODE
    return f"Here is my solution.\n\n```python\n{PROGRAMS[behavior]}```\n"


def oracle_program(puzzle: str) -> str | None:
    """The oracle program of `puzzle`: codebench's own for a built-in, `oracles/<name>.py` beside a plugin's module for a
    plugin's (None: it ships none)."""
    if puzzle in ORACLES:
        return oracle_source(puzzle)
    folder = plugin_folder(puzzle)
    path = folder / PLUGIN_ORACLES / f"{puzzle}.py" if folder is not None else None
    return path.read_text(encoding="utf-8").rstrip("\n") + "\n" if path is not None and path.is_file() else None


def mixed_choice(seed: int, request_seed: object, messages: object) -> str:
    """The behaviour `mixed` plays for a request: fixed by (server seed, request seed, messages), oracle most often.

    A puzzle's instruction-mode conversation draws from INSTRUCTION_WEIGHTS (the plan flaws and `format_retry`: anywhere
    else they would play another behaviour), by its opening only, so it keeps its behaviour through the format retries,
    as a model that cannot keep the format does: prose, a Python literal or a cut-off reply end in no_answer.
    """
    text = "\n".join(str(m.get("content")) for m in messages if isinstance(m, dict)) if isinstance(messages, list) else ""
    named = MARKER.search(text)
    weights = MIXED_WEIGHTS
    if isinstance(messages, list) and named and named.group(1) in ORACLES and INSTRUCTION.search(text):
        weights = INSTRUCTION_WEIGHTS
        messages = list(takewhile(lambda m: not (isinstance(m, dict) and m.get("role") == "assistant"), messages))
    blob = json.dumps([seed, request_seed, messages], sort_keys=True, default=str).encode()
    ticket = int.from_bytes(hashlib.sha256(blob).digest()[:8], "big") % sum(weights.values())
    for behavior, weight in weights.items():
        if ticket < weight:
            return behavior
        ticket -= weight
    raise AssertionError("unreachable: the ticket is below the weights' sum")


@dataclass(frozen=True)
class Collapse:
    """A simulated collapse (`collapse-M-S`): success at complexity λ falls as a logistic of midpoint M and slope S."""

    midpoint: float
    slope: float

    def success(self, lam: float) -> float:
        """p(λ) = 1 / (1 + e^(S·(λ − M))), written with tanh so that no λ overflows it."""
        return (1 - math.tanh(self.slope * (lam - self.midpoint) / 2)) / 2


def collapse_of(name: str) -> Collapse | None:
    """The collapse a behaviour's name asks for; None when it names none (does not start with `collapse`).

    Raises:
        ValueError: a name starting with `collapse` that is not COLLAPSE_FORM.
    """
    if not name.startswith("collapse"):
        return None
    found = COLLAPSE.fullmatch(name)
    slope = float(found.group(2)) if found is not None and found.group(2) is not None else COLLAPSE_SLOPE
    if found is None or slope <= 0:
        raise ValueError(f"model {name!r}: a collapse behaviour is named {COLLAPSE_FORM}")
    return Collapse(float(found.group(1)), slope)


def is_behavior(name: str) -> bool:
    """`name` is one of BEHAVIORS or a well-formed collapse (the server's `thinker` aside).

    Raises:
        ValueError: a malformed collapse name.
    """
    return name in BEHAVIORS or collapse_of(name) is not None


def collapse_program(collapse: Collapse, puzzle: str) -> str:
    """The program of a collapse in code mode: the oracle's answer while λ ≤ M, `wrong`'s above (a step at M).

    Raises:
        ValueError: `puzzle`'s λ cannot be read from its instance.
    """
    return (f"{complexity_source(puzzle)}\n\ndef solve(instance):\n    if complexity(instance) <= {collapse.midpoint!r}:\n"
            f"        return oracle(instance)\n    {WRONG[puzzle]}\n")


def complexity_source(puzzle: str) -> str:
    """The oracle program of `puzzle`, renamed `oracle`, and `complexity(instance)`, its λ (LAMBDA).

    Raises:
        ValueError: `puzzle`'s λ cannot be read from its instance.
    """
    if puzzle not in LAMBDA:
        raise ValueError(f"a collapse behaviour reads λ from the instance: it serves {', '.join(LAMBDA)} (the prompt's line "
                         f"'codebench-puzzle: NAME'), not {puzzle}")
    return (f"{oracle_source(puzzle).rstrip()}\n\n\noracle = solve\n\n\ndef complexity(instance):\n"
            f"    return {LAMBDA[puzzle]}\n")


@functools.cache
def _complexity(puzzle: str) -> Any:
    """`complexity` of `complexity_source`, as the collapse's program computes it."""
    namespace: dict[str, Any] = {}
    exec(complexity_source(puzzle), namespace)  # our own oracle program and expression
    return namespace["complexity"]


def collapse_choice(name: str, seed: int, request_seed: object, messages: object) -> str:
    """The behaviour a collapse plays for a puzzle's instruction-mode request: `oracle` with probability p(λ) of the
    instance the question shows, else `wrong`; another request (code mode, a game) keeps `name`, for `reply`.

    The draw is fixed by (server seed, request seed, the conversation up to the question), as `mixed_choice`'s: the same
    request draws the same (a killed run's re-run gets the same rows), a format retry keeps it, another sampling seed or
    instance draws anew. Worked examples (--shots) come before the question, so another question with the same
    examples draws anew too. Every midpoint and slope uses the same uniform draw, so two collapses compare coupled.

    Raises:
        ValueError: a malformed collapse name, or a puzzle whose λ cannot be read from its instance.
    """
    collapse = collapse_of(name)
    texts = [str(m.get("content")) for m in messages if isinstance(m, dict)] if isinstance(messages, list) else []
    named = MARKER.search("\n".join(texts))
    asked = [k for k, text in enumerate(texts) if SHOWN_INSTANCE.search(text)]
    if (collapse is None or named is None or not asked or INSTRUCTION.search("\n".join(texts)) is None
            or named.group(1) in game_names(variants=True, plugins=True)):
        return name
    measure, instance = _complexity(named.group(1)), json.loads(SHOWN_INSTANCE.findall(texts[asked[-1]])[-1])
    try:
        lam = measure(instance)
    except Exception as exc:  # a hand-made request's instance: whatever the oracle or the expression meets
        raise ValueError(f"cannot read λ from the {named.group(1)} instance shown ({exc!r})") from None
    opening = [m for m in messages if isinstance(m, dict)][: asked[-1] + 1]
    blob = json.dumps([seed, request_seed, opening], sort_keys=True, default=str).encode()
    uniform = int.from_bytes(hashlib.sha256(blob).digest()[:8], "big") / 2**64
    return "oracle" if uniform < collapse.success(lam) else "wrong"
