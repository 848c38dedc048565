"""A reply to an instruction-mode prompt scored for its instance as `codebench run` scores it: the answer read from the
reply (`puzzles.read_answer`), then the validator's verdict (`codebench.judge.judge_answer`), and how far a plan got.
Every adapter scores through it: inspect_ai's scorer, lm-eval's metric and reasoning-gym's `score_answer`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from puzzles import Issue, Puzzle, Record, get_puzzle, read_answer

from ..judge import judge_answer, progress
from ..types import Status


@dataclass(frozen=True)
class Scored:
    """One reply's score: legal, rule_violation (with the validator's issues) or no_answer (nothing could be read)."""

    status: Status
    answer: str | None  # the answer's JSON text found in the reply
    explanation: str  # the validator's issues, or why no answer could be read ("" when legal)
    issues: tuple[Issue, ...] = ()
    first_illegal_step: int | None = None
    steps_applied: int | None = None  # trajectory puzzles: legal steps before the first illegal one or the end
    progress: float | None = None  # trajectory puzzles: steps_applied over the shortest plan's length, at most 1

    @property
    def legal(self) -> bool:
        return self.status == Status.LEGAL


def score_reply(record: Record, reply: str) -> Scored:
    """`reply` (a model's last reply text) scored for `record`'s instance."""
    return score_text(get_puzzle(record.puzzle), record.instance, reply, record.meta.get("min_solution_length"))


def score_text(puzzle: Puzzle[Any], instance: dict[str, Any], reply: str, shortest: object) -> Scored:
    """`reply` scored for `instance`, a plan's progress measured against `shortest` (its minimal length, if known)."""
    answer = read_answer(reply)
    if answer.text is None:
        return Scored(Status.NO_ANSWER, None, answer.why)
    outcome = judge_answer(puzzle, instance, answer.text)
    return Scored(outcome.status, answer.text, "; ".join(issue.message for issue in outcome.issues), outcome.issues,
                  outcome.first_illegal_step, outcome.steps_applied, progress(outcome.steps_applied, shortest))
