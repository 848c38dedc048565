"""The report's analyses as named sections: one title, one table of formatted cells, and the records behind it.

`codebench report --section NAME` prints one; the full report prints them all after the cells. Tables, markdown and the
HTML page show the formatted cells; CSV and JSON the records at full precision (a dict field becomes one column per key).
Pure functions; imports the standard library and the analyses' record types.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, is_dataclass
from html import escape
from typing import Any

from .collapse import RELIABLE_RATE, CollapseRegime, LevelMean
from .crosstask import SuccessCell, TaskCorrelation
from .failures import FailureCounts
from .metrics import CollapseThreshold, TraceGrade
from .optimality import Difficulty, Optimality, weak_steps
from .searches import GRID_CAP, GRID_REPETITIONS, Search
from .usage import CostLine, TokenCorrelation, TokenStats

NUMERIC = ' class="num"'  # an HTML cell right-aligned


@dataclass(frozen=True)
class Section:
    """One analysis: `name` for --section, a one-line `title` saying what it measures, a table, and its records."""

    name: str
    title: str
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    records: tuple[dict[str, Any], ...]
    numeric_from: int  # columns from here on are right-aligned


def rate(value: float | None) -> str:
    return "-" if value is None or math.isnan(value) else f"{value:.3f}"


def number(value: float | None) -> str:
    return "-" if value is None or math.isnan(value) else f"{value:.4g}"


def mix(counts: dict[str, int]) -> str:
    """"api_error:3 sandbox_error:1" ("-": none)."""
    return " ".join(f"{status}:{n}" for status, n in counts.items()) or "-"


def flat(record: Any) -> dict[str, Any]:
    """A record as one flat mapping: a dataclass's fields, each dict field spread as `field.key`."""
    data = asdict(record) if is_dataclass(record) and not isinstance(record, type) else dict(record)
    out: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(value, dict):
            out.update({f"{key}.{inner}": item for inner, item in value.items()})
        else:
            out[key] = value
    return out


def _section(name: str, title: str, header: Sequence[str], rows: Iterable[Sequence[str]], records: Iterable[Any],
             numeric_from: int) -> Section:
    return Section(name, title, tuple(header), tuple(tuple(row) for row in rows), tuple(flat(r) for r in records), numeric_from)


def failures_section(counts: Sequence[FailureCounts]) -> Section:
    categories = list(dict.fromkeys(category for cell in counts for category in cell.counts))
    return _section("failures", "failure modes of the non-legal results (the first seed's taxonomy; the rules are in the README)",
                    ["model", "mode", "puzzle", "level", "failures", *categories],
                    ([c.model, c.mode, c.puzzle, str(c.level), str(c.failures), *(str(c.counts.get(k, 0)) for k in categories)]
                     for c in counts), counts, 3)


def _interval(low: float | None, high: float | None) -> str:
    return "-" if low is None or high is None else f"[{number(low)}, {number(high)}]"


def collapse_section(thresholds: Sequence[CollapseThreshold], regimes: Sequence[CollapseRegime]) -> Section:
    """λ* beside the segmented fit, the highest reliable level and the regimes' rates, one row per model × mode × puzzle."""
    lambdas = {(t.model, t.mode, t.puzzle): t for t in thresholds}
    rows, records = [], []
    for regime in regimes:
        t = lambdas.get((regime.model, regime.mode, regime.puzzle))
        star = "-" if t is None else "no decline" if t.lambda_star is None else number(t.lambda_star)
        rows.append([regime.model, regime.mode, regime.puzzle, star, _interval(t.low, t.high) if t else "-",
                     number(regime.breakpoint), number(regime.slope_before), number(regime.slope_after),
                     "-" if regime.reliable_level is None else str(regime.reliable_level),
                     *(rate(regime.regime_rates.get(name, math.nan)) for name in ("L1-2", "L3-4", "L5+"))])
        records.append({**flat(regime), "lambda_star": t.lambda_star if t else None, "lambda_low": t.low if t else None,
                        "lambda_high": t.high if t else None})
    return _section("collapse", "collapse: λ* (steepest decline per unit λ, 95% bootstrap interval over instances), the "
                    "breakpoint λ of a two-segment fit with its slopes, the highest level passed at a rate of at least "
                    f"{RELIABLE_RATE:g}, and the legal rate of the regimes L1-2, L3-4, L5+",
                    ["model", "mode", "puzzle", "λ*", "interval", "breakpoint", "slope before", "slope after",
                     f"reliable ≥{RELIABLE_RATE:g}", "L1-2", "L3-4", "L5+"], rows, records, 3)


def asked_points(search: Search) -> str:
    """"3:1/1 5:0/2": each complexity asked, its legal results of those counted."""
    return " ".join(f"{point.complexity}:{point.legal}/{point.counted}" for point in search.points) or "-"


def grid_spent(search: Search) -> str:
    """The simulated grid's mean counted results: "≥" where some repetitions never reached the width within the cap."""
    if math.isnan(search.grid_counted):
        return "-"
    if search.grid_reached < 1:
        return f"≥{search.grid_counted:.0f} ({search.grid_reached:.0%} reached)"
    return f"{search.grid_counted:.0f}"


def adaptive_section(searches: Sequence[Search]) -> Section:
    """One row per adaptive search (run × model × mode × puzzle); its records at full precision, the asked points as text."""
    rows = [[s.run, s.model, s.mode, s.puzzle, s.stop or "-", number(s.lambda_star),
             "-" if math.isnan(s.low) else _interval(s.low, s.high), number(s.width),
             number(s.target_width), str(s.counted), str(s.repeated), grid_spent(s), ("≤" if s.grid_reached < 1 else "") + rate(s.ratio),
             mix(s.not_counted), asked_points(s), s.edge or "-"] for s in searches]
    records = [{**{k: v for k, v in flat(s).items() if k != "points"}, "ratio": s.ratio, "asked": asked_points(s)} for s in searches]
    return _section("adaptive", "adaptive searches (codebench run --adaptive): stop: width (the interval got narrower than the "
                    "target), budget (--search-budget results counted) or unfinished (neither: re-run the same command); λ* the "
                    "posterior median of the logistic's midpoint, its 95% credible interval and width; counted: results the "
                    "design used; repeated: of them, results on an instance the search had asked before (seeds that draw "
                    "the same instance: Hanoi has one per n; the interval takes them as independent, so it is too narrow "
                    "where they are many, above all in code mode, where one program on one instance gives one result); "
                    "not counted: infrastructure failures it ignores; grid: the counted results the fixed L1-L6 "
                    f"grid would spend for the same width, SIMULATED from the fitted curve ({GRID_REPETITIONS} seeded "
                    f"repetitions, each capped at {GRID_CAP}× the search's results: ≥ where some never reached it); asked: "
                    "λ:legal/counted; λ* beyond the axis: where the interval reaches an end of the puzzle's complexity axis, "
                    "which the search cannot pass", ["run", "model", "mode", "puzzle", "stop", "λ*", "interval", "width", "target",
                                                     "counted", "repeated", "grid (simulated)", "counted ÷ grid", "not counted", "asked",
                                                     "λ* beyond the axis"], rows, records, 4)


def levels_section(curve: Sequence[LevelMean]) -> Section:
    return _section("levels", "global mean legal rate by level (unweighted over model × mode × puzzle)",
                    ["level", "groups", "mean legal"], ([str(p.level), str(p.groups), rate(p.mean_legal_rate)] for p in curve),
                    curve, 0)


def traces_section(traces: Sequence[TraceGrade]) -> Section:
    return _section("traces", "how far failing trajectories got (legal steps ÷ the shortest solution's length, averaged; the "
                    "median first illegal step)", ["model", "mode", "puzzle", "level", "failures", "progress", "first illegal"],
                    ([t.model, t.mode, t.puzzle, str(t.level), str(t.failures), rate(t.mean_progress),
                      "-" if t.median_first_illegal is None else f"{t.median_first_illegal:g}"] for t in traces), traces, 3)


def matrix_section(cells: Sequence[SuccessCell]) -> Section:
    """The model × puzzle success matrix: one row per model and mode, one column per puzzle (records stay long)."""
    puzzles = sorted({cell.puzzle for cell in cells})
    sides = list(dict.fromkeys((cell.model, cell.mode) for cell in cells))
    rates = {(cell.model, cell.mode, cell.puzzle): cell.legal_rate for cell in cells}
    return _section("cross-task", "cross-task success matrix: the legal rate of each model and mode on each puzzle, all levels",
                    ["model", "mode", *puzzles],
                    ([model, mode, *(rate(rates.get((model, mode, p), math.nan)) for p in puzzles)] for model, mode in sides),
                    cells, 2)


def correlations_section(correlations: Sequence[TaskCorrelation]) -> Section:
    return _section("correlations", "does success on one puzzle predict success on another: Pearson r of the per-level legal "
                    "rates over the (model, mode, level) cells both have, 95% Fisher-z interval",
                    ["puzzle a", "puzzle b", "pairs", "r", "interval"],
                    ([c.puzzle_a, c.puzzle_b, str(c.pairs), number(c.r), _interval(c.low, c.high)] for c in correlations),
                    correlations, 2)


def tokens_section(stats: Sequence[TokenStats]) -> Section:
    """The cells with any token count (servers that report no usage leave none)."""
    stats = [s for s in stats if not all(math.isnan(v) for v in (s.pass_completion, s.fail_completion, s.pass_reasoning,
                                                                 s.fail_reasoning))]
    return _section("tokens", "completion and reasoning tokens of passes and fails (a code-mode program's tokens count on "
                    "every instance it is judged on)",
                    ["model", "mode", "puzzle", "level", "passes", "fails", "completion pass", "completion fail",
                     "reasoning pass", "reasoning fail"],
                    ([s.model, s.mode, s.puzzle, str(s.level), str(s.passes), str(s.fails), number(s.pass_completion),
                      number(s.fail_completion), number(s.pass_reasoning), number(s.fail_reasoning)] for s in stats), stats, 3)


def token_correlation_section(correlations: Sequence[TokenCorrelation]) -> Section:
    return _section("token-correlation", "token length vs correctness: point-biserial r between passing and the token count",
                    ["model", "mode", "rows", "r completion", "r reasoning"],
                    ([c.model, c.mode, str(c.rows), number(c.r_completion), number(c.r_reasoning)] for c in correlations),
                    correlations, 2)


def cost_section(lines: Sequence[CostLine]) -> Section:
    return _section("cost", "tokens and cost of the stored requests (US dollars from the run's --price table; - where a model "
                    "has no price: none is assumed; uncounted: requests whose server gave no token count, 0 in the sums, "
                    "which are then a lower bound; cached: answered from the response cache, their tokens counted, their "
                    "cost 0; batch: sent through the Batch API, at its batch rate)",
                    ["scope", "model", "mode", "puzzle", "requests", "uncounted", "cached", "batch", "prompt", "completion",
                     "reasoning", "cost $"],
                    ([c.scope, c.model or "*", c.mode or "*", c.puzzle or "*", str(c.requests), str(c.uncounted), str(c.cached),
                      str(c.batched), str(c.prompt_tokens), str(c.completion_tokens), str(c.reasoning_tokens),
                      "-" if c.cost is None else f"{c.cost:.4f}"] for c in lines), lines, 4)


def optimality_section(cells: Sequence[Optimality]) -> Section:
    return _section("optimality", "optimality of the passes: plan length ÷ the stored minimal length (1 = optimal), where one "
                    "is known", ["model", "mode", "puzzle", "level", "solved", "mean ratio", "optimal share"],
                    ([o.model, o.mode, o.puzzle, str(o.level), str(o.solved), number(o.mean_ratio), rate(o.optimal_share)]
                     for o in cells), cells, 3)


def difficulty_section(table: Sequence[Difficulty]) -> Section:
    """Reference metrics per family × level, and the level steps they show to be weak."""
    weak = {(puzzle, level): why for puzzle, level, why in weak_steps(table)}
    return _section("difficulty", "difficulty by reference metrics (instance means: complexity parameters, minimal length, "
                    "search_nodes and sudoku's tau: the reference solver's search, state space, solution count), and weak level steps",
                    ["puzzle", "level", "instances", "metrics", "weak step"],
                    ([d.puzzle, str(d.level), str(d.instances), " ".join(f"{k}={v:.4g}" for k, v in d.metrics.items()),
                      weak.get((d.puzzle, d.level), "")] for d in table),
                    ({**flat(d), "weak_step": weak.get((d.puzzle, d.level), "")} for d in table), 1)


def align(rows: list[list[str]] | list[tuple[str, ...]], numeric: range) -> list[str]:
    """Columns padded to their widest entry; the `numeric` columns right-aligned, the others left."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ["  ".join(v.rjust(w) if i in numeric else v.ljust(w) for i, (v, w) in enumerate(zip(row, widths))).rstrip()
            for row in rows]


def table_lines(section: Section) -> list[str]:
    if not section.rows:
        return [section.title, "(nothing to show in this run)"]
    return [section.title, *align([section.header, *section.rows], range(section.numeric_from, len(section.header)))]


def md_escape(text: str) -> str:
    return text.replace("|", "\\|")


def md_table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header),
            *("| " + " | ".join(md_escape(v) for v in row) + " |" for row in rows)]


def md_lines(section: Section) -> list[str]:
    body = md_table(section.header, section.rows) if section.rows else ["(nothing to show in this run)"]
    return [f"## {section.name}", "", section.title[0].upper() + section.title[1:] + ".", "", *body]


def html_table(header: Sequence[str], rows: Iterable[Sequence[str]], numeric: range) -> str:
    """A table of formatted values, escaped; the `numeric` columns right-aligned."""
    def line(values: Sequence[str], tag: str) -> str:
        return "<tr>" + "".join(f"<{tag}{NUMERIC if i in numeric else ''}>{escape(v)}</{tag}>" for i, v in enumerate(values)) + "</tr>"
    return (f"<table><thead>{line(header, 'th')}</thead><tbody>" + "".join(line(row, "td") for row in rows)
            + "</tbody></table>")


def html_section(section: Section) -> str:
    return (f'<section id="analysis-{escape(section.name)}"><h2>{escape(section.name)}</h2><p>{escape(section.title)}</p>'
            + html_table(section.header, section.rows, numeric=range(section.numeric_from, len(section.header))) + "</section>")


def _cell(value: Any) -> Any:
    return "" if value is None or (isinstance(value, float) and math.isnan(value)) else value


def csv_rows(section: Section) -> list[list[Any]]:
    """The records as a header and rows, columns the union of their keys in first-seen order."""
    columns = list(dict.fromkeys(key for record in section.records for key in record))
    return [columns, *([_cell(record.get(column)) for column in columns] for record in section.records)]


def render_section(section: Section, fmt: str, plain: Callable[[Any], Any]) -> str:
    """One section alone in `fmt`; `plain` makes a record JSON-safe."""
    if fmt == "table":
        return "\n".join(table_lines(section)) + "\n"
    if fmt == "md":
        return "\n".join(md_lines(section)) + "\n"
    if fmt == "csv":
        out = io.StringIO()
        csv.writer(out, lineterminator="\n").writerows(csv_rows(section))
        return out.getvalue()
    return json.dumps({"section": section.name, "title": section.title, "records": plain(list(section.records))},
                      indent=2, ensure_ascii=False) + "\n"
