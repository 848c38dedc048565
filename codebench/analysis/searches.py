"""Adaptive searches (`codebench run --adaptive`) as the report shows them: per run × model × mode × puzzle, the threshold
λ* with its 95 % credible interval, the points asked, the results counted and not counted, why the search stopped, and
what the fixed L1–L6 grid would have spent for the same width.

Every figure is recomputed from the stored steps with the design the run used (`adaptive.AdaptiveDesign` over the
puzzle's complexity axis), so the report says what the run's own stopping rule saw. A result with an infrastructure status
(api_error, sandbox_error) is not counted: the design ignores it, the section counts it apart with its status.

Why a search stopped: `width` (its interval got narrower than the run's --target-width), `budget` (it counted
--search-budget results), else it is `unfinished` (the run was interrupted, or a token or cost budget held it back), and
the report is PARTIAL until the same command, run again, finishes it. A search the spec asks for with no step stored
yet is unfinished too.

The grid's cost is SIMULATED, never measured: the fixed grid (rounds of one result at each level, a level's results
cycling through the integers of its band) is run by `adaptive.grid_cost` on the search's fitted curve (the posterior
mean of p(λ) at every λ the design may ask), analysed with the same design, until its interval is narrower than the
same width: the target where the search reached it, else the width the search got to (a search that counted nothing
has no curve: no grid). GRID_REPETITIONS repetitions seeded by the report's seed (0), each stopped at GRID_CAP times the
results the search counted (at least GRID_CAP rounds): enough to tell a grid costing three times the search from one
costing less. Measured on a busy 2-core machine, a report of 2 models × 9 puzzles whose every search took 60 results
computes its searches in 5–7 s, nearly all of it the grid's simulation (the widest axes, coloring's and waterjug's, the
most); more repetitions would only narrow the simulation's own noise, at a proportional cost. Where some repetitions
never reach the width within the cap, the grid's mean is a lower bound, shown as such (≥, with the share that reached).

Pure functions; numpy (through `codebench.adaptive`) is imported only when figures are computed, so the report's
command line starts without it.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import puzzles

from ..types import INFRASTRUCTURE_ORDER, ModeName, SearchStep, Status, harmless

if TYPE_CHECKING:
    from ..adaptive import AdaptiveDesign, AskedPoint

UNFINISHED = "unfinished"  # a search that neither reached its width nor spent its budget (the stop reasons: adaptive.StopReason)
GRID_REPETITIONS = 12
GRID_CAP = 4  # the simulated grid stops at this many times the search's counted results
CURVE_POINTS = 200  # λ values of a drawn fitted curve
EDGE = 0.5  # λ units: an interval reaching this close to an end of the axis may hold values beyond it


@dataclass(frozen=True)
class RunSearches:
    """What one adaptive run stored: its target width and budget (from its spec), the searches its spec asks for
    (model, mode, puzzle: every model × mode × puzzle) and every stored step."""

    run: str
    target_width: float
    budget: int
    asked: tuple[tuple[str, str, str], ...]
    steps: tuple[SearchStep, ...]
    instances: Mapping[str, str] = field(default_factory=dict)  # a step's instance id -> a digest of its content

    @classmethod
    def of(cls, run: str, spec: Any, steps: Sequence[SearchStep], instances: Mapping[str, str] | None = None) -> RunSearches | None:
        """A stored spec's searches (None: not an adaptive run, and no step stored). The spec's models are named as the
        report names them (`harmless` labels); its mode is one mode or, otherwise (--mode both), every one."""
        given = spec if isinstance(spec, dict) else {}
        if not (given.get("adaptive") is True or steps):
            return None
        width, budget = given.get("target_width"), given.get("search_budget")
        models = [harmless(str(m.get("label") or m.get("name"))) if isinstance(m, dict) else harmless(str(m))
                  for m in given.get("models") or ()]
        mode = given.get("mode")
        modes = [ModeName(mode)] if isinstance(mode, str) and mode in set(ModeName) else list(ModeName)
        names = [str(name) for name in given.get("puzzles") or () if isinstance(name, str)]
        return cls(run, float(width) if _number(width) and width > 0 else math.nan,
                   budget if isinstance(budget, int) and not isinstance(budget, bool) and budget >= 0 else -1,
                   tuple((model, str(m), name) for model in models for m in modes for name in names), tuple(steps),
                   dict(instances or {}))


@dataclass(frozen=True)
class Search:
    """One search's figures. `points`: (λ, legal, counted) per complexity asked, in λ order (counted 0: every result
    there failed outside the model). `lowest`..`highest`: the puzzle's axis, the design's range. `stop`: a StopReason,
    UNFINISHED, or None where nothing says (its puzzle unknown here, a λ off its axis, a spec without width or budget).
    `grid_*`: the simulated fixed grid (see the module's docstring), NaN where nothing was simulated."""

    run: str
    model: str
    mode: str
    puzzle: str
    axis: str
    lowest: int
    highest: int
    lambda_star: float
    low: float
    high: float
    width: float
    target_width: float
    budget: int
    points: tuple[AskedPoint, ...]
    counted: int
    not_counted: dict[str, int]
    stop: str | None
    grid_width: float
    grid_counted: float
    grid_reached: float
    grid_cap: int
    repeated: int = 0  # counted results on an instance the search had asked before: not independent of that result
    edge: str = ""  # where the interval reaches an end of the axis: that λ* may lie beyond it, and why the axis ends there

    @property
    def unfinished(self) -> bool:
        return self.stop == UNFINISHED

    @property
    def ratio(self) -> float:
        """The results the search counted ÷ the grid's (an upper bound where the grid's is a lower one)."""
        return self.counted / self.grid_counted if self.grid_counted > 0 else math.nan


def searches(runs: Sequence[RunSearches], *, seed: int = 0, repetitions: int = GRID_REPETITIONS) -> list[Search]:
    """Every search of every run: those with stored steps and those its spec asks for without any, by run, then model,
    mode and puzzle."""
    designs: dict[str, tuple[puzzles.ComplexityAxis, AdaptiveDesign] | None] = {}
    found = []
    for run in runs:
        steps: dict[tuple[str, str, str], list[SearchStep]] = {key: [] for key in run.asked}
        for step in run.steps:
            steps.setdefault((step.model, step.mode, step.puzzle), []).append(step)
        for (model, mode, puzzle), taken in sorted(steps.items()):
            if puzzle not in designs:
                designs[puzzle] = _design(puzzle)
            found.append(_search(run, model, mode, puzzle, taken, designs[puzzle], seed, repetitions))
    return found


def _design(puzzle: str) -> tuple[puzzles.ComplexityAxis, AdaptiveDesign] | None:
    """The puzzle's axis and the design the run searched it with; None: this codebench has no such puzzle or axis."""
    from ..adaptive import AdaptiveDesign

    try:
        axis = puzzles.get_puzzle(puzzle).complexity_axis()
    except puzzles.PuzzleError:
        return None
    return axis, AdaptiveDesign(axis.lowest, axis.highest)


def _search(run: RunSearches, model: str, mode: str, puzzle: str, steps: Sequence[SearchStep],
            found: tuple[puzzles.ComplexityAxis, AdaptiveDesign] | None, seed: int, repetitions: int) -> Search:
    from ..adaptive import AskedPoint, StopReason, grid_cost

    legal: Counter[int] = Counter()
    counted: Counter[int] = Counter()
    infrastructure: Counter[str] = Counter()
    seen: set[str] = set()
    repeated = 0
    for step in steps:
        if step.status.is_infrastructure:
            infrastructure[step.status] += 1
        else:
            content = run.instances.get(step.instance_id, step.instance_id)
            repeated += content in seen
            seen.add(content)
            counted[step.complexity] += 1
            legal[step.complexity] += step.status == Status.LEGAL
    points = tuple(AskedPoint(complexity, legal[complexity], counted[complexity])
                   for complexity in sorted({step.complexity for step in steps}))
    not_counted = {str(status): infrastructure[status] for status in INFRASTRUCTURE_ORDER if infrastructure[status]}
    base = dict(run=run.run, model=model, mode=mode, puzzle=puzzle, target_width=run.target_width, budget=run.budget, points=points,
                counted=sum(counted.values()), not_counted=not_counted, repeated=repeated)
    unread = Search(**base, axis="", lowest=0, highest=0, lambda_star=math.nan, low=math.nan, high=math.nan, width=math.nan,
                    stop=None, grid_width=math.nan, grid_counted=math.nan, grid_reached=math.nan, grid_cap=0)
    if found is None:
        return unread
    axis, design = found
    try:
        estimate = design.estimate(points)
    except ValueError:  # a λ off this codebench's axis: stored by another version of the puzzle
        return unread
    if math.isnan(run.target_width) or run.budget < 0:  # a spec without them: nothing says whether the search is over
        stop = None
    else:
        stop = str(design.done(points, run.target_width, run.budget) or UNFINISHED)
    width = run.target_width if stop == StopReason.WIDTH else estimate.width
    levels = [list(range(low, high + 1)) for _, (low, high) in sorted(axis.levels.items())]
    cap = GRID_CAP * max(base["counted"], len(levels))
    grid = math.nan, math.nan
    if width > 0 and levels and base["counted"]:  # a search that counted nothing yet has no curve to simulate on
        curve = design.posterior(points).curve(design.candidates)
        truth = {int(complexity): float(p) for complexity, p in zip(design.candidates, curve)}
        grid = grid_cost(design, truth, levels, width, cap, repetitions=repetitions, seed=seed)
    return Search(**base, axis=axis.name, lowest=axis.lowest, highest=axis.highest, lambda_star=estimate.lambda_star,
                  low=estimate.low, high=estimate.high, width=estimate.width, stop=stop,
                  grid_width=width, grid_counted=grid[0], grid_reached=grid[1], grid_cap=cap, edge=_edge(axis, estimate))


def _edge(axis: puzzles.ComplexityAxis, estimate: Any) -> str:
    """What an interval within EDGE of an end of the axis says: the threshold may lie beyond what the design could ask
    (above the top: past what the generator makes, and why; below the lowest: the model fails even there)."""
    if estimate.high >= axis.highest - EDGE:
        return f"may lie above {axis.name}={axis.highest}: the generator cannot go past it because {axis.limit}"
    if estimate.low <= axis.lowest + EDGE:
        return f"may lie below {axis.name}={axis.lowest}, the lowest the axis has"
    return ""


def fitted_curve(search: Search, points: int = CURVE_POINTS) -> tuple[list[float], list[float]]:
    """The search's fitted curve (the posterior mean of p(λ)) over its λ range, padded: what its figure draws."""
    from ..adaptive import AdaptiveDesign

    low, high = view(search)
    xs = [low + (high - low) * i / (points - 1) for i in range(points)]
    design = AdaptiveDesign(search.lowest, search.highest)
    return xs, [float(p) for p in design.posterior(search.points).curve(xs)]


def view(search: Search) -> tuple[float, float]:
    """The λ range a figure shows: the asked points and the interval, a tenth (at least 1) either side, within the axis."""
    shown = [point.complexity for point in search.points] + [search.low, search.high]
    low, high = min(shown), max(shown)
    pad = max(1.0, (high - low) / 10)
    return max(float(search.lowest), low - pad), min(float(search.highest), high + pad)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
