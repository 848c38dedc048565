"""Tokens against correctness, and what the stored requests cost.

Do passes spend more or fewer tokens than fails (`token_stats`, and the point-biserial r of `token_correlations`)?
What did the run cost (`cost_lines`, `total_usage`: the run budgets read the latter)? Prices are US dollars per
million tokens; reasoning tokens are billed as output and are already part of `completion_tokens`, so they are never
added twice. A model without a price gets no cost (None), never an assumed one.

Pure functions; imports the standard library, the shared types and errors. Infrastructure rows are left out.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from ..errors import InputError
from ..types import ExecutionRow, SampleUsage, Status
from .crosstask import counted, pearson

MTOK = 1_000_000
PRICE_FORM = "MODEL=IN/OUT (US dollars per million input and output tokens, e.g. gpt-x=2.5/10)"
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
class Price:
    """US dollars per million tokens; output covers completion tokens, reasoning included."""

    input_per_mtok: float
    output_per_mtok: float


@dataclass(frozen=True)
class CostLine:
    """Tokens and cost of one scope: the run, a model, a (model, mode) or a (model, mode, puzzle); "" where aggregated away.

    cost is None when some model in the line has no price."""

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


def parse_price(text: str) -> tuple[str, Price]:
    """`MODEL=IN/OUT` from the command line → (model, Price); the last '=' splits, since prices never hold one.

    Raises:
        InputError: anything else: no '=', an empty model, not two numbers, a negative, NaN or infinite price.
    """
    model, equals, amounts = text.rpartition("=")
    model = model.strip()
    parts = amounts.split("/")
    if not equals or not model or len(parts) != 2:
        raise InputError(f"--price {text!r} is not of the form {PRICE_FORM}")
    try:
        values = [float(part) for part in parts]
    except ValueError:
        raise InputError(f"--price {text!r} is not of the form {PRICE_FORM}: the prices must be numbers") from None
    if not all(_amount(v) for v in values):
        raise InputError(f"--price {text!r} is not of the form {PRICE_FORM}: the prices must be finite and not negative")
    return model, Price(*values)


def _amount(value: object) -> bool:
    """A price per million tokens: a finite number, not negative (a bool is no price)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value >= 0


def stored_prices(table: object) -> dict[str, Price | None]:
    """A price table as a run stores it ({label: {"input_per_mtok": …, "output_per_mtok": …}}, none: {}) read back; a
    label whose price is not two finite amounts, not negative, maps to None (a shared run directory may hold anything).

    Raises:
        ValueError: the table is not a mapping of labels.
    """
    if table is None:
        return {}
    if not isinstance(table, dict):
        raise ValueError(f"a price table is a mapping, not {type(table).__name__}")
    prices: dict[str, Price | None] = {}
    for label, price in table.items():
        amounts = [price.get(field) for field in ("input_per_mtok", "output_per_mtok")] if isinstance(price, dict) else []
        prices[label] = Price(*map(float, amounts)) if amounts and all(map(_amount, amounts)) else None
    return prices


def _cost(prompt_tokens: int, completion_tokens: int, price: Price) -> float:
    return (prompt_tokens * price.input_per_mtok + completion_tokens * price.output_per_mtok) / MTOK


def request_cost(usage: SampleUsage, price: Price) -> float:
    """US dollars of one request: prompt at the input price, completion (reasoning included) at the output price."""
    return _cost(usage.prompt_tokens or 0, usage.completion_tokens or 0, price)


def _line(scope: str, key: tuple[str, str, str], usages: list[SampleUsage], prices: Mapping[str, Price]) -> CostLine:
    """One scope's sums; the cost from each model's token sums (fewer roundings than per request)."""
    by_model: defaultdict[str, list[int]] = defaultdict(lambda: [0, 0])
    for usage in usages:
        by_model[usage.model][0] += usage.prompt_tokens or 0
        by_model[usage.model][1] += usage.completion_tokens or 0
    priced = all(model in prices for model in by_model)
    cost = math.fsum(_cost(p, c, prices[model]) for model, (p, c) in by_model.items()) if priced else None
    return CostLine(scope, *key, requests=sum(u.requests for u in usages), prompt_tokens=sum(p for p, _ in by_model.values()),
                    completion_tokens=sum(c for _, c in by_model.values()),
                    reasoning_tokens=sum(u.reasoning_tokens or 0 for u in usages), cost=cost,
                    uncounted=sum(u.uncounted for u in usages))


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


def total_usage(usages: Sequence[SampleUsage], prices: Mapping[str, Price]) -> tuple[int, float]:
    """(prompt + completion tokens, US dollars of the requests of the models with a price) of the whole run: what the
    budgets check. `run` asks a price of every model under --max-cost, but an earlier label of the run directory may have
    none: its requests' tokens count, and they cost nothing here rather than void the cost of the others."""
    run = _line(SCOPES[0], ("", "", ""), list(usages), prices)
    cost = _line(SCOPES[0], ("", "", ""), [usage for usage in usages if usage.model in prices], prices).cost
    return run.prompt_tokens + run.completion_tokens, cost or 0.0
