"""The report as figures, PNG and SVG files or SVG markup for the HTML report: what people look at instead of tables.

- `legal_rate_vs_lambda`: per puzzle, the legal rate against the mean λ of each level, one line per model × mode,
  with 95% Wilson intervals over the level's counted executions;
- `status_mix`: per model × mode, per puzzle, each level's statuses as stacked shares;
- `collapse_heatmap`: λ* per model × mode (rows) and puzzle (columns), blank where the legal rate never declines;
- `instruction_vs_code`: per puzzle, each model's legal rate in the two modes side by side (runs holding both);
- `failure_modes`: per model × mode, each puzzle's failures by the first seed's categories, as stacked counts;
- `global_curve`: the mean legal rate by level over every model × mode × puzzle, the regimes L1-2, L3-4, L5+ shaded;
- `cross_task_correlation`: Pearson r of per-level success between each pair of puzzles;
- `tokens_pass_fail`: per model × mode, the mean completion tokens of passes and of fails by level;
- `cost`: tokens and (where priced) dollars per model × mode × puzzle;
- `optimality`: per puzzle, the passes' plan length ÷ the minimal length by level;
- `adaptive_searches`: per adaptive search, its fitted curve (the posterior mean of p(λ)), the points asked (the share
  legal at each λ, the marker's area by the results counted there) and λ* with its 95% credible interval shaded.
A partial report's figures say so above their title. The only module that imports matplotlib (Agg, no display),
and only when plots are asked for.
"""

from __future__ import annotations

import io
import math
import warnings
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from ..files import open_output
from ..types import COUNTED_STATUSES, ModeName, Status
from .report import Report
from .searches import fitted_curve

FORMATS = ("png", "svg")
Z95 = 1.959964  # the standard normal's 97.5% quantile


def wilson(successes: int, trials: int) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion (0, 1 when nothing was tried)."""
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    centre = (p + Z95**2 / (2 * trials)) / (1 + Z95**2 / trials)
    half = Z95 * math.sqrt(p * (1 - p) / trials + Z95**2 / (4 * trials**2)) / (1 + Z95**2 / trials)
    return max(0.0, min(p, centre - half)), min(1.0, max(p, centre + half))  # rounding can leave p a hair outside


def write_plots(report: Report, folder: Path) -> list[Path]:
    """Draw every figure the report has data for into `folder` (made if missing); returns the files written."""
    folder.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for name, figure in _figures(report):
        for fmt in FORMATS:
            path = folder / f"{name}.{fmt}"
            with open_output(path, binary=True, replace=True) as out:  # whole or as it was; a planted link or pipe replaced
                _save(figure, out, fmt)
            written.append(path)
    return written


def figure_svgs(report: Report) -> dict[str, str]:
    """Every figure the report has data for, by name, as SVG markup without its XML prolog and DOCTYPE: what an HTML
    page can hold inline (no file beside it to lose)."""
    svgs = {}
    for name, figure in _figures(report):
        text = io.StringIO()
        _save(figure, text, "svg")
        markup = text.getvalue()
        svgs[name] = markup[markup.index("<svg"):]
    return svgs


def _figures(report: Report) -> Iterator[tuple[str, Any]]:
    """(name, figure) for each figure the report has data for; each is closed once the caller has saved it."""
    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams["text.parse_math"] = False  # a label is text as stored: a model named "$\frac{$" is no formula
    matplotlib.rcParams["svg.hashsalt"] = "codebench"  # an SVG's element ids are hashes: salted alike, the same bytes
    import matplotlib.pyplot as plt

    for name, draw in (("legal_rate_vs_lambda", _legal_rate), ("status_mix", _status_mix),
                       ("collapse_heatmap", _heatmap), ("instruction_vs_code", _modes), ("failure_modes", _failure_modes),
                       ("global_curve", _global_curve), ("cross_task_correlation", _correlations),
                       ("tokens_pass_fail", _tokens), ("cost", _cost), ("optimality", _optimality),
                       ("adaptive_searches", _searches)):
        figure = draw(report, plt)
        if figure is None:
            continue
        if report.partial:  # a figure travels without its report: it says so itself, above its title (saved "tight")
            figure.text(0.005, 1.0, "PARTIAL: not every planned result is judged (see the report's first line)",
                        ha="left", va="bottom", color="#b3261e", fontsize="small")
        try:
            yield name, figure
        finally:
            plt.close(figure)


def _save(figure: Any, target: Path | IO[str], fmt: str) -> None:
    """Save in `fmt`; an SVG without its date, so the same report draws the same bytes."""
    figure.savefig(target, format=fmt, dpi=110, bbox_inches="tight", metadata={"Date": None} if fmt == "svg" else None)


def _tight(figure: Any, **options: Any) -> None:
    """Fit the figure's parts together where they fit; where they cannot (dozens of labels), matplotlib leaves the layout
    as it is and warns, and the figure is drawn all the same: the warning would only be noise on a report's stderr."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Tight layout not applied", UserWarning)
        figure.tight_layout(**options)


def _grid(plt: Any, count: int, title: str) -> tuple[Any, list[Any]]:
    columns = min(3, count)
    rows = math.ceil(count / columns)
    figure, axes = plt.subplots(rows, columns, figsize=(4.2 * columns, 3.2 * rows), squeeze=False)
    flat = [axis for row in axes for axis in row]
    for axis in flat[count:]:
        axis.set_visible(False)
    figure.suptitle(title)
    return figure, flat[:count]


def _lines(items: Iterable[Any], puzzle: str) -> list[tuple[str, list[Any]]]:
    """The items of one puzzle (cells of a table with model, mode and puzzle), one group per line of a figure: its label
    "model · mode" and its items, in label order."""
    lines: defaultdict[str, list[Any]] = defaultdict(list)
    for item in items:
        if item.puzzle == puzzle:
            lines[f"{item.model} · {item.mode}"].append(item)
    return sorted(lines.items())


def _judged(report: Report) -> list[Any]:
    """The cells with a judged result: a cell whose every result failed outside the model (or is not run yet) has no
    rate or status mix to draw, and a run where every request failed draws neither figure."""
    return [cell for cell in report.cells if cell.executions]


def _legend(figure: Any, axes: Iterable[Any]) -> None:
    """One legend below the figure's panels for every label they drew, if they drew any."""
    handles = {label: handle for axis in axes for handle, label in zip(*axis.get_legend_handles_labels())}
    if handles:
        figure.legend(handles.values(), handles.keys(), loc="lower center", ncol=min(5, len(handles)), fontsize="small")


def _legal_rate(report: Report, plt: Any) -> Any:
    judged = _judged(report)
    puzzles = sorted({cell.puzzle for cell in judged})
    if not puzzles:
        return None
    unresolved = any(cell.infra_counts for cell in judged)
    title = "legal rate against complexity λ (95% Wilson intervals" + \
        ("; ▽ with unresolved infrastructure failures counted as failures)" if unresolved else ")")
    figure, axes = _grid(plt, len(puzzles), title)
    for axis, puzzle in zip(axes, puzzles):
        for label, cells in _lines(judged, puzzle):
            cells.sort(key=lambda c: c.mean_complexity)
            xs = [c.mean_complexity for c in cells]
            ys = [c.legal_rate for c in cells]
            bounds = [wilson(c.status_counts.get(Status.LEGAL, 0), c.executions) for c in cells]
            errors = [[y - low for y, (low, _) in zip(ys, bounds)], [high - y for y, (_, high) in zip(ys, bounds)]]
            line = axis.errorbar(xs, ys, yerr=errors, marker="o", capsize=3, label=label)
            lows = [c for c in cells if c.infra_counts]
            if lows:  # the rate a cell would have if each unresolved result had failed, joined to its judged rate
                colour = line.lines[0].get_color()
                axis.vlines([c.mean_complexity for c in lows], [c.legal_low for c in lows], [c.legal_rate for c in lows],
                            colors=colour, linestyles="dotted")
                axis.plot([c.mean_complexity for c in lows], [c.legal_low for c in lows], linestyle="none", marker="v",
                          fillstyle="none", color=colour)
        axis.set_title(puzzle)
        axis.set_xlabel("λ")
        axis.set_ylabel("legal rate")
        axis.set_ylim(-0.05, 1.05)
        axis.grid(alpha=0.3)
    axes[0].legend(fontsize="small")
    _tight(figure)
    return figure


def _status_mix(report: Report, plt: Any) -> Any:
    judged = _judged(report)
    groups = sorted({(cell.model, cell.mode) for cell in judged})
    puzzles = sorted({cell.puzzle for cell in judged})
    if not groups:
        return None
    figure, axes = plt.subplots(len(groups), len(puzzles), figsize=(3.2 * len(puzzles), 2.6 * len(groups) + 0.8),
                                squeeze=False)
    colours = dict(zip(COUNTED_STATUSES, plt.get_cmap("tab10").colors))
    for row, group in enumerate(groups):
        for column, puzzle in enumerate(puzzles):
            axis = axes[row][column]
            cells = sorted((c for c in judged if (c.model, c.mode) == group and c.puzzle == puzzle), key=lambda c: c.level)
            bottoms = [0.0] * len(cells)
            for status in COUNTED_STATUSES:
                shares = [c.status_counts.get(status, 0) / c.executions if c.executions else 0.0 for c in cells]
                if any(shares):
                    axis.bar([f"L{c.level}" for c in cells], shares, bottom=bottoms, color=colours[status], label=status)
                    bottoms = [b + s for b, s in zip(bottoms, shares)]
            axis.set_ylim(0, 1)
            axis.set_title(f"{puzzle}\n{group[0]} · {group[1]}", fontsize="small")
    _legend(figure, (axis for row in axes for axis in row))
    figure.suptitle("status mix per level")
    _tight(figure, rect=(0, 0.08, 1, 0.96))
    return figure


def _heatmap(report: Report, plt: Any) -> Any:
    groups = sorted({(t.model, t.mode) for t in report.thresholds})
    puzzles = sorted({t.puzzle for t in report.thresholds})
    if not groups:
        return None
    values = {(t.model, t.mode, t.puzzle): t.lambda_star for t in report.thresholds}
    grid = [[values.get((model, mode, puzzle)) for puzzle in puzzles] for model, mode in groups]
    figure, axis = plt.subplots(figsize=(1.3 * len(puzzles) + 2.5, 0.6 * len(groups) + 1.8))
    image = axis.imshow([[math.nan if v is None else v for v in row] for row in grid], cmap="viridis", aspect="auto")
    for r, row in enumerate(grid):
        for c, value in enumerate(row):
            axis.text(c, r, "-" if value is None else f"{value:g}", ha="center", va="center", color="white" if value else "black",
                      fontsize="small")
    axis.set_xticks(range(len(puzzles)), puzzles, rotation=30, ha="right")
    axis.set_yticks(range(len(groups)), [f"{model} · {mode}" for model, mode in groups])
    axis.set_title("collapse threshold λ* (\"-\": the legal rate never declines)")
    figure.colorbar(image, ax=axis, label="λ*")
    _tight(figure)
    return figure


def _modes(report: Report, plt: Any) -> Any:
    rates: defaultdict[tuple[str, str], dict[str, list[tuple[int, int]]]] = defaultdict(lambda: defaultdict(list))
    for cell in report.cells:
        if cell.executions:
            rates[(cell.model, cell.puzzle)][cell.mode].append((cell.status_counts.get(Status.LEGAL, 0), cell.executions))
    paired = {key: modes for key, modes in rates.items() if set(ModeName) <= set(modes)}
    if not paired:
        return None
    labels = sorted(paired)
    figure, axis = plt.subplots(figsize=(max(5.0, 0.9 * len(labels) + 2), 3.6))
    for offset, mode in ((-0.2, ModeName.INSTRUCTION), (0.2, ModeName.CODE)):
        shares = [sum(ok for ok, _ in paired[key][mode]) / sum(n for _, n in paired[key][mode]) for key in labels]
        axis.bar([i + offset for i in range(len(labels))], shares, width=0.4, label=mode)
    axis.set_xticks(range(len(labels)), [f"{puzzle}\n{model}" for model, puzzle in labels], fontsize="small")
    axis.set_ylim(0, 1)
    axis.set_ylabel("legal rate")
    axis.set_title("instruction vs code mode, all levels")
    axis.legend()
    _tight(figure)
    return figure


def _failure_modes(report: Report, plt: Any) -> Any:
    groups = sorted({(f.model, f.mode) for f in report.failures})
    if not groups:
        return None
    categories = list(dict.fromkeys(category for f in report.failures for category in f.counts))
    colours = dict(zip(categories, plt.get_cmap("tab20").colors))
    figure, axes = _grid(plt, len(groups), "failure modes (the first seed's taxonomy), all levels")
    for axis, group in zip(axes, groups):
        counts: defaultdict[str, Counter[str]] = defaultdict(Counter)
        for f in report.failures:
            if (f.model, f.mode) == group:
                counts[f.puzzle].update(f.counts)
        puzzles = sorted(counts)
        bottoms = [0] * len(puzzles)
        for category in categories:
            heights = [counts[p][category] for p in puzzles]
            if any(heights):
                axis.bar(puzzles, heights, bottom=bottoms, color=colours[category], label=category)
                bottoms = [b + h for b, h in zip(bottoms, heights)]
        axis.set_title(f"{group[0]} · {group[1]}", fontsize="small")
        axis.tick_params(axis="x", labelrotation=40, labelsize="small")
        axis.set_ylabel("failures")
    _legend(figure, axes)
    _tight(figure, rect=(0, 0.1, 1, 0.95))
    return figure


def _global_curve(report: Report, plt: Any) -> Any:
    points = [p for p in report.levels if not math.isnan(p.mean_legal_rate)]
    if not points:
        return None
    figure, axis = plt.subplots(figsize=(5.5, 3.4))
    for low, high, shade in ((0.5, 2.5, 0.06), (2.5, 4.5, 0.14), (4.5, 6.5, 0.22)):
        axis.axvspan(low, high, color="grey", alpha=shade, lw=0)
    axis.plot([p.level for p in points], [p.mean_legal_rate for p in points], marker="o")
    for name, x in (("L1-2", 1.5), ("L3-4", 3.5), ("L5+", 5.5)):
        axis.text(x, 1.02, name, ha="center", fontsize="small")
    axis.set_xlabel("level")
    axis.set_ylabel("mean legal rate")
    axis.set_ylim(-0.05, 1.1)
    axis.set_title("global mean legal rate by level (over model × mode × puzzle)")
    _tight(figure)
    return figure


def _correlations(report: Report, plt: Any) -> Any:
    known = [c for c in report.correlations if not math.isnan(c.r)]
    if not known:
        return None
    puzzles = sorted({p for c in report.correlations for p in (c.puzzle_a, c.puzzle_b)})
    index = {p: i for i, p in enumerate(puzzles)}
    grid = [[1.0 if a == b else math.nan for b in puzzles] for a in puzzles]
    for c in known:
        grid[index[c.puzzle_a]][index[c.puzzle_b]] = grid[index[c.puzzle_b]][index[c.puzzle_a]] = c.r
    figure, axis = plt.subplots(figsize=(0.8 * len(puzzles) + 2.5, 0.7 * len(puzzles) + 1.5))
    image = axis.imshow(grid, cmap="coolwarm", vmin=-1, vmax=1)
    for r, row in enumerate(grid):
        for c, value in enumerate(row):
            axis.text(c, r, "-" if math.isnan(value) else f"{value:.2f}", ha="center", va="center", fontsize="x-small")
    axis.set_xticks(range(len(puzzles)), puzzles, rotation=40, ha="right")
    axis.set_yticks(range(len(puzzles)), puzzles)
    axis.set_title("cross-task correlation of per-level success (Pearson r)")
    figure.colorbar(image, ax=axis, label="r")
    _tight(figure)
    return figure


def _pooled(pairs: list[tuple[float, int]]) -> float:
    """The mean of means, each weighted by its count; NaN when nothing counted."""
    known = [(mean, n) for mean, n in pairs if n and not math.isnan(mean)]
    total = sum(n for _, n in known)
    return sum(mean * n for mean, n in known) / total if total else math.nan


def _tokens(report: Report, plt: Any) -> Any:
    groups = sorted({(t.model, t.mode) for t in report.tokens if not (math.isnan(t.pass_completion) and math.isnan(t.fail_completion))})
    if not groups:
        return None
    figure, axes = _grid(plt, len(groups), "mean completion tokens of passes and fails, by level (all puzzles)")
    for axis, group in zip(axes, groups):
        stats = [t for t in report.tokens if (t.model, t.mode) == group]
        levels = sorted({t.level for t in stats})
        for label, pick in (("passes", lambda t: (t.pass_completion, t.passes)), ("fails", lambda t: (t.fail_completion, t.fails))):
            axis.plot(levels, [_pooled([pick(t) for t in stats if t.level == level]) for level in levels], marker="o", label=label)
        axis.set_title(f"{group[0]} · {group[1]}", fontsize="small")
        axis.set_xlabel("level")
        axis.set_ylabel("completion tokens")
        axis.legend(fontsize="small")
    _tight(figure)
    return figure


def _cost(report: Report, plt: Any) -> Any:
    lines = [c for c in report.costs if c.scope == "puzzle"]
    if not lines:
        return None
    priced = all(c.cost is not None for c in lines)
    labels = [f"{c.puzzle}\n{c.model} · {c.mode}" for c in lines]
    values = [c.cost if priced else c.prompt_tokens + c.completion_tokens for c in lines]
    figure, axis = plt.subplots(figsize=(max(5.0, 0.55 * len(lines) + 2), 3.6))
    axis.bar(range(len(lines)), values)
    axis.set_xticks(range(len(lines)), labels, rotation=60, ha="right", fontsize="x-small")
    axis.set_ylabel("US dollars" if priced else "tokens (no price given)")
    axis.set_title("cost per model × mode × puzzle" if priced else "tokens per model × mode × puzzle")
    _tight(figure)
    return figure


def _optimality(report: Report, plt: Any) -> Any:
    puzzles = sorted({o.puzzle for o in report.optimality})
    if not puzzles:
        return None
    figure, axes = _grid(plt, len(puzzles), "passes' plan length ÷ minimal length (1 = optimal)")
    for axis, puzzle in zip(axes, puzzles):
        for label, cells in _lines(report.optimality, puzzle):
            axis.plot([o.level for o in cells], [o.mean_ratio for o in cells], marker="o", label=label)
        axis.axhline(1.0, color="grey", lw=0.8, ls="--")
        axis.set_title(puzzle)
        axis.set_xlabel("level")
        axis.set_ylabel("length ÷ minimal")
    axes[0].legend(fontsize="small")
    _tight(figure)
    return figure


def _searches(report: Report, plt: Any) -> Any:
    drawn = [search for search in report.searches if not math.isnan(search.lambda_star)]
    if not drawn:
        return None
    runs = len({search.run for search in drawn}) > 1
    figure, axes = _grid(plt, len(drawn), "adaptive searches: fitted success curve, the points asked (area: results counted), "
                         "λ* and its 95% credible interval")
    for axis, search in zip(axes, drawn):
        xs, ys = fitted_curve(search)
        axis.axvspan(search.low, search.high, color="tab:orange", alpha=0.18, lw=0, label="95% credible interval")
        axis.axvline(search.lambda_star, color="tab:orange", lw=1.2, label="λ*")
        axis.plot(xs, ys, color="tab:blue", label="fitted curve")
        asked = [point for point in search.points if point.counted]
        axis.scatter([point.complexity for point in asked], [point.legal / point.counted for point in asked],
                     s=[16 + 14 * point.counted for point in asked], color="black", alpha=0.6, zorder=3, label="asked")
        axis.set_title(f"{search.puzzle}\n{search.run + ': ' if runs else ''}{search.model} · {search.mode} "
                       f"({search.stop or '?'})", fontsize="small")
        axis.set_xlabel(f"λ ({search.axis})")
        axis.set_ylabel("share legal")
        axis.set_ylim(-0.05, 1.05)
        axis.grid(alpha=0.3)
    _legend(figure, axes[:1])
    _tight(figure, rect=(0, 0.06, 1, 0.95))
    return figure
