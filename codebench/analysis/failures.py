"""The first seed's failure-mode taxonomy: why a counted execution that is not legal failed, one category per row.

Legal rows and infrastructure rows (sandbox_error, api_error) get no category. The rules, first match wins:

1. status runtime_error, syntax_error, timeout or no_code → that status (a code-mode failure, each its own category).
2. the reply was cut off (truncated) → incomplete_reasoning.
3. status no_answer → no_answer.
4. any other status but rule_violation (one this taxonomy does not know) → the status itself.
5. from here the status is rule_violation. At least one issue code, and every one a format code (invalid_json,
   duplicate_key, malformed, bad_value, unknown_token, extra, too_many_issues) → malformed.
6. illegal_move among the issue codes: first_illegal_step known and ≥ 1 → state_inconsistency (an illegal transition
   from a state the earlier steps produced); the first step illegal, or the step unknown → constraint_violation.
7. conflict or given_altered among the issue codes → constraint_violation.
8. missing among the issue codes → incomplete_reasoning.
9. goal_not_reached among the issue codes: fewer steps applied than the shortest solution has (both known), or the
   reply hedged → incomplete_reasoning (a valid prefix that stops short); else → confident_error (a legal plan of full
   length, stated without hedging, that does not reach the goal).
10. otherwise (no issue codes, or others): the reply hedged → incomplete_reasoning, else confident_error.

Whether a reply hedged (`ExecutionRow.hedged`) was decided by the mode that read it (`codebench.modes._hedging`).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from puzzles import IssueCode

from ..types import INFRASTRUCTURE_STATUSES, ExecutionRow, Status
from .metrics import ordered_counts


class FailureMode(StrEnum):
    """The first seed's five categories (stored in reports: values are never renamed)."""

    STATE_INCONSISTENCY = "state_inconsistency"
    CONSTRAINT_VIOLATION = "constraint_violation"
    INCOMPLETE_REASONING = "incomplete_reasoning"
    CONFIDENT_ERROR = "confident_error"
    MALFORMED = "malformed"


CODE_STATUSES = frozenset({Status.RUNTIME_ERROR, Status.SYNTAX_ERROR, Status.TIMEOUT, Status.NO_CODE})  # each its own category
CATEGORY_ORDER: tuple[str, ...] = (*FailureMode, Status.NO_ANSWER, Status.RUNTIME_ERROR, Status.SYNTAX_ERROR, Status.TIMEOUT,
                                   Status.NO_CODE)  # the report's column order; unknown categories follow alphabetically
FORMAT_CODES = frozenset({IssueCode.INVALID_JSON, IssueCode.DUPLICATE_KEY, IssueCode.MALFORMED, IssueCode.BAD_VALUE,
                          IssueCode.UNKNOWN_TOKEN, IssueCode.EXTRA, IssueCode.TOO_MANY_ISSUES})


@dataclass(frozen=True)
class FailureCounts:
    """One (model, mode, puzzle, level): its classified rows by category, in CATEGORY_ORDER, zero counts omitted."""

    model: str
    mode: str
    puzzle: str
    level: int
    failures: int  # classified rows: counted and not legal
    counts: dict[str, int]


def classify(row: ExecutionRow) -> str | None:
    """The row's failure category by the module's rules; None for a legal or an infrastructure row."""
    status = row.status
    if status == Status.LEGAL or status in INFRASTRUCTURE_STATUSES:
        return None
    if status in CODE_STATUSES:
        return str(status)
    if row.truncated:
        return str(FailureMode.INCOMPLETE_REASONING)
    if status == Status.NO_ANSWER:
        return str(Status.NO_ANSWER)
    if status != Status.RULE_VIOLATION:
        return str(status)
    codes = set(row.issue_codes)
    if codes and codes <= FORMAT_CODES:
        return str(FailureMode.MALFORMED)
    if IssueCode.ILLEGAL_MOVE in codes:
        later = row.first_illegal_step is not None and row.first_illegal_step >= 1
        return str(FailureMode.STATE_INCONSISTENCY if later else FailureMode.CONSTRAINT_VIOLATION)
    if IssueCode.CONFLICT in codes or IssueCode.GIVEN_ALTERED in codes:
        return str(FailureMode.CONSTRAINT_VIOLATION)
    if IssueCode.MISSING in codes:
        return str(FailureMode.INCOMPLETE_REASONING)
    if IssueCode.GOAL_NOT_REACHED in codes:
        short = row.shortest is not None and row.steps_applied is not None and row.steps_applied < row.shortest
        return str(FailureMode.INCOMPLETE_REASONING if short or row.hedged else FailureMode.CONFIDENT_ERROR)
    return str(FailureMode.INCOMPLETE_REASONING if row.hedged else FailureMode.CONFIDENT_ERROR)


def failure_modes(rows: Iterable[ExecutionRow]) -> list[FailureCounts]:
    """One FailureCounts per (model, mode, puzzle, level) with at least one classified row, sorted by that key."""
    cells: defaultdict[tuple[str, str, str, int], Counter[str]] = defaultdict(Counter)
    for row in rows:
        category = classify(row)
        if category is not None:
            cells[(row.model, row.mode, row.puzzle, row.level)][category] += 1
    return [FailureCounts(*key, failures=sum(counts.values()), counts=ordered_counts(counts, CATEGORY_ORDER))
            for key, counts in sorted(cells.items())]
