"""Usage: token means of passes and fails, the point-biserial r by hand, costs by hand, and the --price form."""

from __future__ import annotations

import math

import pytest

from codebench.analysis.usage import CostLine, TokenStats, cost_lines, token_correlations, token_stats
from codebench.costs import Price, parse_price, request_cost, total_usage
from codebench.errors import InputError
from codebench.types import ExecutionRow, SampleUsage, Status


def row(status: str, completion: int | None = None, reasoning: int | None = None, *, model: str = "m", level: int = 1,
        instance: str = "i") -> ExecutionRow:
    return ExecutionRow(model, "code", "hanoi", level, instance, 0, status, "", None,
                        prompt_tokens=None if completion is None else 10, completion_tokens=completion, reasoning_tokens=reasoning)


def fixture() -> list[ExecutionRow]:
    return [row(Status.LEGAL, 100, 40, instance="a"), row(Status.LEGAL, 200, None, instance="b"), row(Status.LEGAL, instance="c"),
            row(Status.RULE_VIOLATION, 50, 10, instance="d"), row(Status.TIMEOUT, 70, 30, instance="e"),
            row(Status.SANDBOX_ERROR, 9999, 9999, instance="f"), row(Status.API_ERROR, 1, 1, instance="g")]


# tokens against correctness


def test_token_stats_by_hand() -> None:
    rows = fixture() + [row(Status.RULE_VIOLATION, 30, model="n", level=2), row(Status.LEGAL, model="n", level=2, instance="j")]
    [first, second] = token_stats(rows)
    # passes: completion 100, 200 (c has none) → 150; reasoning 40 (b has none) → 40; fails: (50 + 70)/2 = 60, (10 + 30)/2 = 20
    assert first == TokenStats("m", "code", "hanoi", 1, passes=3, fails=2, pass_completion=150.0, fail_completion=60.0,
                               pass_reasoning=40.0, fail_reasoning=20.0)
    assert (second.model, second.level, second.passes, second.fails, second.fail_completion) == ("n", 2, 1, 1, 30.0)
    assert all(math.isnan(v) for v in (second.pass_completion, second.pass_reasoning, second.fail_reasoning))


def test_token_correlations_by_hand() -> None:
    # point-biserial r = (M1 − M0) / s · sqrt(p q), s the population standard deviation of all the counts
    # completion (c has none): passes 100, 200 (M1 150), fails 50, 70 (M0 60), p = q = 1/2, mean 105
    #   deviations −5 95 −55 −35, squares 25 + 9025 + 3025 + 1225 = 13300, variance 13300/4 = 3325
    #   r = 90 · 1/2 / sqrt(3325) = 45 / sqrt(3325) ≈ 0.7804
    # reasoning (b, c have none): pass 40 (M1 40), fails 10, 30 (M0 20), p = 1/3, q = 2/3, mean 80/3
    #   deviations 40/3 −50/3 10/3, variance (1600 + 2500 + 100)/9/3 = 1400/9, s = sqrt(1400)/3
    #   r = 20 · sqrt(2)/3 / (sqrt(1400)/3) = 20 / sqrt(700) ≈ 0.7559
    [c] = token_correlations(fixture())
    assert (c.model, c.mode, c.rows) == ("m", "code", 5)  # infrastructure left out
    assert c.r_completion == pytest.approx(45 / math.sqrt(3325), abs=1e-12)
    assert c.r_reasoning == pytest.approx(20 / math.sqrt(700), abs=1e-12)


def test_token_correlations_need_three_rows_and_both_outcomes() -> None:
    [few] = token_correlations([row(Status.LEGAL, 100, 1), row(Status.RULE_VIOLATION, 50, 2, instance="j")])
    assert math.isnan(few.r_completion) and math.isnan(few.r_reasoning)
    [passing] = token_correlations([row(Status.LEGAL, n, instance=str(n)) for n in (10, 20, 30)])
    assert math.isnan(passing.r_completion) and math.isnan(passing.r_reasoning)  # every row passed; no reasoning counts
    [flat] = token_correlations([row(Status.LEGAL, 10, instance="x"), row(Status.TIMEOUT, 10, instance="y"), row(Status.TIMEOUT, 10)])
    assert math.isnan(flat.r_completion)  # the same count everywhere


# cost

PRICES = {"a": Price(1.0, 2.0), "b": Price(3.0, 4.0)}


def usages() -> list[SampleUsage]:
    return [SampleUsage("b", "code", "hanoi", 10_000, 4_000, 1_000),  # 30000 + 16000 → $0.046
            SampleUsage("a", "code", "sat", 2_000, 1_500, 0),  # 2000 + 3000 → $0.005
            SampleUsage("a", "instruction", "hanoi", 300, 200, 50, requests=3, uncounted=2),  # 300 + 400 → $0.0007; two
            # of its three requests (format retries) came back without a count: the line says so, it is a lower bound
            SampleUsage("a", "code", "hanoi", 1_000, 500, 100),  # 1000 + 1000 → $0.002
            SampleUsage("b", "code", "hanoi", 5_000, 1_000, 0)]  # 15000 + 4000 → $0.019  (all ÷ 10⁶)


def test_request_cost_bills_reasoning_once_as_part_of_the_completion() -> None:
    assert request_cost(SampleUsage("b", "code", "hanoi", 10_000, 4_000, 1_000), PRICES["b"]) == pytest.approx(0.046)
    assert request_cost(SampleUsage("b", "code", "hanoi", 10_000, 4_000, 0), PRICES["b"]) == pytest.approx(0.046)


def test_cost_lines_by_hand() -> None:
    lines = cost_lines(usages(), PRICES)
    assert lines == [
        CostLine("run", "", "", "", 7, 2, 18_300, 7_200, 1_150, pytest.approx(0.0727)),
        CostLine("model", "a", "", "", 5, 2, 3_300, 2_200, 150, pytest.approx(0.0077)),
        CostLine("model", "b", "", "", 2, 0, 15_000, 5_000, 1_000, pytest.approx(0.065)),
        CostLine("mode", "a", "code", "", 2, 0, 3_000, 2_000, 100, pytest.approx(0.007)),
        CostLine("mode", "a", "instruction", "", 3, 2, 300, 200, 50, pytest.approx(0.0007)),
        CostLine("mode", "b", "code", "", 2, 0, 15_000, 5_000, 1_000, pytest.approx(0.065)),
        CostLine("puzzle", "a", "code", "hanoi", 1, 0, 1_000, 500, 100, pytest.approx(0.002)),
        CostLine("puzzle", "a", "code", "sat", 1, 0, 2_000, 1_500, 0, pytest.approx(0.005)),
        CostLine("puzzle", "a", "instruction", "hanoi", 3, 2, 300, 200, 50, pytest.approx(0.0007)),
        CostLine("puzzle", "b", "code", "hanoi", 2, 0, 15_000, 5_000, 1_000, pytest.approx(0.065))]
    assert total_usage(usages(), PRICES) == (25_500, pytest.approx(0.0727))


def test_a_model_without_a_price_has_no_cost_but_its_tokens_count() -> None:
    lines = cost_lines(usages(), {"a": PRICES["a"]})
    costs = {(line.scope, line.model, line.mode, line.puzzle): line.cost for line in lines}
    assert costs[("run", "", "", "")] is None
    assert [key for key, cost in costs.items() if cost is None] == [("run", "", "", ""), ("model", "b", "", ""), ("mode", "b", "code", ""),
                                                                    ("puzzle", "b", "code", "hanoi")]
    assert costs[("model", "a", "", "")] == pytest.approx(0.0077)
    assert (lines[0].prompt_tokens, lines[0].completion_tokens, lines[0].reasoning_tokens) == (18_300, 7_200, 1_150)
    # the budgets count what they can price (`run` asks a price of every model under --max-cost; an earlier label of the
    # run directory may have none): a model without one adds its tokens, and never voids the cost of the others
    assert total_usage(usages(), {"a": PRICES["a"]}) == (25_500, pytest.approx(0.0077))
    assert total_usage(usages(), {}) == (25_500, 0.0)


def test_no_usage_costs_nothing() -> None:
    assert cost_lines([], PRICES) == [CostLine("run", "", "", "", 0, 0, 0, 0, 0, 0.0)]
    assert total_usage([], {}) == (0, 0.0)


# --price MODEL=IN/OUT


@pytest.mark.parametrize(("text", "expected"), [
    ("gpt-x=2.5/10", ("gpt-x", Price(2.5, 10.0))),
    ("org/model-7b=0/0", ("org/model-7b", Price(0.0, 0.0))),  # a local model: free
    (" m = 1e-1 / 3 ", ("m", Price(0.1, 3.0))),
    ("a=b=1/2", ("a=b", Price(1.0, 2.0))),  # the last '=' splits
])
def test_parse_price_reads_the_command_line_form(text: str, expected: tuple[str, Price]) -> None:
    assert parse_price(text) == expected


@pytest.mark.parametrize("text", ["gpt-x", "=1/2", " =1/2", "m=1", "m=1/2/3", "m=a/b", "m=/2", "m=", "m=-1/2", "m=1/-0.5",
                                  "m=nan/1", "m=1/inf", "m=1,5/2", "m=1/2x\nmore"])
def test_parse_price_refuses_anything_else(text: str) -> None:
    with pytest.raises(InputError, match="MODEL=IN/OUT") as raised:
        parse_price(text)
    assert "\n" not in str(raised.value)
