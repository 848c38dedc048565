"""The adaptive collapse search: a hand-worked fixture fixes the posterior and the next choice; the posterior moves the
right way; everything is deterministic; the stopping rule; the interval's coverage on simulated curves; edge cases."""

from __future__ import annotations

import math

import numpy as np
import pytest

from codebench.adaptive import LAPSE, AdaptiveDesign, AskedPoint, StopReason, ThresholdEstimate, grid_cost

HANOI = AdaptiveDesign(1, 15)


def logistic(midpoint: float, slope: float, hi: int) -> dict[int, float]:
    """A known curve without lapse: the chance of a legal result at each complexity 1..hi."""
    return {n: 1 / (1 + math.exp(slope * (n - midpoint))) for n in range(1, hi + 1)}


def fixture_design() -> AdaptiveDesign:
    """Candidates 1..6; five midpoint cells of width 1 (centres 1.5 .. 5.5); one slope, 2·ln 3; the lapse 0.02."""
    return AdaptiveDesign(1, 6, midpoints=5, slopes=1, slope_low=2 * math.log(3), slope_high=2 * math.log(3))


FIXTURE = [AskedPoint(3, 1, 1), AskedPoint(5, 0, 1), AskedPoint(4, 0, 1)]  # legal at 3, failed at 5, failed at 4


def test_the_hand_worked_fixture_fixes_the_posterior_and_the_next_choice() -> None:
    """By hand. With slope 2·ln 3, exp(slope·(λ − m)) = 3^(2(λ − m)), and λ − m is a half-integer, so
    p(λ; m) = 0.02 + 0.96 / (1 + 3^k), k = 2(λ − m):
        k = −9: 0.979951   −7: 0.979561   −5: 0.976066   −3: 0.945714   −1: 0.74
        k =  1: 0.26        3: 0.054286    5: 0.023934    7: 0.020439    9: 0.020049
    The prior is uniform over the five midpoints; the likelihood of the three results is p(3)·(1 − p(5))·(1 − p(4)):
        m = 1.5: p(3) = 0.054286 (k=3), 1 − p(5) = 0.979561 (k=7), 1 − p(4) = 0.976066 (k=5) → 0.051903
        m = 2.5: 0.26 × 0.976066 × 0.945714                                                     → 0.240001
        m = 3.5: 0.74 × 0.945714 × 0.74                                                         → 0.517873
        m = 4.5: 0.945714 × 0.74 × 0.26                                                         → 0.181955
        m = 5.5: 0.976066 × 0.26 × 0.054286                                                     → 0.013777
    Sum 1.005509; posterior 0.0516, 0.2387, 0.5150, 0.1810, 0.0137; cumulative at the cells' upper edges (2..6)
    0.0516, 0.2903, 0.8053, 0.9863, 1. Median in the cell [3, 4]: 3 + (0.5 − 0.2903)/0.5150 = 3.407; 2.5 % in [1, 2]:
    1 + 0.025/0.0516 = 1.484; 97.5 % in [4, 5]: 4 + (0.975 − 0.8053)/0.1810 = 4.938.

    Next choice: for each λ, q = Σ post·p(λ; m), the predicted chance of a legal result, and the entropy of the midpoint
    posterior after a success (∝ post·p) and after a failure (∝ post·(1 − p)); expected = q·H_s + (1 − q)·H_f:
        λ = 1: q 0.9573, H_s 1.1796, H_f 1.3288 → 1.1859
        λ = 2: q 0.8672, H_s 1.1012, H_f 1.1666 → 1.1099
        λ = 3: q 0.6305, H_s 0.9922, H_f 1.0908 → 1.0286   the least: ask 3 next
        λ = 4: q 0.2950, H_s 1.0145, H_f 1.0736 → 1.0562
        λ = 5: q 0.0919, H_s 1.1719, H_f 1.1480 → 1.1502
        λ = 6: q 0.0316, H_s 1.3766, H_f 1.1917 → 1.1975
    """
    design = fixture_design()
    posterior = design.posterior(FIXTURE)
    assert design.midpoint_grid.tolist() == [1.5, 2.5, 3.5, 4.5, 5.5]
    assert posterior.marginal == pytest.approx([0.0516, 0.2387, 0.5150, 0.1810, 0.0137], abs=5e-5)
    assert design.estimate(FIXTURE) == pytest.approx((3.407, 1.484, 4.938), abs=5e-4)
    legal, counted = design.counts(FIXTURE)
    weights = design._weights(legal[None], counted[None])
    assert design._expected_entropy(weights)[0] == pytest.approx([1.1859, 1.1099, 1.0286, 1.0562, 1.1502, 1.1975], abs=5e-5)
    assert design.next_point(FIXTURE) == 3


def test_the_success_table_is_the_fixtures_hand_table() -> None:
    """The fixture's p(λ; m), as the design computes it (through tanh), against the docstring's table."""
    design = fixture_design()
    table = design.success(np.array([3.0, 4.0, 5.0]))  # rows λ, columns m = 1.5 .. 5.5
    assert table[0] == pytest.approx([0.054286, 0.26, 0.74, 0.945714, 0.976066], abs=1e-6)
    assert table[2, 0] == pytest.approx(LAPSE + (1 - 2 * LAPSE) / (1 + 3**7))


def test_legal_results_push_the_threshold_up_and_failures_down() -> None:
    prior = HANOI.estimate([])
    assert prior.lambda_star == pytest.approx(8.0)
    assert HANOI.estimate([(8, 5, 5)]).lambda_star > prior.lambda_star + 1
    assert HANOI.estimate([(8, 0, 5)]).lambda_star < prior.lambda_star - 1
    assert HANOI.estimate([(n, 5, 5) for n in range(1, 16)]).low > 14  # legal everywhere: at the top of the range
    assert HANOI.estimate([(n, 0, 5) for n in range(1, 16)]).high < 2


def test_one_stray_failure_far_below_does_not_drag_the_threshold() -> None:
    """The lapse: a single failure at λ 1 among clean results around 9 moves λ* by little."""
    clean = [(7, 10, 10), (8, 9, 10), (9, 5, 10), (10, 1, 10), (11, 0, 10)]
    assert HANOI.estimate([*clean, (1, 0, 1)]).lambda_star == pytest.approx(HANOI.estimate(clean).lambda_star, abs=0.2)


def test_the_fitted_curve_falls_within_the_lapse_floors() -> None:
    curve = HANOI.posterior([(5, 8, 8), (9, 4, 8), (12, 0, 8)]).curve(np.linspace(1, 15, 57))
    assert np.all(np.diff(curve) < 0)
    assert curve.min() >= LAPSE and curve.max() <= 1 - LAPSE
    assert curve[0] > 0.9 and curve[-1] < 0.1


def test_the_choice_depends_on_the_counts_only_and_is_repeatable() -> None:
    asked = [(8, 1, 1), (12, 0, 1), (10, 1, 2)]
    first = HANOI.next_point(asked)
    assert HANOI.next_point(list(reversed(asked))) == first
    assert HANOI.next_point([(8, 1, 1), (12, 0, 1), (10, 1, 1), (10, 0, 1)]) == first
    assert AdaptiveDesign(1, 15).next_point(asked) == first  # a fresh design: nothing cached decides


def test_no_results_ask_the_middle_of_the_range_ties_to_the_smaller() -> None:
    assert HANOI.next_point([]) == 8
    six = AdaptiveDesign(1, 6)
    weights = six._weights(*(np.zeros((1, 6), dtype=np.int64),) * 2)
    expected = six._expected_entropy(weights)[0]
    assert expected[2] == pytest.approx(expected[3], rel=1e-9)  # 3 and 4 tie by symmetry
    assert six.next_point([]) == 3


def test_a_simulation_is_a_function_of_its_seed() -> None:
    design = AdaptiveDesign(1, 10, midpoints=100, slopes=8)
    truth = logistic(5.5, 2, 10)
    one, two = (design.simulate(truth, 1.5, 200, repetitions=20, seed=3) for _ in range(2))
    other = design.simulate(truth, 1.5, 200, repetitions=20, seed=4)
    assert one.counted.tolist() == two.counted.tolist() and one.lambda_star.tolist() == two.lambda_star.tolist()
    assert one.counted.tolist() != other.counted.tolist()


def test_the_search_stops_at_the_width_else_at_the_budget() -> None:
    assert HANOI.done([], target_width=1.0, budget=100) is None
    narrow = [(7, 40, 40), (8, 30, 40), (9, 10, 40), (10, 0, 40)]
    assert HANOI.estimate(narrow).width < 1.0
    assert HANOI.done(narrow, target_width=1.0, budget=10) is StopReason.WIDTH  # the width first
    some = [(6, 9, 10), (8, 5, 10), (10, 1, 10)]
    width = HANOI.estimate(some).width
    assert 1 < width < 5
    assert HANOI.done(some, target_width=width, budget=100) is None  # narrower than the target, strictly
    assert HANOI.done(some, target_width=width * (1 + 1e-9), budget=100) is StopReason.WIDTH
    assert HANOI.done([(8, 1, 2), (9, 1, 2)], target_width=1.0, budget=4) is StopReason.BUDGET
    assert HANOI.done([(8, 1, 2), (9, 1, 2)], target_width=1.0, budget=5) is None
    assert HANOI.done([], target_width=1.0, budget=0) is StopReason.BUDGET
    for width, budget in ((0, 10), (-1.0, 10), (1.0, -1), (1.0, 2.5)):
        with pytest.raises(ValueError, match="target_width|budget"):
            HANOI.done([], target_width=width, budget=budget)


def test_the_interval_covers_the_true_midpoint_on_simulated_curves() -> None:
    """Three known logistics (no lapse), 80 seeded searches each to a width of 1: the 95 % intervals cover the true
    midpoint in 90–99 % of all searches, no curve below 85 %, and λ* is unbiased to within 0.15."""
    design = AdaptiveDesign(1, 12, midpoints=132, slopes=12)
    covered, searches = 0, 0
    for midpoint, slope in ((4.0, 1.5), (6.3, 3.0), (9.0, 1.0)):
        truth = logistic(midpoint, slope, 12)
        run = design.simulate(truth, 1.0, 400, repetitions=80, seed=11)
        assert run.reached.all()
        hits = int(np.sum((run.low <= midpoint) & (midpoint <= run.high)))
        assert hits >= 0.85 * 80, (midpoint, slope, hits)
        assert abs(float(np.mean(run.lambda_star)) - midpoint) < 0.15
        covered, searches = covered + hits, searches + 80
    assert 0.9 <= covered / searches <= 0.99


def test_the_grid_spends_whole_rounds_and_more_than_the_adaptive_search_on_a_steep_curve() -> None:
    design = AdaptiveDesign(1, 15, midpoints=140, slopes=12)
    truth = logistic(11, 3, 15)
    levels = [(3,), (4,), (5, 6), (7, 8), (9, 10), (12, 13, 14, 15)]
    cost = grid_cost(design, truth, levels, 1.5, 1200, repetitions=30, seed=0)
    adaptive = design.simulate(truth, 1.5, 1200, repetitions=30, seed=0)
    assert cost.reached == 1.0 and round(cost.counted * 30) % 6 == 0  # every repetition stops after a whole round
    assert adaptive.reached.all() and adaptive.counted.mean() < cost.counted / 3


def test_a_range_of_one_value_is_done_before_any_request() -> None:
    single = AdaptiveDesign(4, 4)
    assert single.next_point([]) == 4
    assert single.estimate([(4, 1, 3)]) == ThresholdEstimate(4.0, 4.0, 4.0)
    assert single.done([], target_width=0.5, budget=10) is StopReason.WIDTH


@pytest.mark.parametrize("asked, match", [
    ([(16, 1, 1)], "outside the design's range: ask only integers 1..15"),
    ([(0, 0, 1)], "outside the design's range"),
    ([(7.5, 1, 1)], "outside the design's range"),
    ([(True, 1, 1)], "outside the design's range"),
    ([(7, 2, 1)], "expected 0 <= legal <= counted"),
    ([(7, -1, 1)], "expected 0 <= legal <= counted"),
])
def test_results_outside_the_range_or_inconsistent_are_refused(asked: list[tuple[object, int, int]], match: str) -> None:
    for call in (HANOI.estimate, HANOI.next_point, HANOI.posterior):
        with pytest.raises(ValueError, match=match):
            call(asked)  # type: ignore[arg-type]


@pytest.mark.parametrize("kwargs, match", [
    ({"lo": 5, "hi": 4}, "two integers lo <= hi"),
    ({"lo": 1.0, "hi": 4}, "two integers lo <= hi"),
    ({"lo": 1, "hi": 4, "midpoints": 0}, "at least one midpoint"),
    ({"lo": 1, "hi": 4, "slope_low": 9.0}, "slope_low <= slope_high"),
    ({"lo": 1, "hi": 4, "lapse": 0.5}, "lapse"),
    ({"lo": 1, "hi": 4, "lapse": 0.0}, "lapse"),
])
def test_a_design_that_cannot_work_is_refused(kwargs: dict[str, object], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        AdaptiveDesign(**kwargs)  # type: ignore[arg-type]


def test_a_simulation_needs_the_whole_curve_and_real_levels() -> None:
    design = AdaptiveDesign(1, 4, midpoints=20, slopes=4)
    with pytest.raises(ValueError, match=r"missing \[4\]"):
        design.simulate({1: 0.9, 2: 0.5, 3: 0.1}, 1.0, 10)
    truth = {1: 0.9, 2: 0.5, 3: 0.1, 4: 0.05}
    for levels in ([], [(2,), ()]):
        with pytest.raises(ValueError, match="at least one level"):
            design.simulate(truth, 1.0, 10, levels=levels)
    with pytest.raises(ValueError, match="outside the design's range"):
        design.simulate(truth, 1.0, 10, levels=[(5,)])
