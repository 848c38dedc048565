"""The run report: metrics gathered into one `Report`, rendered as a plain-text table, markdown, CSV or JSON.

Pure functions over rows; imports only the standard library, the shared types and errors, and `metrics`. Rates print
with three decimals, "-" where nothing was counted; infrastructure failures are shown apart.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from ..errors import InputError
from ..types import (
    COUNTED_STATUSES,
    INFRASTRUCTURE_ORDER,
    INFRASTRUCTURE_STATUSES,
    ExecutionRow,
    GameRow,
    InstanceFacts,
    SampleUsage,
    Status,
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
from .sections import Section, align, md_table, number, rate
from .usage import CostLine, Price, TokenCorrelation, TokenStats, cost_lines, token_correlations, token_stats

FORMATS = ("table", "md", "csv", "json")
LEGEND = ("any-legal: oracle best-of-n, the fraction of instances where any sample is legal",
          "best-sample: PuzzlePlex's best-of-n, the best single sample's mean legal rate over instances",
          "pass@k: unbiased estimator over each instance's samples, shown when every instance has k or more")
SECTIONS = ("cells", "collapse", "levels", "failures", "traces", "cross-task", "correlations", "tokens", "token-correlation",
            "cost", "optimality", "difficulty", "games")
BRIEF = ("collapse",)  # what `codebench run` prints after the cells


@dataclass(frozen=True)
class Totals:
    """The whole run: counted executions and their statuses, infrastructure failures apart."""

    rows: int
    executions: int
    legal_rate: float
    status_counts: dict[str, int]
    infra_counts: dict[str, int]


@dataclass(frozen=True)
class Report:
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


def build_report(rows: Sequence[ExecutionRow], ks: Sequence[int], *, boot: int = 1000, seed: int = 0,
                 games: Sequence[GameRow] = (), usages: Sequence[SampleUsage] = (), prices: dict[str, Price] | None = None,
                 facts: Sequence[InstanceFacts] = ()) -> Report:
    """Every analysis of one set of rows, the stored requests' usage (cost, at `prices`), the planned instances'
    reference metrics (difficulty) and the stored games."""
    statuses = Counter(row.status for row in rows)
    counted = Counter({s: n for s, n in statuses.items() if s not in INFRASTRUCTURE_STATUSES})
    executions = sum(counted.values())
    totals = Totals(len(rows), executions, counted[Status.LEGAL] / executions if executions else math.nan,
                    ordered_counts(counted, COUNTED_STATUSES), ordered_counts(statuses - counted, INFRASTRUCTURE_ORDER))
    return Report(check_ks(ks), tuple(cell_metrics(rows, ks)), tuple(collapse_thresholds(rows, boot=boot, seed=seed)), totals,
                  tuple(trace_grades(rows)), build_games_report(games, seed=seed) if games else None,
                  tuple(collapse_regimes(rows)), tuple(global_curve(rows)), tuple(failure_modes(rows)),
                  tuple(success_matrix(rows)), tuple(task_correlations(rows)), tuple(token_stats(rows)),
                  tuple(token_correlations(rows)), tuple(cost_lines(usages, prices or {})) if usages else (),
                  tuple(optimality(rows)), tuple(difficulty_table(facts)))


def analysis_sections(report: Report) -> dict[str, Section]:
    """The analyses after the cells, by --section name, in the report's order."""
    return {
        "collapse": sections.collapse_section(report.thresholds, report.regimes),
        "levels": sections.levels_section(report.levels),
        "failures": sections.failures_section(report.failures),
        "traces": sections.traces_section(report.traces),
        "cross-task": sections.matrix_section(report.success),
        "correlations": sections.correlations_section(report.correlations),
        "tokens": sections.tokens_section(report.tokens),
        "token-correlation": sections.token_correlation_section(report.token_correlations),
        "cost": sections.cost_section(report.costs),
        "optimality": sections.optimality_section(report.optimality),
        "difficulty": sections.difficulty_section(report.difficulty),
    }


def render_report(report: Report, fmt: str, section: str | None = None, *, brief: bool = False) -> str:
    """The report as text in `fmt` (table, md, csv or json); only the analysis `section` if one is named; `brief`: the
    table of the cells and the collapse only, naming the other sections.

    Raises:
        InputError: an unknown format or section.
    """
    renderers: dict[str, Callable[[Report], str]] = {"table": _table, "md": _markdown, "csv": _csv, "json": _json}
    if fmt not in renderers:
        raise InputError(f"unknown report format {fmt!r}: use one of {', '.join(FORMATS)}")
    if section is not None:
        return _one_section(report, fmt, section)
    return _table(report, brief=True) if brief and fmt == "table" else renderers[fmt](report)


def _one_section(report: Report, fmt: str, name: str) -> str:
    if name not in SECTIONS:
        raise InputError(f"--section {name!r}: choose one of {', '.join(SECTIONS)}")
    if name == "cells":
        found = Section("cells", "the cells: one row per model × mode × puzzle × level",
                        ("model", "mode", "puzzle", *cell_columns(report)),
                        tuple((c.model, c.mode, c.puzzle, *cell_values(report, c)) for c in report.cells),
                        tuple(sections.flat(c) for c in report.cells), 3)
    elif name == "games":
        scores = report.games.scores if report.games is not None else ()
        found = Section("games", SCORES_TITLE, tuple(SCORE_HEADER), tuple(tuple(row) for row in score_rows(report.games))
                        if report.games is not None else (), tuple(sections.flat(s) for s in scores), 3)
    else:
        found = analysis_sections(report)[name]
    return sections.render_section(found, fmt, _plain)


def mix(counts: dict[str, int]) -> str:
    return " ".join(f"{status}:{n}" for status, n in counts.items()) or "-"


def failures(cell: CellMetrics) -> dict[str, int]:
    return {status: n for status, n in cell.status_counts.items() if status != Status.LEGAL}


def summary(totals: Totals) -> str:
    infra = f"; infrastructure failures, not counted: {mix(totals.infra_counts)}" if totals.infra_counts else ""
    return f"{totals.executions} executions, legal rate {rate(totals.legal_rate)}{infra}"


def cell_columns(report: Report) -> list[str]:
    """A cell's columns after its puzzle: the numbers, then its failures and infrastructure counts."""
    return ["level", "λ", "inst", "n", "exec", str(Status.LEGAL), *(f"pass@{k}" for k in report.ks), "any-legal", "best-sample",
            "failures", "infra"]


def cell_values(report: Report, cell: CellMetrics) -> list[str]:
    passes = [rate(cell.pass_at[k]) if k in cell.pass_at else "-" for k in report.ks]
    return [str(cell.level), number(cell.mean_complexity), str(cell.instances), str(cell.samples), str(cell.executions),
            rate(cell.legal_rate), *passes, rate(cell.oracle_best_of_n), rate(cell.best_sample_mean), mix(failures(cell)),
            mix(cell.infra_counts)]


def _table(report: Report, brief: bool = False) -> str:
    played = f"; {report.games.games} games played" if report.games is not None else ""
    lines = [f"codebench report: {summary(report.totals)}{played}"]
    groups: dict[tuple[str, str], list[CellMetrics]] = {}
    for cell in report.cells:
        groups.setdefault((cell.model, cell.mode), []).append(cell)
    for (model, mode), cells in groups.items():
        header = ["puzzle", *cell_columns(report)]
        body = [[c.puzzle, *cell_values(report, c)] for c in cells]
        lines += ["", f"{model} · {mode}", *align([header, *body], numeric=range(1, len(header) - 2))]
    for name, section in analysis_sections(report).items():
        if section.rows and (not brief or name in BRIEF):
            lines += ["", *sections.table_lines(section)]
    if report.games is not None:
        lines += ["", f"games: {report.games.games} played", SCORES_TITLE,
                  *align([SCORE_HEADER, *score_rows(report.games)], numeric=range(3, 7))]
        lines += ["", RATINGS_TITLE]
        for pool in report.games.ratings:
            lines += ["", pool_title(pool), *align([RATING_HEADER, *rating_rows(pool)], numeric=range(1, 5))]
    lines += ["", *LEGEND]
    if brief:
        lines += ["", f"more: codebench report RUN_DIR --section NAME, NAME one of {', '.join(SECTIONS)}"]
    return "\n".join(lines) + "\n"


def _markdown(report: Report) -> str:
    lines = ["# codebench report", "", summary(report.totals), "", "## Cells", ""]
    header = ["model", "mode", "puzzle", *cell_columns(report)]
    lines += md_table(header, [[c.model, c.mode, c.puzzle, *cell_values(report, c)] for c in report.cells])
    for section in analysis_sections(report).values():
        if section.rows:
            lines += ["", *sections.md_lines(section)]
    if report.games is not None:
        lines += ["", "## Games", "", f"{report.games.games} games played. {SCORES_TITLE}.", ""]
        lines += md_table(SCORE_HEADER, score_rows(report.games))
        lines += ["", "## Ratings", "", RATINGS_TITLE + "."]
        for pool in report.games.ratings:
            lines += ["", f"### {pool_title(pool)}", "", *md_table(RATING_HEADER, rating_rows(pool))]
    lines += ["", *(f"- {line}" for line in LEGEND)]
    return "\n".join(lines) + "\n"


def _number(value: float | None) -> str:
    return "" if value is None or math.isnan(value) else repr(value)


def _csv(report: Report) -> str:
    """One row per cell at full precision; its group's λ* repeated on every level; empty where nothing was counted.
    The games, then each analysis, follow as further tables, each after one empty line (`--section` gives one alone)."""
    seen = {s for c in report.cells for s in (*c.status_counts, *c.infra_counts)}
    statuses = [*COUNTED_STATUSES, *sorted(seen - set(COUNTED_STATUSES) - INFRASTRUCTURE_STATUSES), *INFRASTRUCTURE_ORDER]
    thresholds = {(t.model, t.mode, t.puzzle): t for t in report.thresholds}
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["model", "mode", "puzzle", "level", "mean_complexity", "instances", "samples", "executions", "legal_rate",
                     *(f"pass@{k}" for k in report.ks), "oracle_best_of_n", "best_sample_mean", *statuses,
                     "lambda_star", "lambda_low", "lambda_high"])
    for c in report.cells:
        counts = {**c.status_counts, **c.infra_counts}
        t = thresholds.get((c.model, c.mode, c.puzzle))
        writer.writerow([c.model, c.mode, c.puzzle, c.level, _number(c.mean_complexity), c.instances, c.samples, c.executions,
                         _number(c.legal_rate), *(_number(c.pass_at.get(k)) for k in report.ks), _number(c.oracle_best_of_n),
                         _number(c.best_sample_mean), *(counts.get(s, 0) for s in statuses),
                         *(_number(getattr(t, f, None)) for f in ("lambda_star", "low", "high"))])
    if report.games is not None:  # a second table, after one empty line: one row per game × level × player
        writer.writerow([])
        writer.writerow(["game", "level", "player", "games", "raw_mean", "normalized", "pool_normalized", "wins", "draws",
                         "losses", "bt_rating", "bt_low", "bt_high", "elo_puzzleplex", "tokens_per_game"])
        pools = {pool.game: {rating.player: rating for rating in pool.ratings} for pool in report.games.ratings}
        elo = {pool.game: pool.elo for pool in report.games.ratings}
        for score in report.games.scores:
            rating = pools.get(score.game, {}).get(score.player)
            writer.writerow([score.game, score.level, score.player, score.games, _number(score.raw), _number(score.normalized),
                             _number(score.pool_normalized), score.wins, score.draws, score.losses,
                             *(_number(getattr(rating, f, None)) for f in ("rating", "low", "high")),
                             _number(elo.get(score.game, {}).get(score.player)), _number(score.tokens)])
    for section in analysis_sections(report).values():  # then each analysis with records: a name row, its table
        if section.records:
            writer.writerow([])
            writer.writerow([f"section:{section.name}"])
            writer.writerows(sections.csv_rows(section))
    return out.getvalue()


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
    return json.dumps(_plain(asdict(report)), indent=2, ensure_ascii=False) + "\n"
