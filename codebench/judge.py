"""The validate stage: from sandbox facts to one Outcome per (program, instance), the harness's records first;
and the same validation for an answer a model gave directly.

Precedence: infrastructure > syntax > timeout > memory > output caps > crashes and exceptions >
no code > the validator's rule check > legal. Nothing the program prints is consulted; the answer is
validated here, on the host. Imports `puzzles` and the shared types only.
"""

from __future__ import annotations

import signal
from dataclasses import dataclass, field
from typing import Any

from puzzles import Issue, IssueCode, Puzzle, Verdict

from .types import Facts, GameLimits, Limits, Outcome, ResultKind, Status, harmless


@dataclass(frozen=True)
class _Call:
    status: Status
    detail: str
    verdict: Verdict | None = field(default=None)


def judge_execution(facts: Facts, puzzle: Puzzle[Any], instance: dict[str, Any], limits: Limits) -> Outcome:
    """Classify one execution; the answer (if any) is validated here."""
    call = _classify(facts, limits) or _validated(puzzle, instance, facts.result.get("answer", ""))
    verdict = call.verdict or Verdict(False)
    return Outcome(call.status, call.detail, verdict.issues, facts.cpu_s, facts.wall_s, facts.peak_mib, facts.stdout, facts.stderr,
                   verdict.first_illegal_step, verdict.steps_applied)


def _classify(facts: Facts, limits: Limits) -> _Call | None:
    """Every status decided from the supervisor's records; None when the answer must be validated."""
    kind = facts.kind
    if facts.infra_error:
        return _Call(Status.SANDBOX_ERROR, facts.infra_error)
    if kind == ResultKind.SYNTAX_ERROR:
        return _Call(Status.SYNTAX_ERROR, _said(facts, "message"))
    if facts.killed == "wall_limit":
        return _Call(Status.TIMEOUT, "wall_limit")
    if facts.killed == "cpu_limit" or facts.cpu_s >= limits.cpu_limit_s or facts.signal == signal.SIGXCPU:
        # our measurement, whatever signal ended it; SIGXCPU is the kernel's RLIMIT_CPU kill, whose
        # rusage can read a few ms under the limit (tick accounting)
        return _Call(Status.TIMEOUT, "cpu_limit")
    if facts.oom:
        return _Call(Status.RUNTIME_ERROR, "oom")
    if facts.killed:  # output_limit:stdout|stderr, answer_limit
        return _Call(Status.RUNTIME_ERROR, facts.killed.split(":")[0])
    if kind == ResultKind.EXCEPTION:
        return _Call(Status.RUNTIME_ERROR, _exception_detail(facts))
    if kind == ResultKind.NOT_JSON:  # a whole report, as an exception's: the kill of a child that has reported is ours
        message = f"solve returned a {_said(facts, 'type')} value, which is not JSON ({_said(facts, 'message')})"
        return _Call(Status.RULE_VIOLATION, "not_json", Verdict(False, (Issue(IssueCode.MALFORMED, message),)))
    if facts.signal is not None:
        return _Call(Status.RUNTIME_ERROR, f"signal:{_signal_name(facts.signal)}")
    if kind == ResultKind.NO_CODE:
        return _Call(Status.NO_CODE, "entry_point_missing")
    if kind in (None, ResultKind.NONE):
        return _Call(Status.RUNTIME_ERROR, f"no_result:exit_{facts.exit_code}")
    if kind in (ResultKind.GARBLED, ResultKind.TOO_LARGE):
        return _Call(Status.RUNTIME_ERROR, f"bad_result:{kind}")
    return None


def judge_player(facts: Facts, game_limits: GameLimits) -> Outcome | None:
    """A sandboxed game player's setup or move, from the supervisor's records: None when it stands (`ready`) or gave
    a move for the engine to judge; else the outcome that ends its game. The move's limits play the part of an
    instance's limits; the game's CPU budget, spent, is a timeout `game_cpu_limit`."""
    if not facts.infra_error and (facts.killed == "game_cpu_limit" or facts.signal == signal.SIGXCPU
                                  or facts.game_cpu_s >= game_limits.game_cpu_s):
        return Outcome(Status.TIMEOUT, "game_cpu_limit", cpu_s=facts.cpu_s, wall_s=facts.wall_s, stdout=facts.stdout,
                       stderr=facts.stderr)
    call = _classify(facts, Limits(cpu_s=game_limits.move_cpu_s, wall_s=game_limits.move_wall_limit_s))
    if call is None and facts.kind in (ResultKind.READY, ResultKind.ANSWER):
        return None
    call = call or _Call(Status.RUNTIME_ERROR, f"bad_result:{facts.kind}")  # a load's report where a move was due
    return Outcome(call.status, call.detail, call.verdict.issues if call.verdict else (), facts.cpu_s, facts.wall_s,
                   facts.peak_mib, facts.stdout, facts.stderr)


def judge_answer(puzzle: Puzzle[Any], instance: dict[str, Any], answer: str | bytes) -> Outcome:
    """The validator's verdict on an answer's JSON text read straight from a model (instruction mode): `legal`, or
    `rule_violation` with the first issue as the detail."""
    call = _validated(puzzle, instance, answer)
    verdict = call.verdict or Verdict(False)
    return Outcome(call.status, call.detail, verdict.issues, first_illegal_step=verdict.first_illegal_step,
                   steps_applied=verdict.steps_applied)


def progress(steps: int | None, shortest: object) -> float | None:
    """How far a trajectory got: its legal steps over the shortest solution's length (the instance's
    `min_solution_length`), at most 1 (None: not known, or not a trajectory): the partial credit of a failed plan."""
    if steps is None or not isinstance(shortest, int) or isinstance(shortest, bool) or shortest <= 0:
        return None
    return min(1.0, steps / shortest)


def _validated(puzzle: Puzzle[Any], instance: dict[str, Any], answer: str | bytes) -> _Call:
    verdict = puzzle.validate_json(instance, answer)
    if verdict.ok:
        return _Call(Status.LEGAL, "", verdict)
    first = verdict.issues[0]
    detail = f"{first.code}@{first.step}" if first.step is not None else str(first.code)
    return _Call(Status.RULE_VIOLATION, detail, verdict)


def _exception_detail(facts: Facts) -> str:
    name = _said(facts, "type") or "Exception"
    if facts.phase == "load" and name in ("ModuleNotFoundError", "ImportError"):
        module = _said(facts, "message").split("'")
        return f"import:{module[1] if len(module) > 1 else name}"
    return f"exception:{name}"


def _said(facts: Facts, field: str) -> str:
    """A string the program's child reported about itself, made harmless to print (it chose every character)."""
    value = facts.result.get(field)
    return harmless(value) if isinstance(value, str) else ""


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return str(number)
