"""What requests cost: prices, and the sums the run's budgets and the report's cost table both take.

Prices are US dollars per million tokens (`Price`, from `--price MODEL=IN/OUT[/BATCH_IN/BATCH_OUT]` or a run's stored
price table); reasoning tokens are billed as output and are already part of `completion_tokens`, so they are never
added twice. What a request costs depends on where its reply came from (`ReplySource`): asked directly, at the price;
through the Batch API, at the price's batch rate; from the response cache, nothing (it was paid for when first asked).
A model without a price, or a batch request of a price without a batch rate, gets no cost (None), never an assumed
one. Below both `run` (its budgets) and `analysis` (the cost table), so neither imports the other for a price. Imports
the standard library, the shared types and errors.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .errors import InputError
from .types import ReplySource, SampleUsage

MTOK = 1_000_000
PRICE_FORM = ("MODEL=IN/OUT or MODEL=IN/OUT/BATCH_IN/BATCH_OUT (US dollars per million input and output tokens, and "
              "through the Batch API, e.g. gpt-x=2.5/10/1.25/5)")
BATCH_FIELDS = ("batch_input_per_mtok", "batch_output_per_mtok")


@dataclass(frozen=True)
class Price:
    """US dollars per million tokens; output covers completion tokens, reasoning included. The batch rate is what the
    provider charges through its Batch API (None: not given, so a batch request has no cost)."""

    input_per_mtok: float
    output_per_mtok: float
    batch_input_per_mtok: float | None = None
    batch_output_per_mtok: float | None = None

    def rate(self, reply_source: str) -> tuple[float, float] | None:
        """(input, output) dollars per million tokens of a reply from `reply_source`; None: unknown (no batch rate)."""
        if reply_source == ReplySource.CACHE:
            return 0.0, 0.0
        if reply_source == ReplySource.BATCH:
            if self.batch_input_per_mtok is None or self.batch_output_per_mtok is None:
                return None
            return self.batch_input_per_mtok, self.batch_output_per_mtok
        return self.input_per_mtok, self.output_per_mtok

    @property
    def has_batch_rate(self) -> bool:
        return self.batch_input_per_mtok is not None and self.batch_output_per_mtok is not None


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
    if not equals or not model or len(parts) not in (2, 4):
        raise InputError(f"--price {text!r} is not of the form {PRICE_FORM}")
    try:
        values = [float(part) for part in parts]
    except ValueError:
        raise InputError(f"--price {text!r} is not of the form {PRICE_FORM}: the prices must be numbers") from None
    if not all(_amount(v) for v in values):
        raise InputError(f"--price {text!r} is not of the form {PRICE_FORM}: the prices must be finite and not negative")
    return model, Price(*values)  # two amounts, or four with the batch rate


def _amount(value: object) -> bool:
    """A price per million tokens: a finite number, not negative (a bool is no price)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value >= 0


def stored_prices(table: object) -> dict[str, Price | None]:
    """A price table as a run stores it ({label: {"input_per_mtok": …, "output_per_mtok": …, and maybe the batch rate's
    two}}, none: {}) read back; a label whose price is not two (or four) finite amounts, not negative, maps to None (a
    shared run directory may hold anything).

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
        batch = [price.get(field) for field in BATCH_FIELDS] if isinstance(price, dict) else []
        batch = [] if batch == [None, None] else batch
        good = amounts and all(map(_amount, [*amounts, *batch]))
        prices[label] = Price(*map(float, [*amounts, *batch])) if good else None
    return prices


def _cost(prompt_tokens: int, completion_tokens: int, rate: tuple[float, float]) -> float:
    return (prompt_tokens * rate[0] + completion_tokens * rate[1]) / MTOK


def request_cost(usage: SampleUsage, price: Price) -> float | None:
    """US dollars of one request: prompt at the input rate, completion (reasoning included) at the output rate, of where
    its reply came from (None: a batch request of a price without a batch rate)."""
    rate = price.rate(usage.reply_source)
    return None if rate is None else _cost(usage.prompt_tokens or 0, usage.completion_tokens or 0, rate)


def spent(usages: Sequence[SampleUsage], prices: Mapping[str, Price]) -> Spent:
    """The requests' token sums and cost: the cost from the token sums of each model and source (fewer roundings than
    per request); None when a model has no price or a batch rate is missing."""
    by_rate: defaultdict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    for usage in usages:
        by_rate[usage.model, usage.reply_source][0] += usage.prompt_tokens or 0
        by_rate[usage.model, usage.reply_source][1] += usage.completion_tokens or 0
    costs = [_cost(p, c, rate) if model in prices and (rate := prices[model].rate(source)) is not None else None
             for (model, source), (p, c) in by_rate.items()]
    cost = math.fsum(c for c in costs if c is not None) if None not in costs else None
    return Spent(sum(p for p, _ in by_rate.values()), sum(c for _, c in by_rate.values()), cost)


def total_usage(usages: Sequence[SampleUsage], prices: Mapping[str, Price]) -> tuple[int, float]:
    """(prompt + completion tokens, US dollars of the requests of the models with a price) of the whole run's paid
    requests: what the budgets check (a reply from the cache was paid for before, so it counts toward neither). `run`
    asks a price of every model under --max-cost, but an earlier label of the run directory may have none: its requests'
    tokens count, and they cost nothing here rather than void the cost of the others."""
    paid = [usage for usage in usages if usage.reply_source != ReplySource.CACHE]
    run = spent(paid, prices)
    cost = spent([usage for usage in paid if usage.model in prices and prices[usage.model].rate(usage.reply_source)], prices).cost
    return run.prompt_tokens + run.completion_tokens, cost or 0.0
