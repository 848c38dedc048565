"""Cross-task: the success matrix and the per-level rate correlations against hand-computed r and Fisher intervals."""

from __future__ import annotations

import math

import pytest

from codebench.analysis.crosstask import SuccessCell, pearson, success_matrix, task_correlations
from codebench.types import ExecutionRow, Status

Z = 1.959963984540054  # the two-sided 95% normal quantile


def row(puzzle: str, model: str, level: int, instance: int, status: str, *, mode: str = "code") -> ExecutionRow:
    return ExecutionRow(model, mode, puzzle, level, f"{puzzle}/L{level}/s{instance}", 0, status, "", None)


def cell(puzzle: str, model: str, level: int, legal: int, *, of: int = 4) -> list[ExecutionRow]:
    """`of` executions of one (model, puzzle, level), the first `legal` of them legal, plus two infrastructure failures
    that would change every rate if they counted."""
    return ([row(puzzle, model, level, i, Status.LEGAL if i < legal else Status.RULE_VIOLATION) for i in range(of)]
            + [row(puzzle, model, level, of, Status.SANDBOX_ERROR), row(puzzle, model, level, of + 1, Status.API_ERROR)])


# legal executions out of 4 per (model, level); sudoku was never run for model b at level 3
COUNTS = {"hanoi": {("a", 1): 4, ("a", 2): 3, ("a", 3): 1, ("b", 1): 4, ("b", 2): 2, ("b", 3): 0},
          "sat": {("a", 1): 3, ("a", 2): 3, ("a", 3): 2, ("b", 1): 2, ("b", 2): 1, ("b", 3): 1},
          "sudoku": {("a", 1): 0, ("a", 2): 1, ("a", 3): 2, ("b", 1): 1, ("b", 2): 2}}


def fixture() -> list[ExecutionRow]:
    return [r for puzzle, counts in COUNTS.items() for (model, level), legal in counts.items() for r in cell(puzzle, model, level, legal)]


def test_success_matrix_pools_the_levels_and_leaves_infrastructure_out() -> None:
    assert success_matrix(fixture()) == [
        SuccessCell("a", "code", "hanoi", 12, 8 / 12), SuccessCell("a", "code", "sat", 12, 8 / 12),
        SuccessCell("a", "code", "sudoku", 12, 3 / 12), SuccessCell("b", "code", "hanoi", 12, 6 / 12),
        SuccessCell("b", "code", "sat", 12, 4 / 12), SuccessCell("b", "code", "sudoku", 8, 3 / 8)]


def test_a_cell_with_only_infrastructure_has_no_rate() -> None:
    [only] = success_matrix([row("hanoi", "a", 1, 0, Status.SANDBOX_ERROR), row("hanoi", "a", 1, 1, Status.API_ERROR)])
    assert (only.executions, math.isnan(only.legal_rate)) == (0, True)


def test_task_correlations_match_the_hand_computed_r_and_fisher_interval() -> None:
    # Pearson r is unchanged by scaling, so work in legal counts (rate × 4), cells a1 a2 a3 b1 b2 b3:
    # hanoi–sat: x = 4 3 1 4 2 0 (mean 7/3), y = 3 3 2 2 1 1 (mean 2)
    #   dx = 5/3 2/3 -4/3 5/3 -1/3 -7/3, dy = 1 1 0 0 -1 -1
    #   Sxy = (5 + 2 + 0 + 0 + 1 + 7)/3 = 5, Sxx = (25 + 4 + 16 + 25 + 1 + 49)/9 = 40/3, Syy = 4
    #   r = 5 / sqrt(40/3 · 4) = sqrt(15/32)
    # hanoi–sudoku over the 5 shared cells a1 a2 a3 b1 b2: x = 4 3 1 4 2 (mean 14/5), z = 0 1 2 1 2 (mean 6/5)
    #   dx = (6 1 -9 6 -4)/5, dz = (-6 -1 4 -1 4)/5
    #   Sxz = (-36 - 1 - 36 - 6 - 16)/25 = -19/5, Sxx = 170/25 = 34/5, Szz = 70/25 = 14/5, r = -19/sqrt(34 · 14) = -19/sqrt(476)
    # sat–sudoku over the same 5: y = 3 3 2 2 1 (mean 11/5), dy = (4 4 -1 -1 -6)/5
    #   Syz = (-24 - 4 - 4 + 1 - 24)/25 = -11/5, Syy = 70/25 = 14/5, r = -11/5 / (14/5) = -11/14
    correlations = task_correlations(fixture())
    assert [(c.puzzle_a, c.puzzle_b, c.pairs) for c in correlations] == [("hanoi", "sat", 6), ("hanoi", "sudoku", 5), ("sat", "sudoku", 5)]
    expected = {("hanoi", "sat"): (math.sqrt(15 / 32), 6), ("hanoi", "sudoku"): (-19 / math.sqrt(476), 5), ("sat", "sudoku"): (-11 / 14, 5)}
    for c in correlations:
        r, n = expected[(c.puzzle_a, c.puzzle_b)]
        z, se = math.atanh(r), 1 / math.sqrt(n - 3)
        assert c.r == pytest.approx(r, abs=1e-12)
        assert (c.low, c.high) == pytest.approx((math.tanh(z - Z * se), math.tanh(z + Z * se)), abs=1e-12)
    first = correlations[0]
    assert first.low is not None and first.high is not None and first.low < first.r < first.high


def test_constant_rates_give_no_correlation() -> None:
    rows = [r for (model, level), legal in COUNTS["hanoi"].items() for r in cell("hanoi", model, level, legal)]
    rows += [r for model, level in COUNTS["hanoi"] for r in cell("sat", model, level, 2)]  # sat: 0.5 everywhere
    [c] = task_correlations(rows)
    assert (c.puzzle_a, c.puzzle_b, c.pairs, math.isnan(c.r), c.low, c.high) == ("hanoi", "sat", 6, True, None, None)


def test_too_few_shared_cells() -> None:
    two = [r for level, legal in ((1, 4), (2, 1)) for puzzle in ("hanoi", "sat") for r in cell(puzzle, "a", level, legal)]
    [c] = task_correlations(two)
    assert (c.pairs, math.isnan(c.r), c.low, c.high) == (2, True, None, None)
    three = [r for level, legal in ((1, 4), (2, 1), (3, 2)) for puzzle in ("hanoi", "sat") for r in cell(puzzle, "a", level, legal)]
    [c] = task_correlations(three)
    assert (c.pairs, c.r, c.low, c.high) == (3, pytest.approx(1.0), None, None)  # r, but n − 3 = 0 leaves no interval


def test_infrastructure_never_enters_a_rate() -> None:
    # hanoi a1 holds only infrastructure failures: that cell is not shared, so 5 pairs remain
    rows = [r for r in fixture() if not (r.puzzle == "hanoi" and r.model == "a" and r.level == 1)]
    rows += [row("hanoi", "a", 1, i, Status.SANDBOX_ERROR) for i in range(4)]
    assert {(c.puzzle_a, c.puzzle_b): c.pairs for c in task_correlations(rows)}["hanoi", "sat"] == 5


def test_a_perfect_correlation_keeps_a_finite_interval() -> None:
    rows = [r for level, legal in enumerate((0, 1, 2, 3, 4), start=1) for puzzle in ("hanoi", "sat")
            for r in cell(puzzle, "a", level, legal)]
    [c] = task_correlations(rows)
    assert c.r == pytest.approx(1.0) and c.low is not None and c.high is not None
    assert 0.99 < c.low <= c.high <= 1.0


def test_pearson_refuses_unpaired_values() -> None:
    assert math.isnan(pearson([1.0, 2.0], [1.0, 2.0]))
    with pytest.raises(ValueError, match="paired"):
        pearson([1.0, 2.0, 3.0], [1.0, 2.0])
