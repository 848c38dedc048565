"""The paired comparison of two sides (model × mode, from one run or several) on the instances they share.

A pair is one instance and one sample index judged on both sides: sample k of side A against sample k of side B
(code mode's k-th program on the instance against instruction mode's k-th answer to it), so no side is paired with
itself and nothing is counted twice. Infrastructure statuses (`api_error`, `sandbox_error`) say nothing of either
side: such pairs are left out, and counted (`unresolved`). Per puzzle × level, per puzzle, and overall:

- the difference in legal rate A − B, with a 95% paired bootstrap interval that resamples instances (each with all
  its pairs, so the samples of one instance stay together; random.Random(seed), `boot` resamples);
- the exact McNemar test on the discordant pairs (A legal and B not: `a_only`; the reverse: `b_only`): two-sided
  binomial p = min(1, 2 · P[X ≤ min(a_only, b_only)]), X ~ Bin(a_only + b_only, 1/2); 1 when none is discordant;
- Holm's step-down correction over the puzzle × level cells;
- the pairs that flip between the two sides.
Pure functions over `ExecutionRow`s; imports the standard library and the shared types.
"""

from __future__ import annotations

import json
import math
import random
import statistics
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace

from ..errors import InputError
from ..types import INFRASTRUCTURE_STATUSES, ExecutionRow, Status, harmless
from .sections import align


@dataclass(frozen=True)
class Side:
    """One side of a comparison: a model in a mode, optionally from one of several runs (1-based; 0: any run)."""

    model: str
    mode: str
    run: int = 0

    @classmethod
    def parse(cls, text: str, option: str, runs: int) -> Side:
        """`MODEL:MODE` or `N/MODEL:MODE` (N the run's position on the command line).

        Raises:
            InputError: another shape, or a run position that does not exist.
        """
        where, slash, rest = text.partition("/")
        number = bool(slash) and where.isascii() and where.isdigit()  # else the slash is the model's own (Qwen/Qwen3-8B)
        model, colon, mode = (rest if number else text).rpartition(":")
        if not colon or not model or not mode:
            raise InputError(f"{option} {text!r}: expected MODEL:MODE (e.g. gpt-4o:code), or N/MODEL:MODE for the N-th run")
        run = int(where) if number else 0
        if number and run == 0:
            raise InputError(f"{option} {text!r}: runs are numbered from 1, in their order on the command line")
        if run > runs:
            raise InputError(f"{option} {text!r}: there are only {runs} run(s) on the command line")
        return cls(model, mode, run)

    def __str__(self) -> str:
        return f"{self.run}/{self.model}:{self.mode}" if self.run else f"{self.model}:{self.mode}"


@dataclass(frozen=True)
class Flip:
    """A pair whose verdict differs between the sides."""

    puzzle: str
    level: int
    instance_id: str
    sample: int
    a_status: str
    b_status: str


@dataclass(frozen=True)
class PairedCell:
    """The comparison over one set of pairs (a puzzle × level, a puzzle with level None, or all with puzzle "all")."""

    puzzle: str
    level: int | None
    pairs: int
    instances: int
    a_rate: float
    b_rate: float
    difference: float
    low: float | None
    high: float | None
    a_only: int
    b_only: int
    p_value: float
    p_holm: float | None = None  # puzzle × level cells only


@dataclass(frozen=True)
class Comparison:
    a: Side
    b: Side
    cells: list[PairedCell]  # puzzle × level, Holm-corrected among themselves
    puzzles: list[PairedCell]
    overall: PairedCell
    flips: list[Flip] = field(default_factory=list)
    unresolved: int = 0  # pairs left out: an infrastructure failure on one side or both (the rates would be biased otherwise)


_Pair = tuple[str, int, str, int, str, str]  # puzzle, level, instance id, sample, A's status, B's status


def check_sides(runs: Sequence[Sequence[ExecutionRow]], keys: Sequence[Mapping[tuple[str, str], frozenset[str]]], a: Side,
                b: Side) -> None:
    """Refuse sides that would compare nothing or the wrong thing: each must name a model in a mode that one run holds
    (N/ says which where several do), and the two must be other samples: not one side named twice, nor two runs holding
    the same samples (`keys`: each run's planned sample keys per model and mode; one key is one request).

    Raises:
        InputError: a side no run holds (naming what was typed and the sides found), a side several runs hold, one side
            named twice, or two sides sharing sample keys (a copy of a run, or the same requests asked again).
    """
    held = [_holder(runs, side, option) for side, option in ((a, "--a"), (b, "--b"))]
    if held[0] == held[1] and (a.model, a.mode) == (b.model, b.mode):
        raise InputError(f"--a {a} and --b {b} name one side: compare two models, two modes or two runs")
    shared = keys[held[0] - 1].get((a.model, a.mode), frozenset()) & keys[held[1] - 1].get((b.model, b.mode), frozenset())
    if shared:
        raise InputError(f"--a {a} and --b {b} hold the same samples ({len(shared)} content keys in common: one run is a copy "
                         "of the other, or asks the same requests again): compare sides that differ in model, mode or request")


def _holder(runs: Sequence[Sequence[ExecutionRow]], side: Side, option: str) -> int:
    """The run (1-based) whose rows hold `side`."""
    found = [run for run, rows in enumerate(runs, 1) if side.run in (0, run)
             and any(row.model == side.model and row.mode == side.mode for row in rows)]
    held = f"{harmless(side.model)} in {harmless(side.mode)} mode"
    if not found:
        where = "no run holds" if side.run == 0 else f"run {side.run} does not hold"
        raise InputError(f"{option} {harmless(str(side))}: {where} {held} (sides found: {sides_found(runs)})")
    if len(found) > 1:
        choices = " or ".join(harmless(str(replace(side, run=run))) for run in found)
        raise InputError(f"{option} {harmless(str(side))}: runs {', '.join(map(str, found[:-1]))} and {found[-1]} "
                         f"{'both' if len(found) == 2 else 'all'} hold {held}: name one, as {choices}")
    return found[0]


def sides_found(runs: Sequence[Sequence[ExecutionRow]]) -> str:
    """Every side the runs hold, as --a and --b take them (N/MODEL:MODE when there are several runs)."""
    found = sorted({(run if len(runs) > 1 else 0, row.model, row.mode) for run, rows in enumerate(runs, 1) for row in rows})
    return harmless(", ".join(str(Side(model, mode, run)) for run, model, mode in found)) or "none"


def side_rows(runs: Sequence[Sequence[ExecutionRow]], side: Side) -> dict[tuple[str, int, str, int], ExecutionRow]:
    """(puzzle, level, instance id, sample) → the side's row, from its run (or from every run)."""
    chosen = runs if side.run == 0 else [runs[side.run - 1]]
    return {(r.puzzle, r.level, r.instance_id, r.sample): r for rows in chosen for r in rows
            if r.model == side.model and r.mode == side.mode}


def compare(runs: Sequence[Sequence[ExecutionRow]], a: Side, b: Side, *, boot: int = 2000, seed: int = 0) -> Comparison:
    """The paired comparison of `a` against `b` (see the module docstring).

    Raises:
        InputError: the two sides share no judged pair (the message names both sides).
    """
    left, right = side_rows(runs, a), side_rows(runs, b)
    shared = sorted(left.keys() & right.keys())
    pairs: list[_Pair] = [(*key, left[key].status, right[key].status) for key in shared
                          if left[key].status not in INFRASTRUCTURE_STATUSES and right[key].status not in INFRASTRUCTURE_STATUSES]
    if not pairs:
        raise InputError(f"{a} and {b} share no instance judged on both sides: compare sides that ran on the same "
                         "instances (same puzzles, levels and --seed), e.g. the two modes of one --mode both run")
    by_cell: defaultdict[tuple[str, int], list[_Pair]] = defaultdict(list)
    by_puzzle: defaultdict[str, list[_Pair]] = defaultdict(list)
    for pair in pairs:
        by_cell[(pair[0], pair[1])].append(pair)
        by_puzzle[pair[0]].append(pair)
    cells = [_cell(puzzle, level, members, boot, seed) for (puzzle, level), members in sorted(by_cell.items())]
    corrected = holm([cell.p_value for cell in cells])
    cells = [replace(cell, p_holm=p) for cell, p in zip(cells, corrected)]
    flips = [Flip(*pair) for pair in pairs if (pair[4] == Status.LEGAL) != (pair[5] == Status.LEGAL)]
    return Comparison(a, b, cells, [_cell(puzzle, None, members, boot, seed) for puzzle, members in sorted(by_puzzle.items())],
                      _cell("all", None, pairs, boot, seed), flips, len(shared) - len(pairs))


def _cell(puzzle: str, level: int | None, pairs: list[_Pair], boot: int, seed: int) -> PairedCell:
    outcomes = [(pair[4] == Status.LEGAL, pair[5] == Status.LEGAL) for pair in pairs]
    a_only = sum(x and not y for x, y in outcomes)
    b_only = sum(y and not x for x, y in outcomes)
    by_instance: defaultdict[tuple[str, int, str], list[tuple[bool, bool]]] = defaultdict(list)
    for pair, outcome in zip(pairs, outcomes):
        by_instance[(pair[0], pair[1], pair[2])].append(outcome)
    low, high = paired_bootstrap(list(by_instance.values()), boot, seed)
    a_rate = sum(x for x, _ in outcomes) / len(outcomes)
    b_rate = sum(y for _, y in outcomes) / len(outcomes)
    return PairedCell(puzzle, level, len(pairs), len(by_instance), a_rate, b_rate, a_rate - b_rate, low, high, a_only, b_only,
                      mcnemar_exact(a_only, b_only))


def mcnemar_exact(a_only: int, b_only: int) -> float:
    """Two-sided exact McNemar p-value: the binomial test of the discordant pairs against 1/2."""
    n = a_only + b_only
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, k) for k in range(min(a_only, b_only) + 1)) / 2 ** n
    return min(1.0, 2 * tail)


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the input's order (monotone, capped at 1)."""
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    adjusted = [0.0] * len(p_values)
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (len(p_values) - rank) * p_values[index]))
        adjusted[index] = running
    return adjusted


def paired_bootstrap(instances: list[list[tuple[bool, bool]]], boot: int, seed: int) -> tuple[float | None, float | None]:
    """95% interval of the difference in legal rate, resampling instances (with all their pairs) `boot` times."""
    if boot <= 0 or not instances:
        return None, None
    rng = random.Random(seed)
    estimates = []
    for _ in range(boot):
        drawn = [pair for members in rng.choices(instances, k=len(instances)) for pair in members]
        estimates.append(sum(x - y for x, y in drawn) / len(drawn))
    if len(estimates) < 2:
        return estimates[0], estimates[0]
    cuts = statistics.quantiles(estimates, n=40, method="inclusive")
    return cuts[0], cuts[-1]


FORMATS = ("table", "json")
FLIPS_SHOWN = 20  # the table lists this many flipped pairs; --format json lists them all


def check_format(fmt: str) -> None:
    """Refuse a format the comparison is not written in, before any work.

    Raises:
        InputError: neither table nor json.
    """
    if fmt not in FORMATS:
        raise InputError(f"--format {fmt!r}: choose {', '.join(FORMATS)}")


def render_comparison(comparison: Comparison, fmt: str) -> str:
    """The comparison as a plain-text table or as JSON (`fmt`: table or json).

    Raises:
        InputError: another format.
    """
    check_format(fmt)
    if fmt == "json":
        return json.dumps(asdict(comparison), indent=2, ensure_ascii=False, default=str) + "\n"
    a, b = comparison.a, comparison.b
    header = ["puzzle", "level", "pairs", "inst", "A legal", "B legal", "A − B", "95% interval", "A only", "B only",
              "McNemar p", "Holm p"]
    rows = [_row(cell) for cell in [*comparison.cells, *comparison.puzzles, comparison.overall]]
    unresolved = (f"; {comparison.unresolved} pairs left out for an infrastructure failure on a side (re-run that run to "
                  "retry them)") if comparison.unresolved else ""
    lines = [f"codebench compare: A = {a}, B = {b}; {comparison.overall.pairs} pairs on {comparison.overall.instances} "
             f"instances{unresolved}", "", *align([header, *rows], numeric=range(1, len(header)))]
    if comparison.flips:
        shown = comparison.flips[:FLIPS_SHOWN]
        more = f" (first {len(shown)} of {len(comparison.flips)})" if len(comparison.flips) > len(shown) else ""
        flips = [[f.instance_id, str(f.sample), f.a_status, f.b_status] for f in shown]
        lines += ["", f"pairs that flip{more}:", *align([["instance", "sample", "A", "B"], *flips], numeric=range(1, 2))]
    lines += ["", "pairs: sample k of A against sample k of B on one instance (infrastructure failures left out); interval: "
              "paired bootstrap over instances; McNemar: exact, on the pairs where exactly one side is legal; Holm: "
              "corrected over the puzzle × level rows"]
    return "\n".join(lines) + "\n"


def _row(cell: PairedCell) -> list[str]:
    interval = "-" if cell.low is None or cell.high is None else f"[{cell.low:+.3f}, {cell.high:+.3f}]"
    return [cell.puzzle, "all" if cell.level is None else str(cell.level), str(cell.pairs), str(cell.instances),
            f"{cell.a_rate:.3f}", f"{cell.b_rate:.3f}", f"{cell.difference:+.3f}", interval, str(cell.a_only), str(cell.b_only),
            f"{cell.p_value:.4g}", "-" if cell.p_holm is None else f"{cell.p_holm:.4g}"]
