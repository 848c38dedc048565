"""Adaptive collapse search (issue 31): choose the next complexity λ to ask from what has been judged so far, until the
collapse threshold λ* is known to a target width, with a fraction of the requests a fixed L1–L6 grid spends.

The model. Success (a legal result) at complexity λ falls as a logistic with a lapse floor ε on both sides:

    p(λ) = ε + (1 − 2ε) / (1 + exp(slope · (λ − midpoint)))

The midpoint is where p = 1/2 and where p falls fastest, so it is the first seed's λ* = argmax |dAcc/dλ|
(`analysis.metrics` estimates the same λ* from a grid by finite differences). ε = LAPSE = 0.02 is fixed, not fitted: without
it one stray failure far below the threshold (a truncated reply) or one stray success far above it (a memorised
instance) has likelihood exp(−slope · distance) under a steep curve and drags the midpoint to it; with it, such a result
costs at most a factor 1/ε. Symmetric, it leaves the midpoint the curve's centre and steepest point.

The prior, on a grid. Midpoint uniform over the puzzle's supported range [lo, hi]: `midpoints` cells of equal width,
each point its cell's centre. Slope log-uniform over [slope_low, slope_high] per unit λ: `slopes` points evenly spaced in
log (np.geomspace), equal weights. slope_low defaults to 2·ln 9 / (hi − lo), a curve whose fall from 0.9 to 0.1 spans
the whole range (shallower says nothing about a threshold inside it); slope_high = SLOPE_HIGH = 8, a fall from 0.98 to
0.02 between two adjacent integers (steeper is a step that integer λ cannot tell apart). The posterior on the grid is
prior × binomial likelihood of the asked points (λ, legal, counted), computed in log space.

The next point. Among the integers of [lo, hi], the λ whose one more result minimises the expected entropy of the
midpoint's marginal posterior (the Psi-marginal method: Kontsevich & Tyler 1999, Prins 2013; the slope is a nuisance),
ties (within a relative _TIE) to the smallest λ. No randomness: the choice follows from the asked points alone, so a
run resumed from its stored results asks what it would have asked. With nothing asked, the same rule on the prior
picks the middle of the range (the smaller of two middles).

The estimate. λ* = the marginal posterior's median; the interval is its central CREDIBLE (95 %) interval. The marginal
is read as a density constant on each midpoint cell, so quantiles interpolate linearly inside a cell and always lie in
[lo, hi]: an interval that reaches lo or hi says the threshold may lie beyond the range.

Stopping. `done`: the interval is narrower than the target width (StopReason.WIDTH), else the counted results reached
the budget (StopReason.BUDGET), else None. A target narrower than about one λ unit cannot be reached on a steep curve:
with every result at k legal and every one at k + 1 not, nothing tells where in between the midpoint is.

The results are assumed independent given λ: ask a fresh instance (seed) for each result; repeated samples of one
instance are correlated and would make the interval too narrow.

`simulate` runs either design (adaptive, or the fixed grid of levels in rounds of one result a level) on a known
success curve with seeded draws, many repetitions at once; `grid_cost` is what the report states as "the full grid,
simulated from the fitted curve". Imports numpy and the standard library only: no store, no sandbox, no model.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import cached_property
from typing import NamedTuple, TypeGuard

import numpy as np

LAPSE = 0.02  # ε: the success floor above the threshold's fall and the failure floor below it
SLOPE_HIGH = 8.0  # per unit λ: a fall from 0.98 to 0.02 between two adjacent integers
MIDPOINTS = 240  # midpoint cells over [lo, hi]
SLOPES = 24  # slope points, log-spaced
CREDIBLE = 0.95
_TIE = 1e-9  # relative: expected entropies this close are a tie (float noise), resolved to the smaller λ


class StopReason(StrEnum):
    """Why an adaptive search stops: the interval is narrow enough, or the results allowed are spent."""

    WIDTH = "width"
    BUDGET = "budget"


class AskedPoint(NamedTuple):
    """Results judged at one complexity: `legal` of `counted` (infrastructure failures are not counted)."""

    complexity: int
    legal: int
    counted: int


class ThresholdEstimate(NamedTuple):
    """λ* (the posterior median of the midpoint) and its central 95 % credible interval."""

    lambda_star: float
    low: float
    high: float

    @property
    def width(self) -> float:
        return self.high - self.low


@dataclass(frozen=True, eq=False)
class Posterior:
    """The posterior on the grid, as data for plotting: `weights[i, j]` is P(midpoints[i], slopes[j] | results)."""

    design: AdaptiveDesign
    weights: np.ndarray  # (midpoints, slopes), sums to 1

    @property
    def marginal(self) -> np.ndarray:
        """P(midpoint in each cell | results)."""
        return self.weights.sum(axis=1)

    def curve(self, complexities: Iterable[float]) -> np.ndarray:
        """The fitted curve: the posterior mean of p(λ) at each λ (any real λ; for a smooth line, a fine range)."""
        return (self.design.success(np.asarray(list(complexities), dtype=float)) * self.weights.ravel()).sum(axis=1)


@dataclass(frozen=True, eq=False)
class Simulation:
    """Seeded repetitions of one design on a known curve: per repetition, the counted results spent, the final estimate,
    and whether the interval reached the target width before the budget."""

    counted: np.ndarray
    lambda_star: np.ndarray
    low: np.ndarray
    high: np.ndarray
    reached: np.ndarray  # bool


class GridCost(NamedTuple):
    """What the fixed grid spends to reach a width: the mean counted results (a repetition that never reaches it counts
    what it spent within the budget, so the mean is then a lower bound), and the fraction of repetitions that reached it."""

    counted: float
    reached: float


@dataclass(frozen=True)
class AdaptiveDesign:
    """The design over one puzzle's supported complexities lo..hi (integers); see the module's docstring."""

    lo: int
    hi: int
    midpoints: int = MIDPOINTS
    slopes: int = SLOPES
    slope_low: float | None = None  # None: 2·ln 9 / (hi − lo)
    slope_high: float = SLOPE_HIGH
    lapse: float = LAPSE

    def __post_init__(self) -> None:
        if not (_is_int(self.lo) and _is_int(self.hi)) or self.lo > self.hi:
            raise ValueError(f"the complexity range must be two integers lo <= hi, got {self.lo!r}..{self.hi!r}")
        if not (_is_int(self.midpoints) and self.midpoints >= 1 and _is_int(self.slopes) and self.slopes >= 1):
            raise ValueError(f"the grid needs at least one midpoint and one slope, got {self.midpoints!r} × {self.slopes!r}")
        if not 0 < self.slope_range[0] <= self.slope_range[1] < math.inf:
            raise ValueError(f"the slopes must satisfy 0 < slope_low <= slope_high < inf, got {self.slope_range}")
        if not 0 < self.lapse < 0.5:  # at 0, one stray result has likelihood 0 at every midpoint but one side's
            raise ValueError(f"the lapse must be in (0, 0.5), got {self.lapse!r}")

    @property
    def slope_range(self) -> tuple[float, float]:
        low = self.slope_low if self.slope_low is not None else 2 * math.log(9) / max(self.hi - self.lo, 1)
        return low, self.slope_high

    @cached_property
    def candidates(self) -> np.ndarray:
        """The complexities the design may ask: the integers lo..hi."""
        return np.arange(self.lo, self.hi + 1)

    @cached_property
    def midpoint_grid(self) -> np.ndarray:
        """The centres of `midpoints` equal cells over [lo, hi]."""
        return self.lo + (np.arange(self.midpoints) + 0.5) * (self.hi - self.lo) / self.midpoints

    @cached_property
    def slope_grid(self) -> np.ndarray:
        return np.geomspace(*self.slope_range, self.slopes)

    def success(self, complexities: np.ndarray) -> np.ndarray:
        """p(λ) at each λ (rows) for each grid point (columns: midpoint-major, as `Posterior.weights.ravel()`)."""
        return self._chance(complexities, 1.0)

    def _chance(self, complexities: np.ndarray, side: float) -> np.ndarray:
        """p(λ) (side 1) or 1 − p(λ) (side −1: the curve mirrored about the midpoint), each from its own tanh, so a
        chance near 1 never rounds the other side's to 0."""
        distance = side * (complexities[:, None, None] - self.midpoint_grid[None, :, None])
        fall = 0.5 * (1 - np.tanh(0.5 * self.slope_grid[None, None, :] * distance))  # 1 / (1 + e^x), without overflow
        return (self.lapse + (1 - 2 * self.lapse) * fall).reshape(len(complexities), -1)

    @cached_property
    def _table(self) -> np.ndarray:
        """p at each candidate for each grid point: (candidates, midpoints × slopes)."""
        return self.success(self.candidates.astype(float))

    @cached_property
    def _log_table(self) -> tuple[np.ndarray, np.ndarray]:
        """ln p and ln(1 − p) at each candidate for each grid point."""
        return np.log(self._table), np.log(self._chance(self.candidates.astype(float), -1.0))

    def counts(self, asked: Iterable[AskedPoint | tuple[int, int, int]]) -> tuple[np.ndarray, np.ndarray]:
        """(legal, counted) per candidate, summed over the asked points.

        Raises:
            ValueError: a complexity that is not an integer in lo..hi, or counts that are not 0 <= legal <= counted.
        """
        legal = np.zeros(len(self.candidates), dtype=np.int64)
        counted = np.zeros(len(self.candidates), dtype=np.int64)
        for complexity, good, total in asked:
            index = self._index(complexity)
            if not (_is_int(good) and _is_int(total) and 0 <= good <= total):
                raise ValueError(f"at complexity {complexity}: {good!r} legal of {total!r} counted; expected 0 <= legal <= counted")
            legal[index] += good
            counted[index] += total
        return legal, counted

    def _index(self, complexity: object) -> int:
        """The candidate's position; a complexity the design cannot ask is refused."""
        if not _is_int(complexity) or not self.lo <= complexity <= self.hi:
            raise ValueError(f"complexity {complexity!r} is outside the design's range: ask only integers {self.lo}..{self.hi}")
        return int(complexity) - self.lo

    def _weights(self, legal: np.ndarray, counted: np.ndarray) -> np.ndarray:
        """Normalised posterior weights over the grid for each row of counts: (rows, midpoints × slopes)."""
        log_p, log_q = self._log_table
        log_post = np.einsum("bc,cg->bg", legal.astype(float), log_p) + np.einsum("bc,cg->bg", (counted - legal).astype(float), log_q)
        weights = np.exp(log_post - log_post.max(axis=1, keepdims=True))  # the prior is uniform on the grid
        return weights / weights.sum(axis=1, keepdims=True)

    def _quantiles(self, weights: np.ndarray, levels: Sequence[float]) -> np.ndarray:
        """The midpoint marginal's quantiles, its density constant on each cell: (rows, levels)."""
        marginal = weights.reshape(len(weights), self.midpoints, self.slopes).sum(axis=2)
        above = np.cumsum(marginal, axis=1)  # the mass up to each cell's upper edge
        rows = np.arange(len(weights))
        found = []
        for level in levels:
            target = level * above[:, -1]
            cell = np.argmax(above >= target[:, None], axis=1)  # the first cell reaching the level: its mass is > 0
            inside = 1 - (above[rows, cell] - target) / marginal[rows, cell]
            found.append(self.lo + (cell + np.clip(inside, 0.0, 1.0)) * (self.hi - self.lo) / self.midpoints)
        return np.stack(found, axis=1)

    def _estimates(self, weights: np.ndarray) -> np.ndarray:
        """(rows, 3): λ*, low, high."""
        tail = (1 - CREDIBLE) / 2
        return self._quantiles(weights, (0.5, tail, 1 - tail))

    def _expected_entropy(self, weights: np.ndarray) -> np.ndarray:
        """For each row and candidate, the midpoint marginal's entropy expected after one more result there: (rows, candidates).

        With u_s, u_f the unnormalised marginals after a success or a failure (they sum to the marginal) and q = Σ u_s
        the predicted success probability, E[H] = q·H(u_s/q) + (1−q)·H(u_f/(1−q)) = −Σ (u_s ln u_s + u_f ln u_f) + q ln q +
        (1−q) ln(1−q).
        """
        grid = weights.reshape(len(weights), self.midpoints, self.slopes)
        success = np.einsum("bms,cms->bcm", grid, self._table.reshape(-1, self.midpoints, self.slopes))
        failure = np.clip(grid.sum(axis=2)[:, None, :] - success, 0.0, None)
        q = success.sum(axis=2)
        return -(_xlogx(success).sum(axis=2) + _xlogx(failure).sum(axis=2)) + _xlogx(q) + _xlogx(1 - q)

    def _choose(self, weights: np.ndarray) -> np.ndarray:
        """Each row's candidate index with the least expected entropy, ties to the smallest."""
        expected = self._expected_entropy(weights)
        best = expected.min(axis=1, keepdims=True)
        return np.argmax(expected <= best + _TIE * np.maximum(1.0, np.abs(best)), axis=1)

    def posterior(self, asked: Iterable[AskedPoint | tuple[int, int, int]]) -> Posterior:
        """The posterior on the grid after the asked points (for plotting: its marginal and fitted curve)."""
        legal, counted = self.counts(asked)
        return Posterior(self, self._weights(legal[None], counted[None])[0].reshape(self.midpoints, self.slopes))

    def estimate(self, asked: Iterable[AskedPoint | tuple[int, int, int]]) -> ThresholdEstimate:
        """λ* (posterior median of the midpoint) and its central 95 % credible interval."""
        legal, counted = self.counts(asked)
        return ThresholdEstimate(*(float(v) for v in self._estimates(self._weights(legal[None], counted[None]))[0]))

    def next_point(self, asked: Iterable[AskedPoint | tuple[int, int, int]]) -> int:
        """The complexity to ask next (one result's worth: one fresh instance)."""
        legal, counted = self.counts(asked)
        return int(self.candidates[self._choose(self._weights(legal[None], counted[None]))[0]])

    def done(self, asked: Iterable[AskedPoint | tuple[int, int, int]], target_width: float, budget: int) -> StopReason | None:
        """Why the search stops now (the width is checked first), or None to ask `next_point`.

        Raises:
            ValueError: target_width not > 0, or budget not an integer >= 0.
        """
        _check_stop(target_width, budget)
        points = list(asked)
        if self.estimate(points).width < target_width:
            return StopReason.WIDTH
        return StopReason.BUDGET if sum(point[2] for point in points) >= budget else None

    def simulate(self, truth: Mapping[int, float], target_width: float, budget: int, *, levels: Sequence[Sequence[int]] | None = None,
                 repetitions: int = 200, seed: int = 0) -> Simulation:
        """Seeded repetitions of the search on a known success curve (`truth`: λ → p at every λ the design may ask).

        levels None: the adaptive design, one result a step. Otherwise the fixed grid: rounds of one result at each level
        (a level's results cycle through its complexities, as a band's instances spread over it), the width checked
        after each round, so n, the results a level, grows until the interval reaches the target; both stop as `done`
        says, and the budget caps the grid at its last full round. Random draws come from numpy's default_rng(seed),
        one uniform per repetition and result, drawn for every repetition whether it still runs or not.
        """
        _check_stop(target_width, budget)
        missing = [int(complexity) for complexity in self.candidates if int(complexity) not in truth]
        if missing or not all(0 <= truth[int(complexity)] <= 1 for complexity in self.candidates):
            raise ValueError(f"the curve must give a chance in [0, 1] at every complexity {self.lo}..{self.hi}; missing {missing}")
        if not _is_int(repetitions) or repetitions < 1:
            raise ValueError(f"repetitions must be an integer >= 1, got {repetitions!r}")
        if levels is not None and not (levels and all(levels)):
            raise ValueError(f"the grid needs at least one level, each with a complexity, got {levels!r}")
        probability = np.array([truth[int(complexity)] for complexity in self.candidates], dtype=float)
        schedule = None if levels is None else np.array([[self._index(level[r % len(level)]) for level in levels]
                                                         for r in range(math.lcm(*(len(level) for level in levels)))])
        size = 1 if schedule is None else schedule.shape[1]
        rng = np.random.default_rng(seed)
        legal = np.zeros((repetitions, len(self.candidates)), dtype=np.int64)
        counted = np.zeros_like(legal)
        weights = self._weights(legal, counted)
        estimates = self._estimates(weights)
        for step in itertools.count():
            rows = np.flatnonzero((estimates[:, 2] - estimates[:, 1] >= target_width) & (counted.sum(axis=1) + size <= budget))
            if not len(rows):
                break
            draws = rng.random((repetitions, size))[rows]
            chosen = self._choose(weights[rows])[:, None] if schedule is None else np.tile(schedule[step % len(schedule)], (len(rows), 1))
            for column in range(size):
                counted[rows, chosen[:, column]] += 1  # rows are distinct: one result each
                legal[rows, chosen[:, column]] += draws[:, column] < probability[chosen[:, column]]
            weights[rows] = self._weights(legal[rows], counted[rows])
            estimates[rows] = self._estimates(weights[rows])
        return Simulation(counted.sum(axis=1), estimates[:, 0], estimates[:, 1], estimates[:, 2],
                          estimates[:, 2] - estimates[:, 1] < target_width)


def grid_cost(design: AdaptiveDesign, truth: Mapping[int, float], levels: Sequence[Sequence[int]], target_width: float, budget: int, *,
              repetitions: int = 200, seed: int = 0) -> GridCost:
    """The counted results the fixed grid of `levels` would spend to reach `target_width` on the curve `truth` (the fitted
    one, `Posterior.curve` at the candidates, or a known one), analysed with the design's own posterior, so only the
    choice of λ differs from the adaptive search."""
    run = design.simulate(truth, target_width, budget, levels=levels, repetitions=repetitions, seed=seed)
    return GridCost(float(run.counted.mean()), float(run.reached.mean()))


def _check_stop(target_width: float, budget: int) -> None:
    if not (isinstance(target_width, (int, float)) and target_width > 0):
        raise ValueError(f"target_width must be a number > 0, got {target_width!r}")
    if not (_is_int(budget) and budget >= 0):
        raise ValueError(f"budget must be an integer >= 0 (counted results), got {budget!r}")


def _is_int(value: object) -> TypeGuard[int | np.integer]:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def _xlogx(values: np.ndarray) -> np.ndarray:
    """x ln x, with 0 ln 0 = 0."""
    return values * np.log(np.where(values > 0, values, 1.0))
