"""The run report: metrics gathered into one `Report`, rendered as a plain-text table, markdown, CSV or JSON.

Pure functions over rows; imports only the standard library, the shared types and errors, and the analyses. Rates print
with three decimals, "-" where nothing was counted. What was not counted is never silently dropped: a cell's legal rate
over its judged results is shown beside the rate with its unresolved infrastructure failures counted as failures
(`0.620 [0.480–0.620]`), its "not counted" column names them and the planned results not run yet, and a report with any
of these is marked PARTIAL in its first line, with what to re-run. Levels whose seeds drew fewer distinct instances than
asked are named (each distinct instance is counted once).

The report's sections are declared once, in REGISTRY (name, help line, builder, renderer): building the report, each
format, `--section`, the HTML page and `codebench report --help` iterate it.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from html import escape
from typing import Any, ClassVar

from ..costs import Price
from ..errors import InputError
from ..protocols import PROTOCOLS
from ..types import (
    COUNTED_STATUSES,
    INFRASTRUCTURE_ORDER,
    INFRASTRUCTURE_STATUSES,
    ExecutionRow,
    GameRow,
    InstanceFacts,
    PlannedCell,
    SampleUsage,
    Status,
    harmless,
    one_line,
)
from . import sections
from .collapse import CollapseRegime, LevelMean, collapse_regimes, global_curve
from .crosstask import SuccessCell, TaskCorrelation, success_matrix, task_correlations
from .failures import FailureCounts, failure_modes
from .games import (
    RATING_HEADER,
    RATINGS_TITLE,
    SCORE_HEADER,
    SCORES_TITLE,
    GamesReport,
    build_games_report,
    pool_title,
    rating_rows,
    score_rows,
)
from .metrics import (
    CellMetrics,
    CollapseThreshold,
    TraceGrade,
    cell_metrics,
    check_ks,
    collapse_thresholds,
    ordered_counts,
    trace_grades,
)
from .optimality import Difficulty, Optimality, difficulty_table, optimality
from .protocol import GAME_HEADER, GAME_TITLE, TABLE_TITLE, ProtocolTable, game_rows, protocol_table, table_header, table_notes, table_rows
from .searches import RunSearches, Search, searches
from .sections import Section, align, html_table, md_table, mix, number, rate
from .usage import CostLine, TokenCorrelation, TokenStats, cost_lines, token_correlations, token_stats

FORMATS = ("table", "md", "csv", "json")
LEGEND = ("any-legal: oracle best-of-n, the fraction of instances where any sample is legal",
          "best-sample: PuzzlePlex's best-of-n, the best single sample's mean legal rate over instances",
          "pass@k: unbiased estimator over each instance's samples, shown when every instance has k or more")
SHOWN_CHARS = 60  # of a system prompt, in the report's note
RERUN = "run the same `codebench run` command again (same --out) to retry what is missing; finished work is kept"


@dataclass(frozen=True)
class Totals:
    """The whole run: counted executions and their statuses, infrastructure failures apart, and the legal rate they
    would leave if each had failed."""

    rows: int
    executions: int
    legal_rate: float
    status_counts: dict[str, int]
    infra_counts: dict[str, int]
    legal_low: float = math.nan


@dataclass(frozen=True)
class RunPrompts:
    """How one run posed its prompts where it left the shipped ones (`codebench run`'s prompt options, as its stored spec
    holds them): its rates hold under these prompts only, so the report says them under its headline."""

    run: str
    system_prompt: str | None = None
    templates: str | None = None
    shots: int = 0
    prompt_preset: str | None = None

    @classmethod
    def of(cls, run: str, spec: Any) -> RunPrompts:
        """The prompt options of a stored spec (a run recorded before there were any, or a value of another type, has
        none: the shipped prompts)."""
        given = spec if isinstance(spec, dict) else {}

        def text(key: str) -> str | None:
            value = given.get(key)
            return value if isinstance(value, str) else None

        shots = given.get("shots")
        return cls(run, text("system_prompt"), text("templates"),
                   shots if isinstance(shots, int) and not isinstance(shots, bool) else 0, text("prompt_preset"))

    @property
    def used(self) -> bool:
        return any((self.system_prompt is not None, self.templates is not None, self.shots, self.prompt_preset is not None))

    def describe(self) -> str:
        """"runs/a: system prompt "You are…" (212 characters), templates my/templates, 2 shots, preset one-shot"."""
        system = self.system_prompt.strip() if self.system_prompt is not None else ""
        head = one_line(system[:SHOWN_CHARS]) + ("…" if len(system) > SHOWN_CHARS else "")
        parts = [f'system prompt "{head}" ({counted(len(system), "character")})' if self.system_prompt is not None else "",
                 f"templates {harmless(self.templates)}" if self.templates is not None else "",
                 counted(self.shots, "shot") if self.shots else "",
                 f"preset {harmless(self.prompt_preset)}" if self.prompt_preset is not None else ""]
        return f"{self.run or 'the run'}: {', '.join(part for part in parts if part)}"


@dataclass(frozen=True)
class RunProtocol:
    """The protocol a run followed (`codebench run --protocol`) and what it played otherwise, as its stored spec says."""

    run: str
    name: str
    departures: tuple[str, ...]

    @classmethod
    def of(cls, run: str, spec: Any) -> RunProtocol | None:
        """The protocol of a stored spec (None: none, or one this version does not know)."""
        given = spec if isinstance(spec, dict) else {}
        name = given.get("protocol")
        protocol = PROTOCOLS.get(name) if isinstance(name, str) else None
        return None if protocol is None else cls(run, protocol.name, tuple(map(harmless, protocol.departures(given))))


@dataclass(frozen=True)
class RunScope:
    """What one run set out to do: the results its plan asks of each cell, and its games left unplayed; and how it posed
    its prompts."""

    run: str  # the run directory, as the user named it
    planned: tuple[PlannedCell, ...]
    games_void: int = 0  # stored void: the sandbox or the endpoint broke them (played again on a resume, a bounded number of times)
    games_missing: int = 0  # planned, never stored (interrupted, or held by a budget)
    prompts: RunPrompts | None = None  # None: the shipped prompts
    protocol: RunProtocol | None = None  # None: no protocol
    searches: RunSearches | None = None  # None: not an adaptive run


@dataclass(frozen=True)
class Coverage:
    """What one run's report did not count, and why. A run with nothing of it is complete; else every rate of its cells
    stands on fewer results than planned, and re-running its command (same --out) retries exactly what is missing."""

    run: str
    infra_counts: dict[str, int]  # results whose request or execution failed outside the model, after every retry
    missing: int  # planned results with nothing stored: not asked or not run yet
    games_void: int
    games_missing: int
    cells: tuple[tuple[str, str, str, int], ...]  # the partial cells: (model, mode, puzzle, level)
    searches: tuple[tuple[str, str, str], ...] = ()  # the unfinished adaptive searches: (model, mode, puzzle)

    @property
    def partial(self) -> bool:
        return bool(self.infra_counts) or bool(self.missing or self.games_void or self.games_missing or self.searches)

    def describe(self) -> str:
        """"runs/a: 36 results unresolved (api_error:36), 12 planned results not run, in 3 cells (…)"."""
        parts = [f"{counted(sum(self.infra_counts.values()), 'result')} unresolved ({mix(self.infra_counts)})"
                 if self.infra_counts else "",
                 f"{counted(self.missing, 'planned result')} not run" if self.missing else "",
                 f"{counted(self.games_void, 'game')} void" if self.games_void else "",
                 f"{counted(self.games_missing, 'planned game')} not played" if self.games_missing else ""]
        where = f" in {counted(len(self.cells), 'cell')} ({cell_names(self.cells)})" if self.cells else ""
        plural = "es" if len(self.searches) > 1 else ""
        searching = f"{len(self.searches)} adaptive search{plural} unfinished ({search_names(self.searches)})" if self.searches else ""
        results = ", ".join(part for part in parts if part)
        return f"{self.run or 'the run'}: {', '.join(part for part in (results and results + where, searching) if part)}"

def counted(n: int, thing: str) -> str:
    """"1 result", "2 results"."""
    return f"{n} {thing}{'' if n == 1 else 's'}"


def cell_names(cells: Sequence[tuple[str, str, str, int]]) -> str:
    """"m · code: hanoi L1 L2, sat L6; m · instruction: …": cells grouped by model × mode and puzzle, in order."""
    groups: dict[tuple[str, str], dict[str, list[int]]] = {}
    for model, mode, puzzle, level in cells:
        groups.setdefault((model, mode), {}).setdefault(puzzle, []).append(level)
    return "; ".join(f"{model} · {mode}: " + ", ".join(f"{puzzle} " + " ".join(f"L{level}" for level in levels)
                                                      for puzzle, levels in puzzles.items())
                     for (model, mode), puzzles in groups.items())


def search_names(searches: Sequence[tuple[str, str, str]]) -> str:
    """"m · code: hanoi, sat; m · instruction: …": searches grouped by model × mode, in order."""
    groups: dict[tuple[str, str], list[str]] = {}
    for model, mode, puzzle in searches:
        groups.setdefault((model, mode), []).append(puzzle)
    return "; ".join(f"{model} · {mode}: {', '.join(puzzles)}" for (model, mode), puzzles in groups.items())


@dataclass(frozen=True)
class FewerInstances:
    """A level whose seeds drew fewer distinct instances than asked (Hanoi's small levels draw one): each is counted once."""

    puzzle: str
    level: int
    distinct: int
    seeds: int


@dataclass(frozen=True)
class Report:
    """Every section's figures (the fields REGISTRY's builders fill), with what every report has besides: the k of pass@k,
    the totals, what each run did not count, the levels of fewer distinct instances. Its fields, in order, are the JSON."""

    ks: tuple[int, ...]
    cells: tuple[CellMetrics, ...]
    thresholds: tuple[CollapseThreshold, ...]
    totals: Totals
    traces: tuple[TraceGrade, ...] = ()  # only trajectory puzzles' failures have one
    games: GamesReport | None = None  # shown only when a run played games
    regimes: tuple[CollapseRegime, ...] = ()
    levels: tuple[LevelMean, ...] = ()
    failures: tuple[FailureCounts, ...] = ()
    success: tuple[SuccessCell, ...] = ()
    correlations: tuple[TaskCorrelation, ...] = ()
    tokens: tuple[TokenStats, ...] = ()
    token_correlations: tuple[TokenCorrelation, ...] = ()
    costs: tuple[CostLine, ...] = ()
    optimality: tuple[Optimality, ...] = ()
    difficulty: tuple[Difficulty, ...] = ()
    coverage: tuple[Coverage, ...] = ()  # per run, what was not counted and why
    fewer_instances: tuple[FewerInstances, ...] = ()
    prompts: tuple[RunPrompts, ...] = ()  # the runs that posed their prompts otherwise than the shipped templates
    protocol: ProtocolTable | None = None  # shown only when a run followed a protocol and played its games
    searches: tuple[Search, ...] = ()  # shown only when a run searched adaptively

    @property
    def partial(self) -> bool:
        """Some planned results are not judged (the rates stand on fewer results than asked for), or an adaptive search
        is unfinished."""
        return bool(self.totals.infra_counts) or any(run.partial for run in self.coverage)


@dataclass(frozen=True)
class Sources:
    """What a report is computed from: the runs' rows and games, their requests' usage (cost at `prices`), the planned
    instances' reference metrics, the results their plans ask of each cell; `boot` resamples for the intervals, `seed`."""

    rows: Sequence[ExecutionRow]
    ks: Sequence[int]
    boot: int
    seed: int
    games: Sequence[GameRow]
    usages: Sequence[SampleUsage]
    prices: Mapping[str, Price]
    facts: Sequence[InstanceFacts]
    planned: Sequence[PlannedCell]
    protocols: Sequence[RunProtocol] = ()  # the runs that followed a protocol
    searches: Sequence[RunSearches] = ()  # the adaptive runs' searches


def build_report(rows: Sequence[ExecutionRow], ks: Sequence[int], *, boot: int = 1000, seed: int = 0,
                 games: Sequence[GameRow] = (), usages: Sequence[SampleUsage] = (), prices: Mapping[str, Price] | None = None,
                 facts: Sequence[InstanceFacts] = (), scopes: Sequence[RunScope] = ()) -> Report:
    """Every section of one set of rows (REGISTRY: the cells and each analysis), the stored requests' usage (cost, at
    `prices`), the planned instances' reference metrics (difficulty), the stored games, and what each run's plan asked
    for (`scopes`: without them nothing is known to be missing)."""
    sources = Sources(rows, ks, boot, seed, games, usages, prices or {}, facts, [cell for scope in scopes for cell in scope.planned],
                      [scope.protocol for scope in scopes if scope.protocol is not None],
                      [scope.searches for scope in scopes if scope.searches is not None])
    built = {field: value for entry in REGISTRY for field, value in entry.build(sources).items()}
    statuses = Counter(row.status for row in rows)
    counted = Counter({s: n for s, n in statuses.items() if s not in INFRASTRUCTURE_STATUSES})
    executions = sum(counted.values())
    totals = Totals(len(rows), executions, counted[Status.LEGAL] / executions if executions else math.nan,
                    ordered_counts(counted, COUNTED_STATUSES), ordered_counts(statuses - counted, INFRASTRUCTURE_ORDER),
                    counted[Status.LEGAL] / len(rows) if rows else math.nan)
    return Report(ks=check_ks(ks), totals=totals, coverage=tuple(_coverage(scope, built["cells"], built["searches"]) for scope in scopes),
                  fewer_instances=tuple(fewer_instances(facts)),
                  prompts=tuple(scope.prompts for scope in scopes if scope.prompts is not None and scope.prompts.used), **built)


def _coverage(scope: RunScope, cells: Sequence[CellMetrics], found: Sequence[Search]) -> Coverage:
    """The run's share of the cells (runs joined in a report hold different models or modes) and what they miss, and its
    unfinished searches."""
    sides = {(cell.model, cell.mode) for cell in scope.planned}
    mine = [cell for cell in cells if (cell.model, cell.mode) in sides]
    infra: Counter[str] = Counter()
    for cell in mine:
        infra.update(cell.infra_counts)
    return Coverage(scope.run, ordered_counts(infra, INFRASTRUCTURE_ORDER), sum(cell.missing for cell in mine), scope.games_void,
                    scope.games_missing, tuple((c.model, c.mode, c.puzzle, c.level) for c in mine if c.partial),
                    tuple((s.model, s.mode, s.puzzle) for s in found if s.run == scope.run and s.unfinished))


def fewer_instances(facts: Sequence[InstanceFacts]) -> list[FewerInstances]:
    """The levels whose seeds drew an instance another seed drew too, sorted; an instance listed twice counts once."""
    seen: dict[tuple[str, int], dict[str, int]] = {}
    for fact in facts:
        seen.setdefault((fact.puzzle, fact.level), {})[fact.instance_id] = 1 + len(fact.alike)
    return [FewerInstances(puzzle, level, len(ids), sum(ids.values())) for (puzzle, level), ids in sorted(seen.items())
            if sum(ids.values()) > len(ids)]


def render_report(report: Report, fmt: str, section: str | None = None, *, brief: bool = False) -> str:
    """The report as text in `fmt` (table, md, csv or json); only the `section` if one is named; `brief`: the table of
    the brief sections only (the cells, the collapse, the games), naming the others.

    Raises:
        InputError: an unknown format or section.
    """
    check_rendering(fmt, section)
    if section is not None:
        return sections.render_section(registered(section).render(report), fmt, _plain)
    renderers: dict[str, Callable[[Report], str]] = {"table": _table, "md": _markdown, "csv": _csv, "json": _json}
    return _table(report, brief=True) if brief and fmt == "table" else renderers[fmt](report)


def check_rendering(fmt: str, section: str | None = None) -> None:
    """Refuse a format or a section the report does not have, before any work.

    Raises:
        InputError: an unknown format or section (the message lists them).
    """
    if fmt not in FORMATS:
        raise InputError(f"--format {fmt!r}: choose {', '.join(FORMATS)}")
    if section is not None:
        registered(section)


def failures(cell: CellMetrics) -> dict[str, int]:
    return {status: n for status, n in cell.status_counts.items() if status != Status.LEGAL}


def bounded(legal_rate: float, legal_low: float, infra: int) -> str:
    """A legal rate over judged results, with (when some results are unresolved) the range down to the rate they leave
    if each had failed: "0.620 [0.480–0.620]"."""
    shown = infra and not math.isnan(legal_rate)  # nothing judged: "-", and the not-counted column says why
    return f"{rate(legal_rate)} [{rate(legal_low)}–{rate(legal_rate)}]" if shown else rate(legal_rate)


def summary(totals: Totals) -> str:
    infra = f"; infrastructure failures, not counted: {mix(totals.infra_counts)}" if totals.infra_counts else ""
    legal = bounded(totals.legal_rate, totals.legal_low, sum(totals.infra_counts.values()))
    return f"{totals.executions} executions, legal rate {legal}{infra}"


def not_counted(report: Report) -> str:
    """What a partial report did not count, run by run (or, from rows given without their runs' scopes, the unresolved
    results): what its first line and a partial run's exit say."""
    runs = [run.describe() for run in report.coverage if run.partial]
    unresolved = report.totals.infra_counts
    return "; ".join(runs) or f"{counted(sum(unresolved.values()), 'result')} unresolved ({mix(unresolved)})"


def _totals(report: Report) -> str:
    """The totals: executions (left out of a report of adaptive searches alone), games, searches."""
    parts = [] if report.searches and not report.totals.executions else [summary(report.totals)]
    if report.games is not None:
        parts.append(f"{report.games.games} games played")
    if report.searches:
        n, results = len(report.searches), sum(s.counted for s in report.searches)
        parts.append(f"{n} adaptive search{'es' if n != 1 else ''}, {counted(results, 'result')} counted (section adaptive)")
    return "; ".join(parts)


def headline(report: Report) -> str:
    """The report's first line: PARTIAL, what each partial run did not count and how to finish it; else the totals."""
    if not report.partial:
        return f"codebench report: {_totals(report)}"
    return f"codebench report: PARTIAL: {not_counted(report)}. To finish: {RERUN}"


def notes(report: Report) -> list[str]:
    """The lines under the headline: the totals (when the headline was taken), how runs posed their prompts where they
    left the shipped ones, and the levels with fewer distinct instances than seeds."""
    lines = []
    if report.partial:
        bracket = "; in brackets: the legal rate with the unresolved results counted as failures" if report.totals.executions else ""
        lines.append(f"{_totals(report)}{bracket}")
    lines += [f"prompts of {prompts.describe()}" for prompts in report.prompts]
    if report.fewer_instances:
        shown = ", ".join(f"{f.puzzle} L{f.level} {f.distinct} of {f.seeds}" for f in report.fewer_instances)
        lines.append(f"fewer distinct instances than seeds (each counted once): {shown}")
    return lines


def cell_columns(report: Report) -> list[str]:
    """A cell's columns after its puzzle: the numbers, then its failures and what was not counted."""
    return ["level", "λ", "inst", "n", "exec", str(Status.LEGAL), *(f"pass@{k}" for k in report.ks), "any-legal", "best-sample",
            "failures", "not counted"]


def cell_values(report: Report, cell: CellMetrics) -> list[str]:
    passes = [rate(cell.pass_at[k]) if k in cell.pass_at else "-" for k in report.ks]
    not_counted = {**cell.infra_counts, **({"missing": cell.missing} if cell.missing else {})}
    return [str(cell.level), number(cell.mean_complexity), str(cell.instances), str(cell.samples), str(cell.executions),
            bounded(cell.legal_rate, cell.legal_low, sum(cell.infra_counts.values())), *passes, rate(cell.oracle_best_of_n),
            rate(cell.best_sample_mean), mix(failures(cell)), mix(not_counted)]


def _table(report: Report, brief: bool = False) -> str:
    lines = [headline(report), *notes(report)]
    for entry in REGISTRY:
        if entry.brief or not brief:
            lines += entry.in_table(report)
    lines += ["", *LEGEND]
    if brief:
        lines += ["", f"more: codebench report RUN_DIR --section NAME, NAME one of {', '.join(SECTIONS)}"]
    return "\n".join(lines) + "\n"


def _markdown(report: Report) -> str:
    lines = [f"# codebench report{' (PARTIAL)' if report.partial else ''}", "", headline(report), "",
             *(line for note in notes(report) for line in (note, ""))]
    for entry in REGISTRY:
        lines += entry.in_md(report)
    lines += ["", *(f"- {line}" for line in LEGEND)]
    return "\n".join(lines) + "\n"


def _number(value: float | None) -> str:
    return "" if value is None or math.isnan(value) else repr(value)


def _csv(report: Report) -> str:
    """One row per cell at full precision; its group's λ* repeated on every level; empty where nothing was counted.
    What each run did not count, the games, then each analysis, follow as further tables, each after one empty line
    (`--section` gives one alone)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    for entry in sorted(REGISTRY, key=lambda entry: entry.csv_named):  # the unnamed tables (cells, games) first
        writer.writerows(entry.in_csv(report))
    return out.getvalue()


# -- the sections: each declared once, in REGISTRY ------------------------------------------------------------------
@dataclass(frozen=True)
class ReportSection:
    """One section of the report: its --section `name` and `help` line (the CLI's help lists them), `build` (the Report
    fields it fills, from the runs' sources) and `render` (its title, formatted table and records: what --section NAME
    prints, in every format). The whole report shows it in each format through the methods below, in REGISTRY's order,
    and only where it has rows (records in CSV); the cells and the games have shapes of their own there (subclasses)."""

    name: str
    help: str
    build: Callable[[Sources], dict[str, Any]]
    render: Callable[[Report], Section]
    brief: bool = False  # shown in the brief table `codebench run` prints after a run

    csv_named: ClassVar[bool] = True  # in CSV, a `section:NAME` row and its records, after the unnamed tables

    def in_table(self, report: Report) -> list[str]:
        found = self.render(report)
        return ["", *sections.table_lines(found)] if found.rows else []

    def in_md(self, report: Report) -> list[str]:
        found = self.render(report)
        return ["", *sections.md_lines(found)] if found.rows else []

    def in_csv(self, report: Report) -> list[list[Any]]:
        found = self.render(report)
        return [[], [f"section:{found.name}"], *sections.csv_rows(found)] if found.records else []

    def in_html(self, report: Report) -> str:
        found = self.render(report)
        return sections.html_section(found) if found.rows else ""

    def links(self, report: Report) -> list[tuple[str, str]]:
        """(anchor, label) of each part it adds to the HTML page, for the page's navigation."""
        return [(f"analysis-{self.name}", self.name)] if self.render(report).rows else []


def _cell_groups(report: Report) -> dict[tuple[str, str], list[CellMetrics]]:
    groups: dict[tuple[str, str], list[CellMetrics]] = {}
    for cell in report.cells:
        groups.setdefault((cell.model, cell.mode), []).append(cell)
    return groups


class CellsSection(ReportSection):
    """The cells: one table per model × mode in the text and on the page, one table in markdown and CSV; CSV adds what
    each run did not count and the levels of fewer distinct instances (the text says them under its headline)."""

    csv_named = False

    def in_table(self, report: Report) -> list[str]:
        lines = []
        for (model, mode), cells in _cell_groups(report).items():
            header = ["puzzle", *cell_columns(report)]
            body = [[c.puzzle, *cell_values(report, c)] for c in cells]
            lines += ["", f"{model} · {mode}", *align([header, *body], numeric=range(1, len(header) - 2))]
        return lines

    def in_md(self, report: Report) -> list[str]:
        header = ["model", "mode", "puzzle", *cell_columns(report)]
        return ["## Cells", "", *md_table(header, [[c.model, c.mode, c.puzzle, *cell_values(report, c)] for c in report.cells])]

    def in_csv(self, report: Report) -> list[list[Any]]:
        seen = {s for c in report.cells for s in (*c.status_counts, *c.infra_counts)}
        statuses = [*COUNTED_STATUSES, *sorted(seen - set(COUNTED_STATUSES) - INFRASTRUCTURE_STATUSES), *INFRASTRUCTURE_ORDER]
        thresholds = {(t.model, t.mode, t.puzzle): t for t in report.thresholds}
        rows: list[list[Any]] = [["model", "mode", "puzzle", "level", "mean_complexity", "instances", "samples", "executions",
                                  "legal_rate", "legal_rate_low", *(f"pass@{k}" for k in report.ks), "oracle_best_of_n",
                                  "best_sample_mean", *statuses, "missing", "partial", "lambda_star", "lambda_low", "lambda_high"]]
        for c in report.cells:
            counts = {**c.status_counts, **c.infra_counts}
            t = thresholds.get((c.model, c.mode, c.puzzle))
            rows.append([c.model, c.mode, c.puzzle, c.level, _number(c.mean_complexity), c.instances, c.samples, c.executions,
                         _number(c.legal_rate), _number(c.legal_low), *(_number(c.pass_at.get(k)) for k in report.ks),
                         _number(c.oracle_best_of_n), _number(c.best_sample_mean), *(counts.get(s, 0) for s in statuses),
                         c.missing, int(c.partial), *(_number(getattr(t, f, None)) for f in ("lambda_star", "low", "high"))])
        if report.coverage:  # what each run did not count
            rows += [[], ["section:coverage"],
                     ["run", "partial", *INFRASTRUCTURE_ORDER, "missing", "games_void", "games_missing", "cells",
                      "searches_unfinished"],
                     *([run.run, int(run.partial), *(run.infra_counts.get(s, 0) for s in INFRASTRUCTURE_ORDER), run.missing,
                        run.games_void, run.games_missing, cell_names(run.cells), search_names(run.searches)]
                       for run in report.coverage)]
        if report.fewer_instances:
            rows += [[], ["section:fewer-instances"], ["puzzle", "level", "distinct", "seeds"],
                     *([f.puzzle, f.level, f.distinct, f.seeds] for f in report.fewer_instances)]
        return rows

    def in_html(self, report: Report) -> str:
        header = ["puzzle", *cell_columns(report)]
        tables = [f"<h3>{escape(model)} · {escape(mode)}</h3>"
                  + html_table(header, ([c.puzzle, *cell_values(report, c)] for c in cells), numeric=range(1, len(header) - 2))
                  for (model, mode), cells in _cell_groups(report).items()]
        return '<section id="cells"><h2>Cells</h2>' + ("".join(tables) or "<p>no results yet</p>") + "</section>"

    def links(self, report: Report) -> list[tuple[str, str]]:
        return [("cells", "cells")]


def _cells_section(report: Report) -> Section:
    return Section("cells", "the cells: one row per model × mode × puzzle × level", ("model", "mode", "puzzle", *cell_columns(report)),
                   tuple((c.model, c.mode, c.puzzle, *cell_values(report, c)) for c in report.cells),
                   tuple(sections.flat(c) for c in report.cells), 3)


class GamesSection(ReportSection):
    """The games, when a run played any: the scores, then each pool's ratings (in CSV, one row per game × level × player
    with its ratings, right after the cells); the page links their replays."""

    csv_named = False

    def in_table(self, report: Report) -> list[str]:
        if report.games is None:
            return []
        lines = ["", f"games: {report.games.games} played", SCORES_TITLE,
                 *align([SCORE_HEADER, *score_rows(report.games)], numeric=range(3, 7)), "", RATINGS_TITLE]
        for pool in report.games.ratings:
            lines += ["", pool_title(pool), *align([RATING_HEADER, *rating_rows(pool)], numeric=range(1, 5))]
        return lines

    def in_md(self, report: Report) -> list[str]:
        if report.games is None:
            return []
        lines = ["", "## Games", "", f"{report.games.games} games played. {SCORES_TITLE}.", "",
                 *md_table(SCORE_HEADER, score_rows(report.games)), "", "## Ratings", "", RATINGS_TITLE + "."]
        for pool in report.games.ratings:
            lines += ["", f"### {pool_title(pool)}", "", *md_table(RATING_HEADER, rating_rows(pool))]
        return lines

    def in_csv(self, report: Report) -> list[list[Any]]:
        if report.games is None:
            return []
        rows: list[list[Any]] = [[], ["game", "level", "player", "games", "raw_mean", "normalized", "pool_normalized", "wins",
                                      "draws", "losses", "bt_rating", "bt_low", "bt_high", "elo_puzzleplex", "tokens_per_game"]]
        pools = {pool.game: {rating.player: rating for rating in pool.ratings} for pool in report.games.ratings}
        elo = {pool.game: pool.elo for pool in report.games.ratings}
        for score in report.games.scores:
            rating = pools.get(score.game, {}).get(score.player)
            rows.append([score.game, score.level, score.player, score.games, _number(score.raw), _number(score.normalized),
                         _number(score.pool_normalized), score.wins, score.draws, score.losses,
                         *(_number(getattr(rating, f, None)) for f in ("rating", "low", "high")),
                         _number(elo.get(score.game, {}).get(score.player)), _number(score.tokens)])
        return rows

    def in_html(self, report: Report) -> str:
        if report.games is None:
            return ""
        pools = "".join(f"<h3>{escape(pool_title(pool))}</h3>" + html_table(RATING_HEADER, rating_rows(pool), numeric=range(1, 5))
                        for pool in report.games.ratings)
        return (f'<section id="games"><h2>Games</h2><p>{escape(f"{report.games.games} games played. {SCORES_TITLE}.")}</p>'
                + html_table(SCORE_HEADER, score_rows(report.games), numeric=range(3, 7))
                + f"<h3>Ratings</h3><p>{escape(RATINGS_TITLE)}.</p>{pools}</section>")

    def links(self, report: Report) -> list[tuple[str, str]]:
        return [("games", "games"), ("replays", "replays")] if report.games is not None else []


def _games_section(report: Report) -> Section:
    scores = report.games.scores if report.games is not None else ()
    return Section("games", SCORES_TITLE, tuple(SCORE_HEADER), tuple(tuple(row) for row in score_rows(report.games))
                   if report.games is not None else (), tuple(sections.flat(s) for s in scores), 3)


class ProtocolSection(ReportSection):
    """A protocol run's table: Table 3's layout (what --section shows), then per game, then what the runs play otherwise
    than the protocol and what codebench computes otherwise than the paper."""

    def parts(self, report: Report) -> list[Section]:
        return [] if report.protocol is None else [self.render(report), _protocol_games_section(report.protocol)]

    def notes(self, report: Report) -> list[str]:
        return [] if report.protocol is None else table_notes(report.protocol)

    def in_table(self, report: Report) -> list[str]:
        lines = [line for part in self.parts(report) for line in ["", *sections.table_lines(part)]]
        return [*lines, "", *self.notes(report)] if lines else []

    def in_md(self, report: Report) -> list[str]:
        lines = [line for part in self.parts(report) for line in ["", *sections.md_lines(part)]]
        return [*lines, "", *(f"- {note}" for note in self.notes(report))] if lines else []

    def in_csv(self, report: Report) -> list[list[Any]]:
        return [row for part in self.parts(report) for row in [[], [f"section:{part.name}"], *sections.csv_rows(part)]]

    def in_html(self, report: Report) -> str:
        notes = "".join(f"<li>{escape(note)}</li>" for note in self.notes(report))
        return "".join(sections.html_section(part) for part in self.parts(report)) + (f"<ul>{notes}</ul>" if notes else "")


def _protocol_section(report: Report) -> Section:
    """Table 3's layout: a player per row, a kind × level per column, then every game and the best."""
    table = report.protocol
    if table is None:
        return Section("protocol", "a protocol run's own table (codebench run --protocol)", ("player",), (), (), 1)
    title = f"{table.title} (--protocol {table.protocol}) in its {table.table}'s layout: {TABLE_TITLE}"
    return Section("protocol", title, tuple(table_header(table)), tuple(map(tuple, table_rows(table))),
                   tuple(sections.flat(group) for group in table.groups), 1)


def _protocol_games_section(table: ProtocolTable) -> Section:
    return Section("protocol-games", GAME_TITLE, tuple(GAME_HEADER), tuple(map(tuple, game_rows(table))),
                   tuple(sections.flat(score) for score in table.scores), 4)


def _protocol_table(sources: Sources) -> ProtocolTable | None:
    """The table of the first protocol the runs followed, over the games they played."""
    if not sources.protocols:
        return None
    protocol = PROTOCOLS[sources.protocols[0].name]
    return protocol_table(sources.games, protocol, [(run.run, run.departures) for run in sources.protocols
                                                    if run.name == protocol.name])


REGISTRY: tuple[ReportSection, ...] = (
    CellsSection("cells", "per model × mode × puzzle × level: legal rate, pass@k, failures, what was not counted",
                 lambda s: {"cells": tuple(cell_metrics(s.rows, s.ks, s.planned))}, _cells_section, brief=True),
    ReportSection("collapse", "λ* with its interval, the segmented fit and the regimes' rates per model × mode × puzzle",
                  lambda s: {"thresholds": tuple(collapse_thresholds(s.rows, boot=s.boot, seed=s.seed)),
                             "regimes": tuple(collapse_regimes(s.rows))},
                  lambda r: sections.collapse_section(r.thresholds, r.regimes), brief=True),
    ReportSection("adaptive", "adaptive searches (--adaptive): λ* with its credible interval, the points asked, why each stopped, "
                  "and the fixed grid's cost for the same width (simulated)",
                  lambda s: {"searches": tuple(searches(s.searches, seed=s.seed))}, lambda r: sections.adaptive_section(r.searches),
                  brief=True),
    ReportSection("levels", "the mean legal rate by level over every model × mode × puzzle",
                  lambda s: {"levels": tuple(global_curve(s.rows))}, lambda r: sections.levels_section(r.levels)),
    ReportSection("failures", "the failure modes of the non-legal results",
                  lambda s: {"failures": tuple(failure_modes(s.rows))}, lambda r: sections.failures_section(r.failures)),
    ReportSection("traces", "how far failing trajectories got", lambda s: {"traces": tuple(trace_grades(s.rows))},
                  lambda r: sections.traces_section(r.traces)),
    ReportSection("cross-task", "the legal rate of each model and mode on each puzzle",
                  lambda s: {"success": tuple(success_matrix(s.rows))}, lambda r: sections.matrix_section(r.success)),
    ReportSection("correlations", "whether success on one puzzle predicts success on another",
                  lambda s: {"correlations": tuple(task_correlations(s.rows))},
                  lambda r: sections.correlations_section(r.correlations)),
    ReportSection("tokens", "the tokens of passes and of fails", lambda s: {"tokens": tuple(token_stats(s.rows))},
                  lambda r: sections.tokens_section(r.tokens)),
    ReportSection("token-correlation", "token length against correctness",
                  lambda s: {"token_correlations": tuple(token_correlations(s.rows))},
                  lambda r: sections.token_correlation_section(r.token_correlations)),
    ReportSection("cost", "the tokens and cost of the stored requests",
                  lambda s: {"costs": tuple(cost_lines(s.usages, s.prices)) if s.usages else ()},
                  lambda r: sections.cost_section(r.costs)),
    ReportSection("optimality", "plan lengths of the passes against the minimal ones",
                  lambda s: {"optimality": tuple(optimality(s.rows))}, lambda r: sections.optimality_section(r.optimality)),
    ReportSection("difficulty", "reference metrics per puzzle × level, and weak level steps",
                  lambda s: {"difficulty": tuple(difficulty_table(s.facts))}, lambda r: sections.difficulty_section(r.difficulty)),
    GamesSection("games", "the games' scores and ratings",
                 lambda s: {"games": build_games_report(s.games, seed=s.seed) if s.games else None}, _games_section, brief=True),
    ProtocolSection("protocol", "a protocol run's own table (--protocol): PuzzlePlex's Table 3 layout, mean ± 95% t-interval "
                    "over the sample means, then per game", lambda s: {"protocol": _protocol_table(s)}, _protocol_section,
                    brief=True),
)
SECTIONS = tuple(entry.name for entry in REGISTRY)  # what --section takes, in the report's order


def registered(name: str) -> ReportSection:
    """The section `name` (--section NAME).

    Raises:
        InputError: no section is called that (the message lists them).
    """
    for entry in REGISTRY:
        if entry.name == name:
            return entry
    raise InputError(f"--section {name!r}: choose one of {', '.join(SECTIONS)}")


def _plain(value: Any) -> Any:
    """JSON-safe: NaN → null, integer keys → strings (what json would do), recursively."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def _json(report: Report) -> str:
    """The report's fields, after `partial` (first, so a reader cannot miss it); each cell and run says whether it is."""
    data = asdict(report)
    for cell, fields in zip(report.cells, data["cells"]):
        fields["partial"] = cell.partial
    for run, fields in zip(report.coverage, data["coverage"]):
        fields["partial"] = run.partial
    return json.dumps(_plain({"partial": report.partial, **data}), indent=2, ensure_ascii=False) + "\n"
