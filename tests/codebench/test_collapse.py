"""Collapse regimes: the hinge fit against exact and hand-computed cases, the highest reliable level, the regimes' pooled
rates, infrastructure exclusion, and the global curve."""

from __future__ import annotations

import math

import pytest

from codebench.analysis.collapse import (
    REGIMES,
    RELIABLE_RATE,
    CollapseRegime,
    HingeFit,
    LevelMean,
    collapse_regimes,
    global_curve,
    hinge_fit,
)
from codebench.types import ExecutionRow, Status


def row(instance: str, status: str, *, level: int, sample: int = 0, complexity: float | None = None, model: str = "m",
        mode: str = "code", puzzle: str = "hanoi") -> ExecutionRow:
    return ExecutionRow(model, mode, puzzle, level, instance, sample, str(status), "", complexity)


def level_rows(level: int, legal: int, failed: int, **kwargs: object) -> list[ExecutionRow]:
    """One sample on each of legal + failed instances of one level; the first `legal` are legal."""
    return [row(f"L{level}/{i}", Status.LEGAL if i < legal else Status.RULE_VIOLATION, level=level, **kwargs)
            for i in range(legal + failed)]


def ladder(rates: list[float], per_level: int = 10, lambdas: list[float] | None = None, **kwargs: object) -> list[ExecutionRow]:
    """Level i+1 has round(rate × per_level) legal instances of per_level."""
    rows = []
    for index, rate in enumerate(rates):
        legal = round(rate * per_level)
        extra = {"complexity": lambdas[index]} if lambdas else {}
        rows += level_rows(index + 1, legal, per_level - legal, **extra, **kwargs)
    return rows


# the hinge fit


def test_hinge_fit_recovers_an_exact_hinge() -> None:
    fit = hinge_fit([(1, 1.0), (2, 1.0), (3, 1.0), (4, 0.5), (5, 0.0), (6, -0.5)])
    assert isinstance(fit, HingeFit)
    assert fit.breakpoint == 3
    assert (fit.intercept, fit.slope_before, fit.slope_after, fit.sse) == pytest.approx((1.0, 0.0, -0.5, 0.0), abs=1e-9)


def test_hinge_fit_by_hand_with_noise() -> None:
    # points (1, 1.0), (2, 0.9), (3, 0.3), (4, 0.0); candidate τ: 2 and 3 (the interior x).
    # τ=2: b alone fixes the point at x=1 exactly, so the rest is a line through x=2, 3, 4:
    #   mean y 0.4, slope ((-1)(0.5) + (1)(-0.4)) / 2 = -0.45, fitted 0.85, 0.4, -0.05, residuals 0.05, -0.1, 0.05,
    #   SSE 0.0025 + 0.01 + 0.0025 = 0.015; slope before (0.85 - 1) / (2 - 1) = -0.15, intercept 1 + 0.15 = 1.15.
    # τ=3: the point at x=4 is fitted exactly, the rest is a line through x=1, 2, 3:
    #   mean y 2.2/3, slope ((-1)(1 - 2.2/3) + (1)(0.3 - 2.2/3)) / 2 = -0.35, fitted 13/12, 2.2/3, 4.6/12,
    #   residuals -1/12, 2/12, -1/12, SSE 6/144 = 0.041666…
    # τ=2 has the smaller SSE.
    fit = hinge_fit([(3, 0.3), (1, 1.0), (4, 0.0), (2, 0.9)])  # any order
    assert fit is not None and fit.breakpoint == 2
    assert (fit.intercept, fit.slope_before, fit.slope_after, fit.sse) == pytest.approx((1.15, -0.15, -0.45, 0.015))


def test_equal_errors_choose_the_smallest_breakpoint() -> None:
    # symmetric under x → 5 − x, y → 1 − y: τ=2 and τ=3 fit equally well (SSE 1/6 each, by the same reasoning as above)
    fit = hinge_fit([(1, 1.0), (2, 1.0), (3, 0.0), (4, 0.0)])
    assert fit is not None and fit.breakpoint == 2
    assert (fit.slope_before, fit.slope_after, fit.sse) == pytest.approx((-1 / 6, -0.5, 1 / 6))
    line = hinge_fit([(x, 2.0 - 0.25 * x) for x in range(1, 7)])  # a straight line: every τ fits exactly
    assert line is not None and line.breakpoint == 2
    assert (line.slope_before, line.slope_after, line.sse) == pytest.approx((-0.25, -0.25, 0.0), abs=1e-9)


@pytest.mark.parametrize("points", [[], [(1.0, 1.0)], [(1.0, 1.0), (2.0, 0.0)], [(1.0, 1.0), (1.0, 0.5), (2.0, 0.0), (2.0, 0.1)]])
def test_fewer_than_three_distinct_x_have_no_fit(points: list[tuple[float, float]]) -> None:
    assert hinge_fit(points) is None


def test_repeated_x_are_fitted_as_separate_points() -> None:
    # two points at x=1 with y 1.2 and 0.8 fit best at their mean: the hinge through (1, 1), (2, 1), (3, 0) is exact there
    fit = hinge_fit([(1, 1.2), (1, 0.8), (2, 1.0), (3, 0.0)])
    assert fit is not None and fit.breakpoint == 2
    assert (fit.slope_before, fit.slope_after, fit.sse) == pytest.approx((0.0, -1.0, 0.08), abs=1e-9)


def test_hinge_fit_is_accurate_at_large_lambda() -> None:
    # Hanoi-sized λ: the normal equations on raw x would lose every digit here
    base = 2.0**20
    fit = hinge_fit([(base + x, 1.0 if x <= 2 else 1.0 - 0.1 * (x - 2)) for x in range(6)])
    assert fit is not None and fit.breakpoint == base + 2
    assert (fit.slope_before, fit.slope_after, fit.sse) == pytest.approx((0.0, -0.1, 0.0), abs=1e-9)


# regimes per group


def test_reliable_level_counts_exactly_the_threshold() -> None:
    assert RELIABLE_RATE == 0.8
    [regime] = collapse_regimes(ladder([1.0, 0.9, 0.8, 0.7, 0.3, 0.0]))
    assert regime.reliable_level == 3  # 0.8 is reliable, 0.7 is not
    [rebound] = collapse_regimes(ladder([1.0, 0.5, 0.9]))
    assert rebound.reliable_level == 3  # the highest reliable level, not the last before the first miss
    [never] = collapse_regimes(ladder([0.7, 0.5]))
    assert never.reliable_level is None
    assert never.breakpoint is never.slope_before is never.slope_after is None  # two levels: no fit


def test_regime_rates_pool_executions_not_levels() -> None:
    rows = (level_rows(1, 4, 0) + level_rows(2, 1, 1) + level_rows(3, 0, 3)
            + [row("L1/s", Status.SANDBOX_ERROR, level=1), row("L5/a", Status.API_ERROR, level=5)])
    [regime] = collapse_regimes(rows)
    assert [name for name, _, _ in REGIMES] == list(regime.regime_rates)
    assert regime.regime_rates["L1-2"] == pytest.approx(5 / 6)  # (4 + 1) / (4 + 2), not the levels' mean 0.75
    assert regime.regime_rates["L3-4"] == 0.0
    assert math.isnan(regime.regime_rates["L5+"])  # level 5 has only an infrastructure row
    assert regime.levels == 3
    assert regime.reliable_level == 1


def test_levels_five_and_above_pool_into_one_regime() -> None:
    [regime] = collapse_regimes(ladder([1.0, 1.0, 1.0, 1.0, 0.5, 0.0, 1.0], per_level=2))
    assert regime.regime_rates == pytest.approx({"L1-2": 1.0, "L3-4": 1.0, "L5+": 0.5})


def test_the_breakpoint_is_in_lambda_and_levels_are_ordered_by_lambda() -> None:
    # λ = 2 × level; level 5 listed first: rates over λ 2, 4, 6, 8, 10 are 1, 1, 1, 0.5, 0, an exact hinge at λ=6
    rows = ladder([1.0, 1.0, 1.0, 0.5, 0.0], per_level=2, lambdas=[2.0, 4.0, 6.0, 8.0, 10.0])
    [regime] = collapse_regimes(rows[-2:] + rows[:-2])
    assert regime.breakpoint == 6.0
    assert (regime.slope_before, regime.slope_after) == pytest.approx((0.0, -0.25), abs=1e-9)
    # level numbers against λ: level 3 is the easiest (λ=1); by λ the rates read 1 (λ=1), 1 (λ=2), 0 (λ=3), 0 (λ=4)
    swapped = ladder([1.0, 0.0, 1.0, 0.0], per_level=2, lambdas=[2.0, 3.0, 1.0, 4.0])
    [ordered] = collapse_regimes(swapped)
    assert ordered.breakpoint == 2.0  # the tie of the symmetric case: the smaller τ
    assert (ordered.slope_before, ordered.slope_after) == pytest.approx((-1 / 6, -0.5))


def test_infrastructure_rows_are_ignored() -> None:
    clean = ladder([1.0, 1.0, 1.0, 0.5, 0.0], per_level=2)
    infra = [row(f"L{level}/x{i}", status, level=level, complexity=100.0)  # never counted, so never in a mean λ either
             for level in (1, 4, 6) for i, status in enumerate([Status.SANDBOX_ERROR, Status.API_ERROR])]
    assert collapse_regimes(clean + infra) == collapse_regimes(clean)
    assert collapse_regimes(infra) == []
    assert global_curve(clean + infra) == global_curve(clean)


def test_one_regime_per_group_sorted() -> None:
    rows = ladder([1.0, 0.0], puzzle="sat") + ladder([1.0], mode="instruction") + ladder([0.5], model="a")
    assert [(r.model, r.mode, r.puzzle, r.levels) for r in collapse_regimes(rows)] == [
        ("a", "code", "hanoi", 1), ("m", "code", "sat", 2), ("m", "instruction", "hanoi", 1)]
    assert collapse_regimes([]) == []


def test_a_whole_regime_record() -> None:
    [regime] = collapse_regimes(ladder([1.0, 1.0, 1.0, 0.5, 0.0, 0.0], per_level=2))
    # points (1,1) (2,1) (3,1) (4,.5) (5,0) (6,0); not an exact hinge, so compare with the fit itself
    fit = hinge_fit([(1, 1.0), (2, 1.0), (3, 1.0), (4, 0.5), (5, 0.0), (6, 0.0)])
    assert fit is not None
    assert regime == CollapseRegime("m", "code", "hanoi", 6, 3, fit.breakpoint, fit.slope_before, fit.slope_after,
                                    {"L1-2": 1.0, "L3-4": 0.75, "L5+": 0.0})


# the global curve


def test_global_curve_is_the_unweighted_mean_over_groups() -> None:
    # group A (hanoi): level 1 4/4 legal, level 2 1/2; group B (sat): level 1 1/2, level 2 0/2, level 3 2/2
    a = level_rows(1, 4, 0) + level_rows(2, 1, 1)
    b = level_rows(1, 1, 1, puzzle="sat") + level_rows(2, 0, 2, puzzle="sat") + level_rows(3, 2, 0, puzzle="sat")
    assert global_curve(b + a) == [
        LevelMean(1, 2, 0.75),  # (1 + 0.5) / 2, not the pooled 5/6
        LevelMean(2, 2, 0.25),  # (0.5 + 0) / 2
        LevelMean(3, 1, 1.0),
    ]
    assert global_curve([]) == []


def test_global_curve_counts_modes_and_models_as_groups() -> None:
    rows = ladder([1.0], mode="instruction") + ladder([0.0]) + ladder([0.4], model="b")
    [point] = global_curve(rows)
    assert (point.level, point.groups) == (1, 3)
    assert point.mean_legal_rate == pytest.approx(1.4 / 3)
