"""What requests cost: prices, and the sums the run's budgets and the report's cost table both take.

Prices are US dollars per million tokens (`Price`, from `--price MODEL=IN/OUT` or a run's stored price table);
reasoning tokens are billed as output and are already part of `completion_tokens`, so they are never added twice. A
model without a price gets no cost (None), never an assumed one. Below both `run` (its budgets) and `analysis` (the
cost table), so neither imports the other for a price. Imports the standard library, the shared types and errors.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .errors import InputError
from .types import SampleUsage

MTOK = 1_000_000
PRICE_FORM = "MODEL=IN/OUT (US dollars per million input and output tokens, e.g. gpt-x=2.5/10)"


@dataclass(frozen=True)
class Price:
    """US dollars per million tokens; output covers completion tokens, reasoning included."""

    input_per_mtok: float
    output_per_mtok: float


@dataclass(frozen=True)
class Spent:
    """The token sums of some requests, and their cost (None when some model among them has no price)."""

    prompt_tokens: int
    completion_tokens: int
    cost: float | None


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


def spent(usages: Sequence[SampleUsage], prices: Mapping[str, Price]) -> Spent:
    """The requests' token sums and cost: the cost from each model's token sums (fewer roundings than per request)."""
    by_model: defaultdict[str, list[int]] = defaultdict(lambda: [0, 0])
    for usage in usages:
        by_model[usage.model][0] += usage.prompt_tokens or 0
        by_model[usage.model][1] += usage.completion_tokens or 0
    priced = all(model in prices for model in by_model)
    cost = math.fsum(_cost(p, c, prices[model]) for model, (p, c) in by_model.items()) if priced else None
    return Spent(sum(p for p, _ in by_model.values()), sum(c for _, c in by_model.values()), cost)


def total_usage(usages: Sequence[SampleUsage], prices: Mapping[str, Price]) -> tuple[int, float]:
    """(prompt + completion tokens, US dollars of the requests of the models with a price) of the whole run: what the
    budgets check. `run` asks a price of every model under --max-cost, but an earlier label of the run directory may have
    none: its requests' tokens count, and they cost nothing here rather than void the cost of the others."""
    run = spent(usages, prices)
    cost = spent([usage for usage in usages if usage.model in prices], prices).cost
    return run.prompt_tokens + run.completion_tokens, cost or 0.0
