"""Collapse regimes beyond λ* (which is `metrics.collapse_thresholds`): where accuracy breaks, how steeply, and how the
first seed's level regimes compare.

Per (model, mode, puzzle), each level with a counted execution is one point: (mean λ of its counted instances, legal
rate over its counted executions); the complexity None reads as the level number. Infrastructure rows are left out.

- `reliable_level`: the highest level number whose legal rate is at least RELIABLE_RATE.
- regime rates: the legal rate pooled over the executions of the levels in each of REGIMES (NaN where none counted).
- a segmented fit: the continuous hinge y = a + b·x + c·max(0, x − τ), ordinary least squares over the level points
  (unweighted), τ the interior point x (neither the first nor the last) with the smallest sum of squared errors, ties
  to the smallest τ; slope before τ is b, after it b + c. It needs at least 3 distinct x.
- `global_curve`: per level, the unweighted mean over groups of each group's legal rate (the seed's "global mean pass
  rate vs level").
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..types import ExecutionRow, Status
from .metrics import CellMetrics, cell_metrics

RELIABLE_RATE = 0.8
REGIMES: tuple[tuple[str, int, int | None], ...] = (("L1-2", 1, 2), ("L3-4", 3, 4), ("L5+", 5, None))  # name, first, last level
_TIE = 1e-12  # relative: SSEs this close are a tie (float noise), resolved to the smaller τ
_PIVOT = 1e-12  # relative to the largest entry: a smaller pivot means a singular system


@dataclass(frozen=True)
class HingeFit:
    """A continuous two-segment line: slope `slope_before` up to `breakpoint`, `slope_after` beyond it."""

    breakpoint: float
    intercept: float  # a: the fitted y at x = 0 on the first segment
    slope_before: float
    slope_after: float
    sse: float


@dataclass(frozen=True)
class CollapseRegime:
    """One (model, mode, puzzle): the highest reliable level, the segmented fit (None: too few levels), the regimes' rates."""

    model: str
    mode: str
    puzzle: str
    levels: int  # levels with at least one counted execution
    reliable_level: int | None
    breakpoint: float | None
    slope_before: float | None
    slope_after: float | None
    regime_rates: dict[str, float]  # REGIMES' names → pooled legal rate, NaN where no execution counted


@dataclass(frozen=True)
class LevelMean:
    """One level of the global curve: how many (model, mode, puzzle) groups counted there, and their mean legal rate."""

    level: int
    groups: int
    mean_legal_rate: float


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float] | None:
    """Gaussian elimination with partial pivoting; None when the system is singular (to working precision)."""
    size = len(vector)
    rows = [[*matrix[i], vector[i]] for i in range(size)]
    scale = max((abs(v) for row in matrix for v in row), default=0.0)
    if scale == 0.0:
        return None
    for col in range(size):
        pivot = max(range(col, size), key=lambda r: abs(rows[r][col]))
        if abs(rows[pivot][col]) <= _PIVOT * scale:
            return None
        rows[col], rows[pivot] = rows[pivot], rows[col]
        for r in range(col + 1, size):
            factor = rows[r][col] / rows[col][col]
            for c in range(col, size + 1):
                rows[r][c] -= factor * rows[col][c]
    solution = [0.0] * size
    for r in reversed(range(size)):
        solution[r] = (rows[r][size] - sum(rows[r][c] * solution[c] for c in range(r + 1, size))) / rows[r][r]
    return solution


def _fit_at(xs: list[float], ys: list[float], tau: float) -> tuple[float, float, float, float] | None:
    """OLS of y on (1, x, max(0, x − τ)) by the normal equations: (a, b, c, sse), None if singular."""
    design = [(1.0, x, max(0.0, x - tau)) for x in xs]
    normal = [[sum(d[i] * d[j] for d in design) for j in range(3)] for i in range(3)]
    moments = [sum(d[i] * y for d, y in zip(design, ys)) for i in range(3)]
    solution = _solve(normal, moments)
    if solution is None:
        return None
    a, b, c = solution
    sse = sum((y - (a * d[0] + b * d[1] + c * d[2])) ** 2 for d, y in zip(design, ys))
    return a, b, c, sse


def hinge_fit(points: Sequence[tuple[float, float]]) -> HingeFit | None:
    """The least-squares continuous hinge over (x, y) points, τ among the interior x; None with fewer than 3 distinct x.

    x is centred and scaled before the fit (λ can be large: the normal equations square the conditioning);
    the result is in the points' own units.
    """
    distinct = sorted({x for x, _ in points})
    if len(distinct) < 3:
        return None
    centre = statistics.fmean(x for x, _ in points)
    spread = (distinct[-1] - distinct[0]) / 2
    xs = [(x - centre) / spread for x, _ in points]
    ys = [float(y) for _, y in points]
    best: tuple[float, float, float, float, float] | None = None  # (sse, τ, a, b, c) in scaled units, τ as given
    for tau in distinct[1:-1]:
        fit = _fit_at(xs, ys, (tau - centre) / spread)
        if fit is None:
            continue
        a, b, c, sse = fit
        if best is None or sse < best[0] - _TIE * max(1.0, best[0]):
            best = (sse, tau, a, b, c)
    if best is None:
        return None
    sse, tau, a, b, c = best
    return HingeFit(breakpoint=tau, intercept=a - b * centre / spread, slope_before=b / spread, slope_after=(b + c) / spread, sse=sse)


def _rate(legal: int, executions: int) -> float:
    return legal / executions if executions else math.nan


def _in_regime(level: int, first: int, last: int | None) -> bool:
    return level >= first and (last is None or level <= last)


_Group = tuple[str, str, str]


def _groups(rows: Iterable[ExecutionRow]) -> dict[_Group, list[CellMetrics]]:
    """Each group's levels with at least one counted execution, in level order."""
    groups: defaultdict[_Group, list[CellMetrics]] = defaultdict(list)
    for cell in cell_metrics(list(rows), ks=[]):
        if cell.executions:
            groups[(cell.model, cell.mode, cell.puzzle)].append(cell)
    return groups


def collapse_regimes(rows: Iterable[ExecutionRow]) -> list[CollapseRegime]:
    """One CollapseRegime per (model, mode, puzzle) with a counted execution, sorted by that key."""
    regimes = []
    for key, cells in sorted(_groups(rows).items()):
        reliable = [cell.level for cell in cells if cell.legal_rate >= RELIABLE_RATE]
        fit = hinge_fit(sorted((cell.mean_complexity, cell.legal_rate) for cell in cells))
        rates = {}
        for name, first, last in REGIMES:
            inside = [cell for cell in cells if _in_regime(cell.level, first, last)]
            rates[name] = _rate(sum(cell.status_counts.get(Status.LEGAL, 0) for cell in inside), sum(cell.executions for cell in inside))
        regimes.append(CollapseRegime(*key, levels=len(cells), reliable_level=max(reliable, default=None),
                                      breakpoint=fit.breakpoint if fit else None, slope_before=fit.slope_before if fit else None,
                                      slope_after=fit.slope_after if fit else None, regime_rates=rates))
    return regimes


def global_curve(rows: Iterable[ExecutionRow]) -> list[LevelMean]:
    """Per level counted in any group, the unweighted mean of the groups' legal rates there, sorted by level."""
    by_level: defaultdict[int, list[float]] = defaultdict(list)
    for cells in _groups(rows).values():
        for cell in cells:
            by_level[cell.level].append(cell.legal_rate)
    return [LevelMean(level, len(rates), statistics.fmean(rates)) for level, rates in sorted(by_level.items())]
