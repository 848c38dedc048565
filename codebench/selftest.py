"""The puzzle self-test: every family × level × a few seeds is generated, solved and validated."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from puzzles import LEVELS, Puzzle, Verdict


@dataclass(frozen=True)
class SelftestRow:
    """One generate → solve → validate round trip, with its timings in seconds."""

    record_id: str
    puzzle: str
    level: int
    complexity: dict[str, Any]
    solution_size: int | None
    generate_s: float
    solve_s: float
    validate_s: float
    verdict: Verdict


def _timed(call: Callable[..., Any], *args: Any) -> tuple[Any, float]:
    start = time.perf_counter()
    result = call(*args)
    return result, time.perf_counter() - start


def solution_size(puzzle: Puzzle[Any], answer: Any) -> int | None:
    """Length of a trajectory answer (moves, trips, steps); None for assignment-style answers."""
    if puzzle.trajectory_field is None or not isinstance(answer, dict):
        return None
    steps = answer.get(puzzle.trajectory_field)
    return len(steps.split()) if isinstance(steps, str) else len(steps) if isinstance(steps, list) else None


def run_selftest(puzzles: list[Puzzle[Any]], seeds: range) -> Iterator[SelftestRow]:
    """Yield one row per (puzzle, level, seed), in order, as soon as it is done."""
    for puzzle in puzzles:
        for level in LEVELS:
            for seed in seeds:
                record, generate_s = _timed(puzzle.generate, level, seed)
                answer, solve_s = _timed(puzzle.solve, record.instance)
                verdict, validate_s = _timed(puzzle.validate, record.instance, answer)
                complexity = record.meta.get("complexity", {})
                yield SelftestRow(record.id, puzzle.name, level, complexity, solution_size(puzzle, answer),
                                  generate_s, solve_s, validate_s, verdict)
