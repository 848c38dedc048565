"""Tokens against correctness, and the report's cost table.

Do passes spend more or fewer tokens than fails (`token_stats`, and the point-biserial r of `token_correlations`)?
What did the run cost, per model, mode and puzzle (`cost_lines`)? Prices and the sums behind each line are
`codebench.costs`', which the run's budgets read too.

Pure functions; imports the standard library, the shared types and costs. Infrastructure rows are left out.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from ..costs import Price, spent
from ..types import ExecutionRow, ReplySource, SampleUsage, Status
from .crosstask import counted, pearson

SCOPES = ("run", "model", "mode", "puzzle")


@dataclass(frozen=True)
class TokenStats:
    """One (model, mode, puzzle, level): mean token counts of passes and fails, over the rows that have the count (NaN: none)."""

    model: str
    mode: str
    puzzle: str
    level: int
    passes: int  # counted legal rows, with or without token counts
    fails: int  # counted rows of any other status
    pass_completion: float
    fail_completion: float
    pass_reasoning: float
    fail_reasoning: float


@dataclass(frozen=True)
class TokenCorrelation:
    """One (model, mode): point-biserial r between passing (1/0) and the token count; NaN with under 3 rows or a constant side."""

    model: str
    mode: str
    rows: int  # counted rows
    r_completion: float  # over the rows with completion_tokens
    r_reasoning: float  # over the rows with reasoning_tokens


@dataclass(frozen=True)
class CostLine:
    """Tokens and cost of one scope: the run, a model, a (model, mode) or a (model, mode, puzzle); "" where aggregated away.

    cost is None when some model in the line has no price (or a batch request's price no batch rate); a request answered
    from the response cache costs nothing, one sent through the Batch API its batch rate."""

    scope: str
    model: str
    mode: str
    puzzle: str
    requests: int
    uncounted: int  # requests whose server gave no token count: 0 in these sums, so the line is a lower bound
    prompt_tokens: int
    completion_tokens: int
    reasoning_tokens: int
    cost: float | None
    cached: int = 0  # requests answered from the response cache (their tokens are in the sums; they cost nothing)
    batched: int = 0  # requests sent through the Batch API (at its batch rate)


def _mean(values: Iterable[float]) -> float:
    values = list(values)
    return statistics.fmean(values) if values else math.nan


def token_stats(rows: Sequence[ExecutionRow]) -> list[TokenStats]:
    """One TokenStats per (model, mode, puzzle, level) with counted rows, sorted by that key."""
    groups: defaultdict[tuple[str, str, str, int], list[ExecutionRow]] = defaultdict(list)
    for row in counted(rows):
        groups[(row.model, row.mode, row.puzzle, row.level)].append(row)
    stats = []
    for key, group in sorted(groups.items()):
        passed = [row for row in group if row.status == Status.LEGAL]
        failed = [row for row in group if row.status != Status.LEGAL]
        stats.append(TokenStats(
            *key, passes=len(passed), fails=len(failed),
            pass_completion=_mean(r.completion_tokens for r in passed if r.completion_tokens is not None),
            fail_completion=_mean(r.completion_tokens for r in failed if r.completion_tokens is not None),
            pass_reasoning=_mean(r.reasoning_tokens for r in passed if r.reasoning_tokens is not None),
            fail_reasoning=_mean(r.reasoning_tokens for r in failed if r.reasoning_tokens is not None)))
    return stats


def _point_biserial(pairs: list[tuple[bool, int]]) -> float:
    """Pearson r between pass (1/0) and a count: the point-biserial correlation."""
    return pearson([float(passed) for passed, _ in pairs], [float(count) for _, count in pairs])


def token_correlations(rows: Sequence[ExecutionRow]) -> list[TokenCorrelation]:
    """One TokenCorrelation per (model, mode) with counted rows, sorted by that key."""
    groups: defaultdict[tuple[str, str], list[ExecutionRow]] = defaultdict(list)
    for row in counted(rows):
        groups[(row.model, row.mode)].append(row)
    return [TokenCorrelation(
        *key, rows=len(group),
        r_completion=_point_biserial([(r.status == Status.LEGAL, r.completion_tokens) for r in group if r.completion_tokens is not None]),
        r_reasoning=_point_biserial([(r.status == Status.LEGAL, r.reasoning_tokens) for r in group if r.reasoning_tokens is not None]))
        for key, group in sorted(groups.items())]


def _line(scope: str, key: tuple[str, str, str], usages: list[SampleUsage], prices: Mapping[str, Price]) -> CostLine:
    """One scope's sums (`costs.spent`)."""
    sums = spent(usages, prices)
    return CostLine(scope, *key, requests=sum(u.requests for u in usages), prompt_tokens=sums.prompt_tokens,
                    completion_tokens=sums.completion_tokens, reasoning_tokens=sum(u.reasoning_tokens or 0 for u in usages),
                    cost=sums.cost, uncounted=sum(u.uncounted for u in usages),
                    cached=sum(u.requests for u in usages if u.reply_source == ReplySource.CACHE),
                    batched=sum(u.requests for u in usages if u.reply_source == ReplySource.BATCH))


def _scoped(usage: SampleUsage, depth: int) -> tuple[str, str, str]:
    """The usage's (model, mode, puzzle) with all but the first `depth` blanked: its line at that scope."""
    full = (usage.model, usage.mode, usage.puzzle)
    return (full[0] if depth > 0 else "", full[1] if depth > 1 else "", full[2] if depth > 2 else "")


def cost_lines(usages: Sequence[SampleUsage], prices: Mapping[str, Price]) -> list[CostLine]:
    """The run line, then one per model, per (model, mode), per (model, mode, puzzle): in that order, each group sorted."""
    lines = [_line(SCOPES[0], ("", "", ""), list(usages), prices)]
    for depth, scope in enumerate(SCOPES[1:], start=1):
        groups: defaultdict[tuple[str, str, str], list[SampleUsage]] = defaultdict(list)
        for usage in usages:
            groups[_scoped(usage, depth)].append(usage)
        lines += [_line(scope, key, group, prices) for key, group in sorted(groups.items())]
    return lines
