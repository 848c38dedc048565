"""Cross-task generalisation: the model × puzzle success matrix, and whether success on one puzzle predicts success on
another (Pearson r of the per-level legal rates, with a 95% Fisher-z interval).

Pure functions over `ExecutionRow`s; imports the standard library and the shared types. Infrastructure statuses say
nothing about the model and are left out everywhere; a pass is a legal execution.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations

from ..types import INFRASTRUCTURE_STATUSES, ExecutionRow, Status

Z_95 = statistics.NormalDist().inv_cdf(0.975)  # 1.959963…: the two-sided 95% normal quantile
_CLAMP = 1 - 1e-12  # |r| = 1 would make atanh infinite


@dataclass(frozen=True)
class SuccessCell:
    """One (model, mode, puzzle) over all its levels; legal_rate is NaN when no execution counted."""

    model: str
    mode: str
    puzzle: str
    executions: int  # counted executions (infrastructure excluded)
    legal_rate: float


@dataclass(frozen=True)
class TaskCorrelation:
    """Pearson r between two puzzles' per-level legal rates over the (model, mode, level) cells both have.

    r is NaN (and the interval None) with fewer than 3 shared cells or a constant side; the interval needs 4 cells."""

    puzzle_a: str
    puzzle_b: str
    pairs: int  # shared (model, mode, level) cells
    r: float
    low: float | None
    high: float | None


def counted(rows: Iterable[ExecutionRow]) -> list[ExecutionRow]:
    """The rows that say something about the model: infrastructure failures left out."""
    return [row for row in rows if row.status not in INFRASTRUCTURE_STATUSES]


def pearson(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Pearson r; NaN with fewer than 3 points or a side of zero variance, where r says nothing."""
    if len(xs) != len(ys):
        raise ValueError(f"pearson needs paired values, got {len(xs)} and {len(ys)}")
    if len(xs) < 3 or statistics.pvariance(xs) == 0 or statistics.pvariance(ys) == 0:
        return math.nan
    return max(-1.0, min(1.0, statistics.correlation(xs, ys)))


def fisher_interval(r: float, n: int) -> tuple[float | None, float | None]:
    """The 95% interval of r from n pairs by Fisher's z: tanh(atanh(r) ± 1.96/√(n−3)); None without r or below 4 pairs."""
    if math.isnan(r) or n < 4:
        return None, None
    z = math.atanh(max(-_CLAMP, min(_CLAMP, r)))
    half = Z_95 / math.sqrt(n - 3)
    return math.tanh(z - half), math.tanh(z + half)


def success_matrix(rows: Sequence[ExecutionRow]) -> list[SuccessCell]:
    """One SuccessCell per (model, mode, puzzle) seen, all levels pooled, sorted by that key."""
    tallies: defaultdict[tuple[str, str, str], list[int]] = defaultdict(lambda: [0, 0])  # [legal, counted]
    for row in rows:
        tally = tallies[(row.model, row.mode, row.puzzle)]
        if row.status not in INFRASTRUCTURE_STATUSES:
            tally[0] += row.status == Status.LEGAL
            tally[1] += 1
    return [SuccessCell(*key, executions=n, legal_rate=legal / n if n else math.nan)
            for key, (legal, n) in sorted(tallies.items())]


def level_rates(rows: Sequence[ExecutionRow]) -> dict[str, dict[tuple[str, str, int], float]]:
    """puzzle → (model, mode, level) → legal rate, over the cells with at least one counted execution."""
    tallies: defaultdict[str, defaultdict[tuple[str, str, int], list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    for row in counted(rows):
        tally = tallies[row.puzzle][(row.model, row.mode, row.level)]
        tally[0] += row.status == Status.LEGAL
        tally[1] += 1
    return {puzzle: {cell: legal / n for cell, (legal, n) in cells.items()} for puzzle, cells in tallies.items()}


def task_correlations(rows: Sequence[ExecutionRow]) -> list[TaskCorrelation]:
    """One TaskCorrelation per unordered pair of puzzles with counted executions (a < b), sorted by (a, b)."""
    rates = level_rates(rows)
    correlations = []
    for a, b in combinations(sorted(rates), 2):
        shared = sorted(rates[a].keys() & rates[b].keys())
        r = pearson([rates[a][cell] for cell in shared], [rates[b][cell] for cell in shared])
        correlations.append(TaskCorrelation(a, b, len(shared), r, *fisher_interval(r, len(shared))))
    return correlations
