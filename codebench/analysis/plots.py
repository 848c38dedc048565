"""The report as figures, PNG and SVG files or SVG markup for the HTML report: what people look at instead of tables.

- `legal_rate_vs_lambda`: per puzzle, the legal rate against the mean λ of each level, one line per model × mode,
  with 95% Wilson intervals over the level's counted executions;
- `status_mix`: per model × mode, per puzzle, each level's statuses as stacked shares;
- `collapse_heatmap`: λ* per model × mode (rows) and puzzle (columns), blank where the legal rate never declines;
- `instruction_vs_code`: per puzzle, each model's legal rate in the two modes side by side (runs holding both).
The only module that imports matplotlib (Agg, no display), and only when plots are asked for.
"""

from __future__ import annotations

import io
import math
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from ..types import COUNTED_STATUSES, Status
from .report import Report

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
            _save(figure, path, fmt)
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
    import matplotlib.pyplot as plt

    for name, draw in (("legal_rate_vs_lambda", _legal_rate), ("status_mix", _status_mix),
                       ("collapse_heatmap", _heatmap), ("instruction_vs_code", _modes)):
        figure = draw(report, plt)
        if figure is None:
            continue
        try:
            yield name, figure
        finally:
            plt.close(figure)


def _save(figure: Any, target: Path | IO[str], fmt: str) -> None:
    """Save in `fmt`; an SVG without its date, so the same report draws the same bytes."""
    figure.savefig(target, format=fmt, dpi=110, bbox_inches="tight", metadata={"Date": None} if fmt == "svg" else None)


def _grid(plt: Any, count: int, title: str) -> tuple[Any, list[Any]]:
    columns = min(3, count)
    rows = math.ceil(count / columns)
    figure, axes = plt.subplots(rows, columns, figsize=(4.2 * columns, 3.2 * rows), squeeze=False)
    flat = [axis for row in axes for axis in row]
    for axis in flat[count:]:
        axis.set_visible(False)
    figure.suptitle(title)
    return figure, flat[:count]


def _legal_rate(report: Report, plt: Any) -> Any:
    puzzles = sorted({cell.puzzle for cell in report.cells})
    if not puzzles:
        return None
    figure, axes = _grid(plt, len(puzzles), "legal rate against complexity λ (95% Wilson intervals)")
    for axis, puzzle in zip(axes, puzzles):
        lines: defaultdict[tuple[str, str], list[Any]] = defaultdict(list)
        for cell in report.cells:
            if cell.puzzle == puzzle and cell.executions:
                lines[(cell.model, cell.mode)].append(cell)
        for (model, mode), cells in sorted(lines.items()):
            cells.sort(key=lambda c: c.mean_complexity)
            xs = [c.mean_complexity for c in cells]
            ys = [c.legal_rate for c in cells]
            bounds = [wilson(c.status_counts.get(Status.LEGAL, 0), c.executions) for c in cells]
            errors = [[y - low for y, (low, _) in zip(ys, bounds)], [high - y for y, (_, high) in zip(ys, bounds)]]
            axis.errorbar(xs, ys, yerr=errors, marker="o", capsize=3, label=f"{model} · {mode}")
        axis.set_title(puzzle)
        axis.set_xlabel("λ")
        axis.set_ylabel("legal rate")
        axis.set_ylim(-0.05, 1.05)
        axis.grid(alpha=0.3)
    axes[0].legend(fontsize="small")
    figure.tight_layout()
    return figure


def _status_mix(report: Report, plt: Any) -> Any:
    groups = sorted({(cell.model, cell.mode) for cell in report.cells})
    puzzles = sorted({cell.puzzle for cell in report.cells})
    if not groups:
        return None
    figure, axes = plt.subplots(len(groups), len(puzzles), figsize=(3.2 * len(puzzles), 2.6 * len(groups) + 0.8),
                                squeeze=False)
    colours = dict(zip(COUNTED_STATUSES, plt.get_cmap("tab10").colors))
    for row, group in enumerate(groups):
        for column, puzzle in enumerate(puzzles):
            axis = axes[row][column]
            cells = sorted((c for c in report.cells if (c.model, c.mode) == group and c.puzzle == puzzle), key=lambda c: c.level)
            bottoms = [0.0] * len(cells)
            for status in COUNTED_STATUSES:
                shares = [c.status_counts.get(status, 0) / c.executions if c.executions else 0.0 for c in cells]
                if any(shares):
                    axis.bar([f"L{c.level}" for c in cells], shares, bottom=bottoms, color=colours[status], label=status)
                    bottoms = [b + s for b, s in zip(bottoms, shares)]
            axis.set_ylim(0, 1)
            axis.set_title(f"{puzzle}\n{group[0]} · {group[1]}", fontsize="small")
    handles = {label: handle for axis in (a for row in axes for a in row) for handle, label in zip(*axis.get_legend_handles_labels())}
    figure.legend(handles.values(), handles.keys(), loc="lower center", ncol=min(5, len(handles)), fontsize="small")
    figure.suptitle("status mix per level")
    figure.tight_layout(rect=(0, 0.08, 1, 0.96))
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
    figure.tight_layout()
    return figure


def _modes(report: Report, plt: Any) -> Any:
    rates: defaultdict[tuple[str, str], dict[str, list[tuple[int, int]]]] = defaultdict(lambda: defaultdict(list))
    for cell in report.cells:
        if cell.executions:
            rates[(cell.model, cell.puzzle)][cell.mode].append((cell.status_counts.get(Status.LEGAL, 0), cell.executions))
    paired = {key: modes for key, modes in rates.items() if {"code", "instruction"} <= set(modes)}
    if not paired:
        return None
    labels = sorted(paired)
    figure, axis = plt.subplots(figsize=(max(5.0, 0.9 * len(labels) + 2), 3.6))
    for offset, mode in ((-0.2, "instruction"), (0.2, "code")):
        shares = [sum(ok for ok, _ in paired[key][mode]) / sum(n for _, n in paired[key][mode]) for key in labels]
        axis.bar([i + offset for i in range(len(labels))], shares, width=0.4, label=mode)
    axis.set_xticks(range(len(labels)), [f"{puzzle}\n{model}" for model, puzzle in labels], fontsize="small")
    axis.set_ylim(0, 1)
    axis.set_ylabel("legal rate")
    axis.set_title("instruction vs code mode, all levels")
    axis.legend()
    figure.tight_layout()
    return figure
