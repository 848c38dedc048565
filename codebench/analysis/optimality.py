"""How far above the minimum the passes' plans were, and how hard each level is by its reference metrics.

Validators accept any legal plan, so a pass says nothing of its length: `optimality` puts the plan length over the
instance's stored minimal length. `difficulty_table` averages the generators' reference metrics (their `meta`) per
puzzle × level, and `weak_steps` names the level steps those metrics show do not get harder, with the reason a family
gives where its seed's own level definition makes the step easier.

Pure functions; imports the standard library, the shared types and the puzzle catalog (for those reasons).
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from puzzles import PUZZLES

from ..types import ExecutionRow, InstanceFacts, Status

# Top-level meta keys that measure difficulty, in the table's order (version, attempts, draws, tries, *_capped, scramble do not).
REFERENCE_KEYS = ("min_solution_length", "search_nodes", "state_space", "solution_count", "model_count", "chromatic_number", "jumps",
                  "slides")
FLAG_KEYS = ("singles_solvable",)  # booleans: averaged as the fraction True
CAPACITY_KEYS = ("min_capacity",)  # river's boat size: it shapes the search
TOP_LEVEL_KEYS = (*REFERENCE_KEYS, *FLAG_KEYS, *CAPACITY_KEYS)
FALLING_KEYS = ("min_solution_length", "search_nodes", "tau")  # a level whose mean is below the previous level's is weak
SEED_CAUSED = {puzzle.name: puzzle.easier_levels for puzzle in PUZZLES}  # levels the seed itself makes easier, and why


@dataclass(frozen=True)
class Optimality:
    """One (model, mode, puzzle, level): its passes with a known minimal length, and how long their plans were."""

    model: str
    mode: str
    puzzle: str
    level: int
    solved: int  # legal rows with steps_applied and a shortest length > 0
    mean_ratio: float  # mean of steps_applied / shortest over them (1 = optimal)
    optimal_share: float  # the fraction of them with steps_applied == shortest


@dataclass(frozen=True)
class Difficulty:
    """One puzzle × level: instance means of each reference metric (each over the instances that have it)."""

    puzzle: str
    level: int
    instances: int
    metrics: dict[str, float]  # complexity keys first (their own order), then TOP_LEVEL_KEYS' order


def optimality(rows: Sequence[ExecutionRow]) -> list[Optimality]:
    """One Optimality per cell with at least one measurable pass, sorted by (model, mode, puzzle, level)."""
    groups: defaultdict[tuple[str, str, str, int], list[tuple[int, int]]] = defaultdict(list)
    for row in rows:
        if row.status == Status.LEGAL and row.steps_applied is not None and row.shortest is not None and row.shortest > 0:
            groups[(row.model, row.mode, row.puzzle, row.level)].append((row.steps_applied, row.shortest))
    return [Optimality(*key, solved=len(plans), mean_ratio=statistics.fmean(steps / shortest for steps, shortest in plans),
                       optimal_share=sum(steps == shortest for steps, shortest in plans) / len(plans))
            for key, plans in sorted(groups.items())]


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def instance_metrics(meta: dict[str, Any]) -> dict[str, float]:
    """One instance's numeric reference metrics: every number in meta["complexity"], then the known top-level keys
    (a top-level key the complexity dict already names is left to it)."""
    complexity = meta.get("complexity")
    metrics = {key: float(value) for key, value in complexity.items() if _number(value)} if isinstance(complexity, dict) else {}
    for key in TOP_LEVEL_KEYS:
        value = meta.get(key)
        if key in metrics or value is None:
            continue
        if key in FLAG_KEYS and isinstance(value, bool):
            metrics[key] = float(value)
        elif key not in FLAG_KEYS and _number(value):
            metrics[key] = float(value)
    return metrics


def difficulty_table(facts: Sequence[InstanceFacts]) -> list[Difficulty]:
    """One Difficulty per puzzle × level, sorted; an instance listed twice counts once (its first listing)."""
    cells: defaultdict[tuple[str, int], dict[str, dict[str, float]]] = defaultdict(dict)
    for fact in facts:
        cells[(fact.puzzle, fact.level)].setdefault(fact.instance_id, instance_metrics(fact.meta))
    table = []
    for key, instances in sorted(cells.items()):
        names = list(dict.fromkeys(name for metrics in instances.values() for name in metrics if name not in TOP_LEVEL_KEYS))
        names += [name for name in TOP_LEVEL_KEYS if any(name in metrics for metrics in instances.values())]
        table.append(Difficulty(*key, instances=len(instances), metrics={
            name: statistics.fmean(metrics[name] for metrics in instances.values() if name in metrics) for name in names}))
    return table


def weak_steps(table: Sequence[Difficulty]) -> list[tuple[str, int, str]]:
    """(puzzle, level, why) for each level not harder than the puzzle's previous level by the reference metrics:
    a falling minimal length or reference search, or still solvable by singles alone. Several reasons join with "; ";
    a level the family's seed definition makes easier (its `easier_levels`) gets that cause after " — ". Sorted."""
    by_puzzle: defaultdict[str, list[Difficulty]] = defaultdict(list)
    for cell in table:
        by_puzzle[cell.puzzle].append(cell)
    weak = []
    for puzzle, cells in sorted(by_puzzle.items()):
        cells.sort(key=lambda cell: cell.level)
        for before, after in zip(cells, cells[1:]):
            reasons = []
            for key in FALLING_KEYS:
                old, new = before.metrics.get(key), after.metrics.get(key)
                if old is not None and new is not None and new < old:
                    reasons.append(f"{key} falls from {old:.4g} to {new:.4g}")
            if before.metrics.get("singles_solvable") == 1.0 and after.metrics.get("singles_solvable") == 1.0:
                reasons.append(f"solvable by singles alone, like level {before.level}")
            cause = SEED_CAUSED.get(puzzle, {}).get(after.level)
            if reasons:
                weak.append((puzzle, after.level, "; ".join(reasons) + (f" — {cause}; kept as the seed defines it" if cause else "")))
    return weak
