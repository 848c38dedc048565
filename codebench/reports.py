"""Report and compare runs from Python: what `codebench report` and `codebench compare` print, one call each.

    import codebench
    print(codebench.report("runs/demo"))                        # the table `codebench report runs/demo` prints
    print(codebench.report(["runs/a", "runs/b"], format="md"))  # runs reported together
    print(codebench.compare("runs/demo"))                       # one model in both modes: instruction against code

`runs` is a run directory (it holds run.sqlite) or several; they are only read. The rules the command line enforces hold
here, raised as `codebench.errors` types: InputError for a folder that is no run, a run given twice (under two names, or
a copy holding the same samples), two runs holding one model in one mode, games played under different secrets, a
price for a model no run holds, sides no run holds; StoreError for a database codebench cannot read. A partial run is
reported, never refused: the report's first line says PARTIAL and what it did not count (`read_report(…).report.partial`).

Above `run` (it opens the store) and `analysis` (it computes and renders); the store is imported inside the functions,
so importing codebench loads no database driver.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .analysis.compare import Comparison, Side, check_format, check_sides, render_comparison, sides_found
from .analysis.compare import compare as paired
from .analysis.report import Report, RunPrompts, RunProtocol, RunScope, build_report, check_rendering, render_report
from .analysis.searches import RunSearches
from .errors import InputError
from .run.results import Runs, databases, joined, once, opened
from .types import ExecutionRow, GameRow, ModeName, SampleDetail, SampleUsage, harmless

if TYPE_CHECKING:
    from .costs import Price
    from .run.store import Store

PASS_AT = (2, 5, 10, 20, 32)  # reported beside pass@1 and pass@n, where k ≤ n


@dataclass(frozen=True)
class RunReport:
    """The report of one or more runs (`report`: every section's figures), with what its HTML page shows besides: the
    joined games (their replays) and, when read, every sample (`samples`: None when not asked for)."""

    report: Report
    games: tuple[GameRow, ...]
    samples: tuple[SampleDetail, ...] | None

    def render(self, format: str = "table", section: str | None = None, *, brief: bool = False) -> str:
        """The text `codebench report --format FORMAT [--section SECTION]` prints (table, md, csv or json); `brief`: the
        table `codebench run` prints after a run.

        Raises:
            InputError: an unknown format or section.
        """
        return render_report(self.report, format, section, brief=brief)

    def html(self) -> str:
        """The self-contained HTML page of `codebench report --html`, figures and every sample included.

        Raises:
            InputError: the samples were not read (`read_report(…, samples=True)`).
        """
        from .analysis.html import render_html
        from .analysis.plots import figure_svgs

        if self.samples is None:
            raise InputError("the HTML page shows every sample: read the report with samples=True")
        return render_html(self.report, self.samples, figure_svgs(self.report), self.games)


def report(runs: Runs, *, format: str = "table", section: str | None = None, prices: Mapping[str, Price] | None = None) -> str:
    """What `codebench report RUN… --format FORMAT [--section SECTION] [--price MODEL=IN/OUT…]` prints: the runs' metrics
    from their stored rows. Costs use each run's stored price table, `prices` (model label → Price) over it.

    Raises:
        InputError: an unknown format or section, or a rule of `read_report`.
        StoreError: a run database codebench cannot read.
    """
    check_rendering(format, section)
    return read_report(runs, prices=prices).render(format, section)


def read_report(runs: Runs, *, prices: Mapping[str, Price] | None = None, samples: bool = False) -> RunReport:
    """The report of `runs` joined (each result once), to render in any format; `samples`: also read every sample, for
    the HTML page (read with the rest, so a store damaged only there refuses the report before anything is written).

    Raises:
        InputError: a folder without run.sqlite, a run given twice (one directory under two names, or two holding the same
            samples by content key), two runs holding one model in one mode, games played under different secrets, a
            price for a model no run holds, or a stored price table codebench did not write where no price replaces it.
        StoreError: a run database codebench cannot read.
    """
    with opened(runs) as stores:
        return stores_report(stores, prices=prices, samples=samples)


def stores_report(stores: Sequence[Store], *, prices: Mapping[str, Price] | None = None, samples: bool = False) -> RunReport:
    """`read_report` over stores already open (a run reports its own store when it ends)."""
    per_question = max(store.samples_per_question() for store in stores)
    ks = sorted({1, max(per_question, 1), *(k for k in PASS_AT if k <= per_question)})
    rows, games = joined(stores)
    usages = [store.usage() for store in stores]
    built = build_report(rows, ks, games=games, usages=[usage for used in usages for usage in used],
                         prices=_prices(stores, prices or {}, usages),
                         facts=[fact for store in stores for fact in store.instance_facts()],
                         scopes=[RunScope(run, tuple(store.planned_cells()), *store.unplayed_games(),
                                          RunPrompts.of(run, spec), RunProtocol.of(run, spec),
                                          RunSearches.of(run, spec, store.search_steps(), store.step_instances()))
                                 for store, run, spec in ((store, harmless(str(store.path.parent)), store.document("spec"))
                                                          for store in stores)])
    details = tuple(detail for store in stores for detail in store.sample_details()) if samples else None
    return RunReport(built, tuple(games), details)


def compare(runs: Runs, a: str | None = None, b: str | None = None, *, format: str = "table") -> str:
    """What `codebench compare RUN… [--a SIDE --b SIDE] --format FORMAT` prints (table or json): the paired comparison of
    two sides on their shared instances (see `read_comparison`).

    Raises:
        InputError: an unknown format, or a rule of `read_comparison`.
        StoreError: a run database codebench cannot read.
    """
    check_format(format)
    return render_comparison(read_comparison(runs, a, b), format)


def read_comparison(runs: Runs, a: str | None = None, b: str | None = None) -> Comparison:
    """The paired comparison of side `a` against side `b`, each MODEL:MODE or N/MODEL:MODE (the N-th of `runs`); by
    default, on one run holding one model in both modes, instruction against code.

    Raises:
        InputError: a folder without run.sqlite, a run given twice, one side named without the other, a side no run holds
            or several do, one side named twice, two sides holding the same samples, or sides that share no judged pair.
        StoreError: a run database codebench cannot read.
    """
    from .run.store import Store

    paths = databases(runs)
    once(paths)
    rows, keys = [], []
    for path in paths:
        store = Store.for_reading(path)
        try:
            rows.append(store.report_rows())
            keys.append(_planned_keys(store))
        finally:
            store.close()
    side_a, side_b = _sides(rows, a, b)
    check_sides(rows, keys, side_a, side_b)
    return paired(rows, side_a, side_b)


def _prices(stores: Sequence[Store], given: Mapping[str, Price], usages: Sequence[Sequence[SampleUsage]]) -> dict[str, Price]:
    """Each model's price: the one given (--price), else the one its run stored (a later run's over an earlier one's).
    Labels are taken as the report shows them (`harmless`), as its usage holds them.

    Raises:
        InputError: a price for a model the runs do not hold (`run` refuses it too), or a stored price table that is not
            what codebench writes where no price replaces it (the line names the run and the prices to give).
    """
    from .costs import stored_prices

    held = []
    for store, used in zip(stores, usages):
        plan = store.plan()
        held.append(sorted({*map(harmless, plan.base_urls if plan is not None else ()), *(usage.model for usage in used)}))
    known = sorted({model for models in held for model in models})
    unknown = sorted(set(given) - set(known))
    if unknown:
        raise InputError(f"--price {harmless(unknown[0])}: no model of these runs is called that (models: {', '.join(known)})")
    prices: dict[str, Price] = {}
    for store, models in zip(stores, held):
        try:
            table = {harmless(label): price for label, price in stored_prices(store.prices()).items()}
        except ValueError:
            unpriced = [model for model in models if model not in given]
            if unpriced:
                raise InputError(f"{store.path.parent}: its price table is not what codebench writes: give --price "
                                 f"MODEL=INPUT/OUTPUT for each of its models without one ({', '.join(unpriced)})") from None
            continue
        for label, price in table.items():
            if price is None and label not in given:
                raise InputError(f"{store.path.parent}: its price for {label} is not what codebench writes: give --price "
                                 f"{label}=INPUT/OUTPUT")
            if price is not None:
                prices[label] = price
    return {**prices, **given}


def _sides(runs: Sequence[Sequence[ExecutionRow]], a: str | None, b: str | None) -> tuple[Side, Side]:
    """The sides the user named; by default, on one run holding one model in both modes, instruction against code."""
    if a is not None and b is not None:
        return Side.parse(a, "--a", len(runs)), Side.parse(b, "--b", len(runs))
    if a is not None or b is not None:
        raise InputError("give both --a and --b, or neither (one run with one model in both modes)")
    found = sorted({(row.model, row.mode) for rows in runs for row in rows})
    models = {model for model, _ in found}
    if len(runs) == 1 and len(models) == 1 and {mode for _, mode in found} >= set(ModeName):
        model = models.pop()
        return Side(model, ModeName.INSTRUCTION), Side(model, ModeName.CODE)
    raise InputError(f"name the sides with --a and --b (sides found: {sides_found(runs)})")


def _planned_keys(store: Store) -> dict[tuple[str, str], frozenset[str]]:
    """The run's planned sample keys per model and mode: what tells two sides' samples apart."""
    plan = store.plan()
    keys: dict[tuple[str, str], set[str]] = {}
    for planned in plan.samples if plan is not None else ():  # sides as the rows show them
        keys.setdefault((harmless(planned.model), harmless(planned.mode)), set()).add(planned.key)
    return {side: frozenset(found) for side, found in keys.items()}
