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
from ..types import COUNTED_STATUSES, INFRASTRUCTURE_ORDER, INFRASTRUCTURE_STATUSES, ExecutionRow, GameRow, Status
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

FORMATS = ("table", "md", "csv", "json")
LEGEND = ("any-legal: oracle best-of-n, the fraction of instances where any sample is legal",
          "best-sample: PuzzlePlex's best-of-n, the best single sample's mean legal rate over instances",
          "pass@k: unbiased estimator over each instance's samples, shown when every instance has k or more")
COLLAPSE_TITLE = "collapse threshold λ* (steepest decline of the legal rate per unit λ; 95% bootstrap interval over instances)"
TRACE_TITLE = ("how far failing trajectories got (legal steps ÷ the shortest solution's length, averaged; the median "
               "first illegal step)")


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
    traces: tuple[TraceGrade, ...] = ()  # shown only when a run has graded trajectories (not in csv: one row per cell)
    games: GamesReport | None = None  # shown only when a run played games


def build_report(rows: Sequence[ExecutionRow], ks: Sequence[int], *, boot: int = 1000, seed: int = 0,
                 games: Sequence[GameRow] = ()) -> Report:
    """Cells, collapse thresholds and totals of one set of rows, and the games section of the stored games."""
    statuses = Counter(row.status for row in rows)
    counted = Counter({s: n for s, n in statuses.items() if s not in INFRASTRUCTURE_STATUSES})
    executions = sum(counted.values())
    totals = Totals(len(rows), executions, counted[Status.LEGAL] / executions if executions else math.nan,
                    ordered_counts(counted, COUNTED_STATUSES), ordered_counts(statuses - counted, INFRASTRUCTURE_ORDER))
    return Report(check_ks(ks), tuple(cell_metrics(rows, ks)), tuple(collapse_thresholds(rows, boot=boot, seed=seed)), totals,
                  tuple(trace_grades(rows)), build_games_report(games, seed=seed) if games else None)


def render_report(report: Report, fmt: str) -> str:
    """The report as text in `fmt` (table, md, csv or json).

    Raises:
        InputError: an unknown format.
    """
    renderers: dict[str, Callable[[Report], str]] = {"table": _table, "md": _markdown, "csv": _csv, "json": _json}
    if fmt not in renderers:
        raise InputError(f"unknown report format {fmt!r}: use one of {', '.join(FORMATS)}")
    return renderers[fmt](report)


def _rate(value: float) -> str:
    return "-" if math.isnan(value) else f"{value:.3f}"


def lam(value: float | None) -> str:
    return "-" if value is None or math.isnan(value) else f"{value:.4g}"


def mix(counts: dict[str, int]) -> str:
    return " ".join(f"{status}:{n}" for status, n in counts.items()) or "-"


def failures(cell: CellMetrics) -> dict[str, int]:
    return {status: n for status, n in cell.status_counts.items() if status != Status.LEGAL}


def interval(threshold: CollapseThreshold) -> str:
    if threshold.lambda_star is None:
        return "no decline"
    return "-" if threshold.low is None else f"[{lam(threshold.low)}, {lam(threshold.high)}]"


def summary(totals: Totals) -> str:
    infra = f"; infrastructure failures, not counted: {mix(totals.infra_counts)}" if totals.infra_counts else ""
    return f"{totals.executions} executions, legal rate {_rate(totals.legal_rate)}{infra}"


def cell_columns(report: Report) -> list[str]:
    return ["level", "λ", "inst", "n", "exec", str(Status.LEGAL), *(f"pass@{k}" for k in report.ks), "any-legal", "best-sample"]


def cell_values(report: Report, cell: CellMetrics) -> list[str]:
    passes = [_rate(cell.pass_at[k]) if k in cell.pass_at else "-" for k in report.ks]
    return [str(cell.level), lam(cell.mean_complexity), str(cell.instances), str(cell.samples), str(cell.executions),
            _rate(cell.legal_rate), *passes, _rate(cell.oracle_best_of_n), _rate(cell.best_sample_mean)]


def align_columns(rows: list[list[str]], numeric: range) -> list[str]:
    """Columns padded to their widest entry; the `numeric` columns right-aligned, the others left."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ["  ".join(v.rjust(w) if i in numeric else v.ljust(w) for i, (v, w) in enumerate(zip(row, widths))).rstrip()
            for row in rows]


def _table(report: Report) -> str:
    played = f"; {report.games.games} games played" if report.games is not None else ""
    lines = [f"codebench report: {summary(report.totals)}{played}"]
    groups: dict[tuple[str, str], list[CellMetrics]] = {}
    for cell in report.cells:
        groups.setdefault((cell.model, cell.mode), []).append(cell)
    for (model, mode), cells in groups.items():
        header = ["puzzle", *cell_columns(report), "failures", "infra"]
        body = [[c.puzzle, *cell_values(report, c), mix(failures(c)), mix(c.infra_counts)] for c in cells]
        lines += ["", f"{model} · {mode}", *align_columns([header, *body], numeric=range(1, len(header) - 2))]
    if report.thresholds:
        rows = [["model", "mode", "puzzle", "λ*", "interval"],
                *([t.model, t.mode, t.puzzle, lam(t.lambda_star), interval(t)] for t in report.thresholds)]
        lines += ["", COLLAPSE_TITLE, *align_columns(rows, numeric=range(3, 4))]
    if report.traces:
        lines += ["", TRACE_TITLE, *align_columns([TRACE_HEADER, *map(trace_values, report.traces)], numeric=range(4, 7))]
    if report.games is not None:
        lines += ["", f"games: {report.games.games} played", SCORES_TITLE,
                  *align_columns([SCORE_HEADER, *score_rows(report.games)], numeric=range(3, 7))]
        lines += ["", RATINGS_TITLE]
        for pool in report.games.ratings:
            lines += ["", pool_title(pool), *align_columns([RATING_HEADER, *rating_rows(pool)], numeric=range(1, 5))]
    lines += ["", *LEGEND]
    return "\n".join(lines) + "\n"


def _md_escape(text: str) -> str:
    return text.replace("|", "\\|")


def _md_table(header: list[str], rows: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header),
            *("| " + " | ".join(_md_escape(v) for v in row) + " |" for row in rows)]


def _markdown(report: Report) -> str:
    lines = ["# codebench report", "", summary(report.totals), "", "## Cells", ""]
    header = ["model", "mode", "puzzle", *cell_columns(report), "failures", "infra"]
    lines += _md_table(header, [[c.model, c.mode, c.puzzle, *cell_values(report, c), mix(failures(c)), mix(c.infra_counts)]
                                for c in report.cells])
    lines += ["", "## Collapse thresholds", "", COLLAPSE_TITLE + ".", ""]
    lines += _md_table(["model", "mode", "puzzle", "λ*", "interval"],
                       [[t.model, t.mode, t.puzzle, lam(t.lambda_star), interval(t)] for t in report.thresholds])
    if report.traces:
        lines += ["", "## How far failing trajectories got", "", TRACE_TITLE + ".", ""]
        lines += _md_table(TRACE_HEADER, [trace_values(t) for t in report.traces])
    if report.games is not None:
        lines += ["", "## Games", "", f"{report.games.games} games played. {SCORES_TITLE}.", ""]
        lines += _md_table(SCORE_HEADER, score_rows(report.games))
        lines += ["", "## Ratings", "", RATINGS_TITLE + "."]
        for pool in report.games.ratings:
            lines += ["", f"### {pool_title(pool)}", "", *_md_table(RATING_HEADER, rating_rows(pool))]
    lines += ["", *(f"- {line}" for line in LEGEND)]
    return "\n".join(lines) + "\n"


TRACE_HEADER = ["model", "mode", "puzzle", "level", "failures", "progress", "first illegal"]


def trace_values(grade: TraceGrade) -> list[str]:
    first = "-" if grade.median_first_illegal is None else f"{grade.median_first_illegal:g}"
    return [grade.model, grade.mode, grade.puzzle, str(grade.level), str(grade.failures), _rate(grade.mean_progress), first]


def _number(value: float | None) -> str:
    return "" if value is None or math.isnan(value) else repr(value)


def _csv(report: Report) -> str:
    """One row per cell at full precision; its group's λ* repeated on every level; empty where nothing was counted."""
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
