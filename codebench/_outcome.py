"""From sandbox facts to one status per (program, instance): the harness's records first, then the validator.

Precedence: infrastructure > syntax > timeout > memory > output caps > crashes and exceptions >
no code > the validator's rule check > legal. Nothing the program prints is consulted.
"""

from __future__ import annotations

import signal
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from puzzles import Issue, IssueCode, Puzzle, Verdict

from .sandbox import Facts, Limits


class Status(StrEnum):
    """Stored in results: values are never renamed."""

    LEGAL = "legal"
    RULE_VIOLATION = "rule_violation"
    RUNTIME_ERROR = "runtime_error"
    SYNTAX_ERROR = "syntax_error"
    TIMEOUT = "timeout"
    NO_CODE = "no_code"
    SANDBOX_ERROR = "sandbox_error"  # infrastructure: retried, never counted against the program


@dataclass(frozen=True)
class Outcome:
    """A classified execution: status, a detail code, the validator's issues and the measurements."""

    status: Status
    detail: str = ""
    issues: tuple[dict[str, Any], ...] = ()
    cpu_s: float = 0.0
    wall_s: float = 0.0
    peak_mib: float = 0.0
    stdout: str = ""
    stderr: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"status": str(self.status), "detail": self.detail, "issues": list(self.issues), "cpu_s": self.cpu_s,
                "wall_s": self.wall_s, "peak_mib": self.peak_mib, "stdout": self.stdout, "stderr": self.stderr}


@dataclass(frozen=True)
class _Call:
    status: Status
    detail: str
    verdict: Verdict | None = field(default=None)


def judge(facts: Facts, puzzle: Puzzle[Any], instance: dict[str, Any], limits: Limits) -> Outcome:
    """Classify one execution; the answer (if any) is validated here, on the host."""
    call = _classify(facts, limits) or _validate(facts, puzzle, instance)
    issues = tuple(issue.to_json() for issue in call.verdict.issues) if call.verdict else ()
    return Outcome(call.status, call.detail, issues, facts.cpu_s, facts.wall_s, facts.peak_mib, facts.stdout, facts.stderr)


def _classify(facts: Facts, limits: Limits) -> _Call | None:
    """Every status decided from the supervisor's records; None when the answer must be validated."""
    result = facts.result
    kind = result.get("kind")
    if facts.infra_error:
        return _Call(Status.SANDBOX_ERROR, facts.infra_error)
    if kind == "syntax_error":
        return _Call(Status.SYNTAX_ERROR, result.get("message", ""))
    if facts.killed == "wall_limit":
        return _Call(Status.TIMEOUT, "wall_limit")
    if facts.killed == "cpu_limit" or facts.cpu_s >= limits.for_supervisor()["cpu_s"] or facts.signal == signal.SIGXCPU:
        # our measurement, whatever signal ended it; SIGXCPU is the kernel's RLIMIT_CPU kill, whose
        # rusage can read a few ms under the limit (tick accounting)
        return _Call(Status.TIMEOUT, "cpu_limit")
    if facts.oom:
        return _Call(Status.RUNTIME_ERROR, "oom")
    if facts.killed:  # output_limit:stdout|stderr, answer_limit
        return _Call(Status.RUNTIME_ERROR, facts.killed.split(":")[0])
    if kind == "exception":
        return _Call(Status.RUNTIME_ERROR, _exception_detail(facts))
    if facts.signal is not None:
        return _Call(Status.RUNTIME_ERROR, f"signal:{_signal_name(facts.signal)}")
    if kind == "no_code":
        return _Call(Status.NO_CODE, "entry_point_missing")
    if kind in (None, "none", "garbled", "too_large"):
        return _Call(Status.RUNTIME_ERROR, f"no_result:exit_{facts.exit_code}" if kind in (None, "none") else f"bad_result:{kind}")
    if kind == "not_json":
        message = f"solve returned a {result.get('type')} value, which is not JSON ({result.get('message', '')})"
        return _Call(Status.RULE_VIOLATION, "not_json", Verdict(False, (Issue(IssueCode.MALFORMED, message),)))
    return None


def _validate(facts: Facts, puzzle: Puzzle[Any], instance: dict[str, Any]) -> _Call:
    verdict = puzzle.validate_json(instance, facts.result.get("answer", ""))
    if verdict.ok:
        return _Call(Status.LEGAL, "", verdict)
    first = verdict.issues[0]
    detail = f"{first.code}@{first.step}" if first.step is not None else str(first.code)
    return _Call(Status.RULE_VIOLATION, detail, verdict)


def _exception_detail(facts: Facts) -> str:
    name = facts.result.get("type", "Exception")
    if facts.phase == "load" and name in ("ModuleNotFoundError", "ImportError"):
        module = facts.result.get("message", "").split("'")
        return f"import:{module[1] if len(module) > 1 else name}"
    return f"exception:{name}"


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return str(number)

