"""The README's difficulty table: reference-metric means per puzzle × level, and the weak level steps with their reasons.

Computed from the distinct instances a run over these seeds plans, as `codebench report --section difficulty` computes
it from the run (difficulty_table, weak_steps), so the README can show the ladders a run gets. Prints markdown and how long generation took.
Run: `.venv/bin/python benchmarks/difficulty.py [--seeds N]`.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parents[1])  # this file's folder would shadow the `puzzles` package

from codebench.analysis.optimality import difficulty_table, weak_steps  # noqa: E402
from codebench.run.plan import distinct  # noqa: E402
from codebench.types import InstanceFacts  # noqa: E402
from puzzles import LEVELS, get_puzzle  # noqa: E402

SHOWN = {  # the README's rows: each family's metrics that tell its ladder
    "hanoi": ("min_solution_length",),
    "checkers": ("min_solution_length",),
    "river": ("min_solution_length", "search_nodes", "capacity"),
    "waterjug": ("min_solution_length", "state_space"),
    "rubik": ("min_solution_length",),
    "sat": ("n", "search_nodes", "model_count"),
    "coloring": ("n", "m", "search_nodes"),
    "cryptarithm": ("letters", "search_nodes", "solution_count"),
    "sudoku": ("givens", "tau", "singles_solvable"),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seeds", type=int, default=10, help="seeds 0..N-1 per level (default 10)")
    args = parser.parse_args()
    started = time.perf_counter()
    facts = []
    for name in SHOWN:  # the distinct instances a run over these seeds plans (Hanoi's small levels draw one)
        records, alike = distinct(get_puzzle(name).generate(level, seed) for level in LEVELS for seed in range(args.seeds))
        facts += [InstanceFacts(name, record.level or 0, record.id, record.meta, alike.get(record.id, ())) for record in records]
    seconds = time.perf_counter() - started
    table = difficulty_table(facts)
    cells = {(cell.puzzle, cell.level): cell.metrics for cell in table}
    weak: dict[str, list[str]] = {}
    for puzzle, level, why in weak_steps(table):
        weak.setdefault(puzzle, []).append(f"L{level}: {why}")
    print("| puzzle | metric | " + " | ".join(f"L{level}" for level in LEVELS) + " | weak steps |")
    print("|---|---|" + "---|" * len(LEVELS) + "---|")
    for puzzle, metrics in SHOWN.items():
        for row, metric in enumerate(metrics):
            values = [cells[puzzle, level].get(metric) for level in LEVELS]
            shown = " | ".join("-" if value is None else f"{value:.4g}" for value in values)
            print(f"| {puzzle if row == 0 else ''} | {metric} | {shown} | {'; '.join(weak.get(puzzle, [])) if row == 0 else ''} |")
    drawn = args.seeds * len(LEVELS) * len(SHOWN)
    print(f"\n{len(facts)} distinct instances of {drawn} drawn, generated in {seconds:.1f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
