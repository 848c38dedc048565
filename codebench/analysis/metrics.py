"""Metrics over execution rows: per-cell rates, unbiased pass@k, best-of-n, the collapse threshold λ*, and how far
failing trajectories got.

Pure functions over `ExecutionRow`s (the run store produces them); imports the standard library and the shared types.
A cell is one (model, mode, puzzle, level). Infrastructure statuses (`sandbox_error`, `api_error`) say
nothing about the program: they are counted apart and never enter a rate's denominator, but they are never dropped
either: each cell keeps them, with the legal rate they would leave if every one of them had failed (`legal_low`), and the
planned results with nothing stored yet (`missing`). A slow reasoning model's timeouts fall on the hardest instances,
so the rate over judged results alone is biased upwards exactly where collapse is measured.

λ* follows the seed paper (§ "Reasoning Collapse"): λ* = argmax_λ |dAcc/dλ| at the steepest *decline*.
With levels at discrete λ the derivative is the finite difference between adjacent levels,
(Acc_i − Acc_{i+1}) / (λ_{i+1} − λ_i), located at the midpoint of the two λ. Dividing by the λ gap
is the paper's derivative; it equals "the largest drop" only when levels are evenly spaced in λ.
Rises are not collapse, so only positive declines count; none → λ* is None.
"""

from __future__ import annotations

import math
import random
import statistics
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ..types import COUNTED_STATUSES, INFRASTRUCTURE_ORDER, INFRASTRUCTURE_STATUSES, ExecutionRow, PlannedCell, Status


@dataclass(frozen=True)
class CellMetrics:
    """One (model, mode, puzzle, level); rates are NaN when no execution counted (all infrastructure)."""

    model: str
    mode: str
    puzzle: str
    level: int
    instances: int  # distinct instances with at least one counted execution
    samples: int  # counted samples per instance, the largest
    executions: int  # counted executions (infrastructure excluded)
    legal_rate: float
    status_counts: dict[str, int]
    infra_counts: dict[str, int]  # results whose request or execution failed for a reason outside the model, after retries
    legal_low: float  # the legal rate with every infrastructure failure counted as a failure: the bound they put on it
    missing: int  # planned results with nothing stored (not run yet: an interrupted run, a budget); 0 without a plan
    pass_at: dict[int, float]  # k → mean over instances of pass@k (each with its own n, c); only k ≤ min n
    oracle_best_of_n: float  # fraction of instances with any legal sample
    best_sample_mean: float  # PuzzlePlex's best-of-n: the best single sample's mean legal rate over instances
    mean_complexity: float  # mean λ of the counted instances

    @property
    def partial(self) -> bool:
        """Not every planned result of the cell is judged: its rates stand on fewer results than asked for."""
        return bool(self.infra_counts) or self.missing > 0


@dataclass(frozen=True)
class TraceGrade:
    """How far the failing trajectories of one (model, mode, puzzle, level) got (the first seed's intermediate validity)."""

    model: str
    mode: str
    puzzle: str
    level: int
    failures: int  # counted, not legal, with a trajectory the validator could follow
    mean_progress: float  # their legal steps over the shortest solution's length, averaged
    median_first_illegal: float | None  # the median index of their first illegal step (None: none had one)


@dataclass(frozen=True)
class CollapseThreshold:
    """λ* for one (model, mode, puzzle) with its 95% bootstrap interval; all None when accuracy never declines."""

    model: str
    mode: str
    puzzle: str
    lambda_star: float | None
    low: float | None
    high: float | None


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k (Chen et al. 2021): 1 − C(n−c, k)/C(n, k), as a product so large n never overflows.

    Raises:
        ValueError: c outside 0..n, or k outside 1..n (pass@k needs at least k samples).
    """
    if not 0 <= c <= n:
        raise ValueError(f"pass@k needs 0 <= c <= n correct samples, got n={n}, c={c}")
    if not 1 <= k <= n:
        raise ValueError(f"pass@{k} needs 1 <= k <= n, but only n={n} samples were drawn")
    if n - c < k:
        return 1.0
    return 1.0 - math.prod(1.0 - k / i for i in range(n - c + 1, n + 1))


@dataclass
class _Tally:
    """One cell's rows while they are read (mutable, private)."""

    outcomes: dict[str, dict[int, str]] = field(default_factory=dict)  # instance → sample → status, counted rows
    lambdas: dict[str, float] = field(default_factory=dict)  # instance → λ, counted instances
    infra: Counter[str] = field(default_factory=Counter)


_Key = tuple[str, str, str, int]


def _tally(rows: Iterable[ExecutionRow]) -> dict[_Key, _Tally]:
    """Group rows by cell; a repeated counted (instance, sample) is refused because it would be double-counted."""
    tallies: defaultdict[_Key, _Tally] = defaultdict(_Tally)
    for row in rows:
        tally = tallies[(row.model, row.mode, row.puzzle, row.level)]
        if row.status in INFRASTRUCTURE_STATUSES:
            tally.infra[row.status] += 1
            continue
        samples = tally.outcomes.setdefault(row.instance_id, {})
        if row.sample in samples:
            raise ValueError(f"two counted executions of sample {row.sample} of {row.model} ({row.mode}) on {row.instance_id}: "
                             "the rows hold a duplicate, which would be counted twice")
        samples[row.sample] = row.status
        tally.lambdas.setdefault(row.instance_id, float(row.level if row.complexity is None else row.complexity))
    return tallies


def ordered_counts(counts: Counter[str], order: Sequence[str]) -> dict[str, int]:
    """Non-zero counts, known statuses in their fixed order, then any others alphabetically."""
    names = [s for s in order if counts[s]] + sorted(s for s in counts if s not in order and counts[s])
    return {str(name): counts[name] for name in names}


def _mean(values: Iterable[float]) -> float:
    values = list(values)
    return statistics.fmean(values) if values else math.nan


def check_ks(ks: Iterable[int]) -> tuple[int, ...]:
    """The distinct k asked for, ascending.

    Raises:
        ValueError: a k below 1.
    """
    wanted = tuple(sorted(set(ks)))
    if wanted and wanted[0] < 1:
        raise ValueError(f"pass@k needs k >= 1, got k={wanted[0]}")
    return wanted


def cell_metrics(rows: Sequence[ExecutionRow], ks: Sequence[int], planned: Iterable[PlannedCell] = ()) -> list[CellMetrics]:
    """One CellMetrics per (model, mode, puzzle, level) with rows or planned results, sorted by that key. `planned`: how
    many results the plan asks of each cell (none given: nothing is known to be missing)."""
    wanted = check_ks(ks)
    tallies = _tally(rows)
    asked: Counter[_Key] = Counter()
    for cell in planned:
        asked[(cell.model, cell.mode, cell.puzzle, cell.level)] += cell.results
    return [_cell(key, tallies.get(key, _Tally()), wanted, asked.get(key)) for key in sorted(tallies.keys() | asked.keys())]


def _cell(key: _Key, tally: _Tally, ks: tuple[int, ...], asked: int | None) -> CellMetrics:
    outcomes = tally.outcomes
    statuses = Counter(status for samples in outcomes.values() for status in samples.values())
    executions = sum(statuses.values())
    correct = {instance: sum(s == Status.LEGAL for s in samples.values()) for instance, samples in outcomes.items()}
    drawn = {instance: len(samples) for instance, samples in outcomes.items()}
    fewest = min(drawn.values(), default=0)
    by_sample: defaultdict[int, list[bool]] = defaultdict(list)
    for samples in outcomes.values():
        for sample, status in samples.items():
            by_sample[sample].append(status == Status.LEGAL)
    infra = sum(tally.infra.values())
    return CellMetrics(
        *key, instances=len(outcomes), samples=max(drawn.values(), default=0), executions=executions,
        legal_rate=statuses[Status.LEGAL] / executions if executions else math.nan,
        status_counts=ordered_counts(statuses, COUNTED_STATUSES), infra_counts=ordered_counts(tally.infra, INFRASTRUCTURE_ORDER),
        legal_low=statuses[Status.LEGAL] / (executions + infra) if executions + infra else math.nan,
        missing=max(0, asked - executions - infra) if asked is not None else 0,
        pass_at={k: _mean(pass_at_k(drawn[i], correct[i], k) for i in outcomes) for k in ks if k <= fewest},
        oracle_best_of_n=_mean(correct[i] > 0 for i in outcomes),
        best_sample_mean=max((statistics.fmean(legal) for legal in by_sample.values()), default=math.nan),
        mean_complexity=_mean(tally.lambdas.values()))


def trace_grades(rows: Sequence[ExecutionRow]) -> list[TraceGrade]:
    """One TraceGrade per (model, mode, puzzle, level) whose failures have a trajectory to grade, sorted by that key."""
    groups: defaultdict[_Key, list[ExecutionRow]] = defaultdict(list)
    for row in rows:
        if row.progress is not None and row.status != Status.LEGAL and row.status not in INFRASTRUCTURE_STATUSES:
            groups[(row.model, row.mode, row.puzzle, row.level)].append(row)
    grades = []
    for key, failed in sorted(groups.items()):
        steps = [row.first_illegal_step for row in failed if row.first_illegal_step is not None]
        grades.append(TraceGrade(*key, len(failed), statistics.fmean(row.progress or 0.0 for row in failed),
                                 statistics.median(steps) if steps else None))
    return grades


_Instance = tuple[float, int, int]  # (λ, legal executions, counted executions)
_Level = tuple[int, list[_Instance]]


def collapse_thresholds(rows: Sequence[ExecutionRow], *, boot: int = 1000, seed: int = 0) -> list[CollapseThreshold]:
    """λ* per (model, mode, puzzle), sorted, with the 2.5 % and 97.5 % percentiles of λ* over `boot` resamples.

    Each resample draws every level's instances with replacement (random.Random(seed), fresh per group,
    so a group's interval does not depend on the others) and recomputes λ*; resamples without a decline
    are left out of the percentiles. boot=0 gives no interval.
    """
    if boot < 0:
        raise ValueError(f"boot must be >= 0, got {boot}")
    groups: defaultdict[tuple[str, str, str], list[_Level]] = defaultdict(list)
    for (model, mode, puzzle, level), tally in sorted(_tally(rows).items()):
        instances = [(tally.lambdas[i], sum(s == Status.LEGAL for s in samples.values()), len(samples))
                     for i, samples in tally.outcomes.items()]
        if instances:
            groups[(model, mode, puzzle)].append((level, instances))
    return [_threshold(key, levels, boot, seed) for key, levels in groups.items()]


def _threshold(key: tuple[str, str, str], levels: list[_Level], boot: int, seed: int) -> CollapseThreshold:
    point = steepest_decline(levels)
    if point is None:
        return CollapseThreshold(*key, None, None, None)
    rng = random.Random(seed)
    estimates = [steepest_decline([(level, rng.choices(instances, k=len(instances))) for level, instances in levels])
                 for _ in range(boot)]
    low, high = _interval([e for e in estimates if e is not None])
    return CollapseThreshold(*key, point, low, high)


def steepest_decline(levels: Sequence[_Level]) -> float | None:
    """Midpoint λ of the adjacent pair of levels (ordered by mean λ) whose legal rate falls fastest per unit λ."""
    points = sorted((statistics.fmean(lam for lam, _, _ in instances), level,
                     sum(legal for _, legal, _ in instances) / sum(n for _, _, n in instances))
                    for level, instances in levels)
    best: tuple[float, float] | None = None  # (slope, midpoint)
    for (lam0, _, acc0), (lam1, _, acc1) in zip(points, points[1:]):
        drop = acc0 - acc1
        if drop <= 0:
            continue
        slope = drop / (lam1 - lam0) if lam1 > lam0 else math.inf  # two levels at one λ: a vertical step
        if best is None or slope > best[0]:
            best = (slope, (lam0 + lam1) / 2)
    return None if best is None else best[1]


def _interval(values: list[float]) -> tuple[float | None, float | None]:
    """The 2.5 % and 97.5 % percentiles (linear interpolation between order statistics)."""
    if len(values) < 2:
        return (values[0], values[0]) if values else (None, None)
    cuts = statistics.quantiles(values, n=40, method="inclusive")
    return cuts[0], cuts[-1]
