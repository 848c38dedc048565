"""Metrics: pass@k against hand and brute-force values, infrastructure exclusion, best-of-n, and λ* with its bootstrap."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from codebench.analysis.metrics import CollapseThreshold, ExecutionRow, cell_metrics, collapse_thresholds, pass_at_k


def row(instance: str, sample: int, status: str, *, level: int = 1, puzzle: str = "hanoi", model: str = "m",
        complexity: float | None = None) -> ExecutionRow:
    return ExecutionRow(model, "code", puzzle, level, instance, sample, status, "", complexity)


def grid(table: dict[str, str], **kwargs: object) -> list[ExecutionRow]:
    """{instance: "LF.."} → rows, one character per sample: L legal, F rule_violation, S sandbox_error, A api_error."""
    names = {"L": "legal", "F": "rule_violation", "S": "sandbox_error", "A": "api_error", "T": "timeout"}
    return [row(instance, sample, names[mark], **kwargs) for instance, marks in table.items() for sample, mark in enumerate(marks)]


def ladder(accuracies: list[float], per_level: int = 10, lambdas: list[float] | None = None) -> list[ExecutionRow]:
    """One sample per instance; level i+1 has round(acc × per_level) legal instances."""
    rows = []
    for index, accuracy in enumerate(accuracies):
        legal = round(accuracy * per_level)
        complexity = lambdas[index] if lambdas else None
        rows += [row(f"L{index + 1}/s{i}", 0, "legal" if i < legal else "rule_violation", level=index + 1, complexity=complexity)
                 for i in range(per_level)]
    return rows


# pass@k


@pytest.mark.parametrize(("n", "c", "k", "expected"), [
    (5, 2, 1, 0.4), (5, 2, 2, 0.7), (5, 2, 5, 1.0), (5, 2, 4, 1.0), (5, 2, 3, 0.9),
    (10, 0, 1, 0.0), (10, 0, 10, 0.0), (10, 10, 1, 1.0), (10, 10, 10, 1.0), (1, 1, 1, 1.0), (1, 0, 1, 0.0),
])
def test_pass_at_k_by_hand(n: int, c: int, k: int, expected: float) -> None:
    assert pass_at_k(n, c, k) == pytest.approx(expected, abs=1e-12)


def test_pass_at_k_matches_the_binomial_formula_over_a_grid() -> None:
    for n in range(1, 21):
        for c in range(n + 1):
            for k in range(1, n + 1):
                assert pass_at_k(n, c, k) == pytest.approx(1 - math.comb(n - c, k) / math.comb(n, k), abs=1e-12), (n, c, k)


def test_pass_at_k_is_stable_where_the_binomials_are_huge() -> None:
    exact = 1 - Fraction(math.comb(1997, 500), math.comb(2000, 500))
    assert pass_at_k(2000, 3, 500) == pytest.approx(float(exact), rel=1e-12)
    assert pass_at_k(1000, 1, 1) == pytest.approx(0.001, rel=1e-12)


@pytest.mark.parametrize(("n", "c", "k"), [(5, 2, 6), (5, 2, 0), (5, 6, 1), (5, -1, 1), (0, 0, 1)])
def test_pass_at_k_refuses_impossible_arguments(n: int, c: int, k: int) -> None:
    with pytest.raises(ValueError, match="pass@"):
        pass_at_k(n, c, k)


# cells


def test_best_of_n_pass_at_k_and_best_sample_on_a_hand_built_table() -> None:
    #            samples 0 1 2
    table = {"i0": "FLF", "i1": "LLF", "i2": "FLF", "i3": "FFF"}
    [cell] = cell_metrics(grid(table), ks=[1, 2, 3])
    assert (cell.instances, cell.samples, cell.executions) == (4, 3, 12)
    assert cell.legal_rate == pytest.approx(4 / 12)
    assert cell.status_counts == {"legal": 4, "rule_violation": 8}
    assert cell.infra_counts == {}
    assert cell.oracle_best_of_n == pytest.approx(0.75)  # i3 never legal
    assert cell.best_sample_mean == pytest.approx(0.75)  # sample 1: legal on i0, i1, i2
    assert cell.pass_at == pytest.approx({1: 1 / 3, 2: (2 / 3 + 1 + 2 / 3 + 0) / 4, 3: 0.75})
    assert cell.mean_complexity == 1.0  # no λ given: the level number


def test_infrastructure_rows_are_counted_apart_and_never_in_denominators() -> None:
    rows = grid({"a": "LFS", "b": "TLL"}) + [row("c", 0, "api_error"), row("c", 1, "api_error")]
    [cell] = cell_metrics(rows, ks=[1, 2, 3])
    assert cell.infra_counts == {"sandbox_error": 1, "api_error": 2}
    assert cell.status_counts == {"legal": 3, "rule_violation": 1, "timeout": 1}
    assert (cell.instances, cell.samples, cell.executions) == (2, 3, 5)  # c never ran; a ran twice
    assert cell.legal_rate == pytest.approx(3 / 5)
    assert cell.pass_at == pytest.approx({1: (1 / 2 + 2 / 3) / 2, 2: 1.0})  # k=3 > a's 2 counted samples
    assert cell.oracle_best_of_n == 1.0
    assert cell.best_sample_mean == 1.0  # sample 2 ran only on b, where it was legal


def test_a_cell_with_only_infrastructure_rows_has_no_rates() -> None:
    [cell] = cell_metrics(grid({"a": "SA"}), ks=[1])
    assert (cell.instances, cell.samples, cell.executions, cell.pass_at) == (0, 0, 0, {})
    assert cell.infra_counts == {"sandbox_error": 1, "api_error": 1}
    assert all(math.isnan(v) for v in (cell.legal_rate, cell.oracle_best_of_n, cell.best_sample_mean, cell.mean_complexity))


def test_one_cell_per_model_mode_puzzle_level_sorted() -> None:
    rows = [row("x", 0, "legal", model="b", puzzle="sat", level=2), row("y", 0, "legal", model="a", puzzle="sat", level=3),
            row("z", 0, "legal", model="b", puzzle="hanoi", level=1), row("w", 0, "legal", model="a", puzzle="sat", level=1)]
    keys = [(c.model, c.mode, c.puzzle, c.level) for c in cell_metrics(rows, ks=[1])]
    assert keys == [("a", "code", "sat", 1), ("a", "code", "sat", 3), ("b", "code", "hanoi", 1), ("b", "code", "sat", 2)]


def test_mean_complexity_uses_each_instance_once() -> None:
    rows = [row("a", s, "legal", complexity=5.0) for s in range(3)] + [row("b", 0, "timeout", complexity=6.0)]
    assert cell_metrics(rows, ks=[])[0].mean_complexity == 5.5


def test_a_duplicated_execution_is_refused_not_double_counted() -> None:
    with pytest.raises(ValueError, match="duplicate"):
        cell_metrics([row("a", 0, "legal"), row("a", 0, "legal")], ks=[1])


def test_k_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="k >= 1"):
        cell_metrics([row("a", 0, "legal")], ks=[0, 1])


# collapse threshold


def test_lambda_star_is_the_midpoint_of_the_steepest_decline_with_a_deterministic_interval() -> None:
    rows = ladder([1.0, 1.0, 0.9, 0.2, 0.1])
    [threshold] = collapse_thresholds(rows, boot=400, seed=0)
    assert threshold == CollapseThreshold("m", "code", "hanoi", 3.5, 3.5, 3.5)
    assert collapse_thresholds(rows, boot=400, seed=0) == [threshold]


def test_bootstrap_interval_on_a_noisy_ladder_is_reproducible_and_contains_lambda_star() -> None:
    rows = ladder([1.0, 0.75, 0.5, 0.25], per_level=4)  # evenly spaced drops: resampling moves λ*
    [first] = collapse_thresholds(rows, boot=400, seed=3)
    assert first.lambda_star == 1.5  # equal drops: the first (lowest λ) wins
    assert first.low is not None and first.high is not None
    assert first.low <= first.lambda_star <= first.high and first.low < first.high
    assert (first.low, first.high) == (1.5, 3.5)
    assert collapse_thresholds(rows, boot=400, seed=3) == [first]


@pytest.mark.parametrize("accuracies", [[0.5, 0.5, 0.5], [0.1, 0.5, 1.0], [0.0, 0.0], [1.0]])
def test_no_decline_means_no_threshold(accuracies: list[float]) -> None:
    [threshold] = collapse_thresholds(ladder(accuracies), boot=50)
    assert (threshold.lambda_star, threshold.low, threshold.high) == (None, None, None)


def test_the_decline_is_per_unit_lambda_as_in_the_paper() -> None:
    # drops 0.3 over Δλ=1 and 0.7 over Δλ=8: the paper's |dAcc/dλ| is steepest in the first gap
    rows = ladder([1.0, 0.7, 0.0], lambdas=[1.0, 2.0, 10.0])
    assert collapse_thresholds(rows, boot=0)[0].lambda_star == 1.5


def test_levels_are_ordered_by_complexity_not_by_number() -> None:
    # level 3 is the easiest by λ: ordered by λ the ladder reads 1.0 (λ=1), 0.8 (λ=2), 0.0 (λ=3)
    rows = ladder([0.8, 0.0, 1.0], lambdas=[2.0, 3.0, 1.0])
    assert collapse_thresholds(rows, boot=0)[0].lambda_star == 2.5


def test_levels_with_only_infrastructure_failures_are_skipped() -> None:
    rows = ladder([1.0, 1.0, 0.0]) + [row("L4/s0", 0, "sandbox_error", level=4), row("L4/s1", 0, "api_error", level=4)]
    assert collapse_thresholds(rows, boot=0) == [CollapseThreshold("m", "code", "hanoi", 2.5, None, None)]


def test_each_group_has_its_own_threshold_independent_of_the_others() -> None:
    hanoi = ladder([1.0, 0.75, 0.5, 0.25], per_level=4)
    sat = [ExecutionRow("m", "code", "sat", r.level, r.instance_id, r.sample, r.status, "", None) for r in ladder([1.0, 0.0])]
    alone = collapse_thresholds(hanoi, boot=200, seed=1)
    both = collapse_thresholds(sat + hanoi, boot=200, seed=1)
    assert [t.puzzle for t in both] == ["hanoi", "sat"]
    assert both[0] == alone[0]
    assert both[1] == CollapseThreshold("m", "code", "sat", 1.5, 1.5, 1.5)


def test_negative_boot_is_refused() -> None:
    with pytest.raises(ValueError, match="boot"):
        collapse_thresholds(ladder([1.0, 0.0]), boot=-1)
