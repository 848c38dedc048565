"""Optimality of passes and the difficulty table: hand-computed ratios and means, and the weak level steps they show."""

from __future__ import annotations

import math
from typing import Any

import pytest

import puzzles
from codebench.analysis.optimality import Difficulty, Optimality, difficulty_table, optimality, weak_steps
from codebench.run.plan import distinct
from codebench.types import ExecutionRow, InstanceFacts, Status


def row(status: str, steps: int | None, shortest: int | None, *, level: int = 1, instance: str = "i", puzzle: str = "hanoi",
        model: str = "m") -> ExecutionRow:
    return ExecutionRow(model, "code", puzzle, level, instance, 0, status, "", None, steps_applied=steps, shortest=shortest)


def facts(puzzle: str, level: int, *metas: dict[str, Any]) -> list[InstanceFacts]:
    return [InstanceFacts(puzzle, level, f"{puzzle}/L{level}/s{i}", meta) for i, meta in enumerate(metas)]


# optimality


def test_optimality_by_hand_ignoring_what_cannot_be_measured() -> None:
    rows = [row(Status.LEGAL, 7, 7, instance="a"), row(Status.LEGAL, 9, 7, instance="b"),
            row(Status.RULE_VIOLATION, 3, 7, instance="c"),  # not a pass
            row(Status.SANDBOX_ERROR, 7, 7, instance="d"),  # infrastructure
            row(Status.LEGAL, 20, None, instance="e"),  # no known minimum
            row(Status.LEGAL, None, 7, instance="f"),  # no plan length
            row(Status.LEGAL, 4, 0, instance="g"),  # a zero minimum gives no ratio
            row(Status.LEGAL, 10, 5, level=2, instance="h"), row(Status.LEGAL, 5, 5, level=2, instance="j"),
            row(Status.LEGAL, 6, 5, level=2, instance="k"),
            row(Status.TIMEOUT, 5, 5, level=3, instance="l"), row(Status.LEGAL, 5, None, level=3, instance="n")]  # level 3: nothing
    assert optimality(rows) == [
        Optimality("m", "code", "hanoi", 1, solved=2, mean_ratio=pytest.approx(8 / 7), optimal_share=0.5),  # (7/7 + 9/7) / 2
        # (10/5 + 5/5 + 6/5) / 3 = (2 + 1 + 1.2) / 3
        Optimality("m", "code", "hanoi", 2, solved=3, mean_ratio=pytest.approx(1.4), optimal_share=pytest.approx(1 / 3)),
    ]


def test_optimality_cells_are_sorted() -> None:
    rows = [row(Status.LEGAL, 3, 3, model="b"), row(Status.LEGAL, 3, 3, puzzle="sat"), row(Status.LEGAL, 3, 3, level=2),
            row(Status.LEGAL, 3, 3)]
    assert [(o.model, o.puzzle, o.level, o.solved) for o in optimality(rows)] == [("b", "hanoi", 1, 1), ("m", "hanoi", 1, 1),
                                                                                 ("m", "hanoi", 2, 1), ("m", "sat", 1, 1)]


# difficulty


def table() -> list[Difficulty]:
    return difficulty_table([
        *facts("sudoku", 1, {"complexity": {"q": 41, "delta": 2.0, "tau": 0, "givens": 40}, "singles_solvable": True, "solution_count": 1,
                             "tau_capped": False},
               {"complexity": {"q": 45, "delta": 3.0, "tau": 2, "givens": 36}, "singles_solvable": True, "solution_count": 1,
                "tau_capped": False}),
        *facts("hanoi", 2, {"complexity": {"n": 5}, "min_solution_length": 31, "version": 1},
               {"complexity": {"n": 4}, "version": 1}),  # min_solution_length missing: averaged over the one that has it
        *facts("hanoi", 1, {"complexity": {"n": 3}, "min_solution_length": 7, "version": 1},
               {"complexity": {"n": 3}, "min_solution_length": 7, "version": 1}),
        *facts("hanoi", 3, {"complexity": {"n": 4}, "min_solution_length": 15}, {"complexity": {"n": 4}, "min_solution_length": 16}),
        *facts("sudoku", 2, {"complexity": {"q": 50}, "singles_solvable": True}, {"complexity": {"q": 52}, "singles_solvable": True}),
        *facts("sudoku", 3, {"complexity": {"q": 55}, "singles_solvable": True}, {"complexity": {"q": 57}, "singles_solvable": False}),
        *facts("river", 1, {"complexity": {"pairs": 4, "capacity": 3}, "min_capacity": 3, "min_solution_length": 9},
               {"complexity": {"pairs": 5, "capacity": 3}, "min_capacity": 2, "min_solution_length": 11}),
        *facts("sat", 1, {"attempts": 4, "complexity": {"n": 20, "m": 91, "alpha": 4.55}, "model_count": 9, "model_count_capped": False},
               {"attempts": 1, "complexity": {"n": 20, "m": 85, "alpha": 4.25}, "model_count": 4, "model_count_capped": True}),
        *facts("checkers", 1,
               {"complexity": {"n": 3}, "jumps": 9, "min_solution_length": 15, "slides": 6, "solution_count": 2, "version": 1},
               {"complexity": {"n": 3}, "jumps": 9, "min_solution_length": 15, "slides": 6, "solution_count": 2, "version": 1}),
        *facts("rubik", 6, {"complexity": {"scramble_length": 8}, "scramble": "L' F' U D R B L' F"},
               {"complexity": {"scramble_length": 8}, "scramble": "U D' R R' L F B U2"}),
        *facts("coloring", 1, {"chromatic_number": 3, "complexity": {"n": 20, "m": 40, "k": 3, "avg_degree": 4.0}},
               {"chromatic_number": 4, "complexity": {"n": 20, "m": 44, "k": 4, "avg_degree": 4.4}}),
    ])


def test_difficulty_table_means_by_hand() -> None:
    cells = {(d.puzzle, d.level): d for d in table()}
    assert [(d.puzzle, d.level) for d in table()] == sorted(cells)
    assert all(d.instances == 2 for d in cells.values())
    assert cells["hanoi", 1].metrics == {"n": 3.0, "min_solution_length": 7.0}  # version is no metric
    assert cells["hanoi", 2].metrics == {"n": 4.5, "min_solution_length": 31.0}
    assert cells["hanoi", 3].metrics == {"n": 4.0, "min_solution_length": 15.5}
    assert cells["sudoku", 1].metrics == {"q": 43.0, "delta": 2.5, "tau": 1.0, "givens": 38.0, "solution_count": 1.0,
                                          "singles_solvable": 1.0}
    assert cells["sudoku", 3].metrics == {"q": 56.0, "singles_solvable": 0.5}
    assert cells["river", 1].metrics == {"pairs": 4.5, "capacity": 3.0, "min_solution_length": 10.0, "min_capacity": 2.5}
    assert cells["sat", 1].metrics == pytest.approx({"n": 20.0, "m": 88.0, "alpha": 4.4, "model_count": 6.5})  # attempts, *_capped dropped
    assert cells["checkers", 1].metrics == {"n": 3.0, "min_solution_length": 15.0, "solution_count": 2.0, "jumps": 9.0, "slides": 6.0}
    assert cells["rubik", 6].metrics == {"scramble_length": 8.0}  # the scramble text is no metric
    assert cells["coloring", 1].metrics == pytest.approx({"n": 20.0, "m": 42.0, "k": 3.5, "avg_degree": 4.2, "chromatic_number": 3.5})


def test_metrics_keep_a_stable_order() -> None:
    [cell] = difficulty_table(facts("x", 1, {"slides": 1, "min_solution_length": 2, "complexity": {"b": 1, "flag": True}},
                                    {"complexity": {"c": 5, "b": 3, "a": 1}, "jumps": 4}))
    assert list(cell.metrics) == ["b", "c", "a", "min_solution_length", "jumps", "slides"]  # a boolean complexity value is no metric
    assert cell.metrics == {"b": 2.0, "c": 5.0, "a": 1.0, "min_solution_length": 2.0, "jumps": 4.0, "slides": 1.0}


def test_an_instance_listed_twice_counts_once() -> None:
    one = facts("hanoi", 1, {"min_solution_length": 7})
    [cell] = difficulty_table([*one, *one, *facts("hanoi", 1, {}, {"min_solution_length": 15})[1:]])
    assert (cell.instances, cell.metrics) == (2, {"min_solution_length": 11.0})


def test_a_cell_without_metrics_still_counts_its_instances() -> None:
    [cell] = difficulty_table(facts("rubik", 7, {"scramble": "U"}, {"complexity": "not a dict"}))
    assert (cell.instances, cell.metrics) == (2, {})
    assert difficulty_table([]) == []


def test_weak_steps_find_a_falling_minimum_and_a_repeated_singles_level() -> None:
    assert weak_steps(table()) == [("hanoi", 3, "min_solution_length falls from 31 to 15.5"),
                                   ("sudoku", 2, "solvable by singles alone, like level 1")]


def test_weak_steps_compare_with_the_previous_level_present_and_join_reasons() -> None:
    cells = [Difficulty("p", 5, 1, {"min_solution_length": 9.0, "singles_solvable": 1.0, "search_nodes": 40.0}),
             Difficulty("p", 2, 1, {"min_solution_length": 10.0, "singles_solvable": 1.0, "search_nodes": 40.5}),
             Difficulty("p", 7, 1, {"min_solution_length": 12.0}),  # no singles_solvable: not compared
             Difficulty("q", 1, 1, {"min_solution_length": math.nan})]
    assert weak_steps(cells) == [("p", 5, "min_solution_length falls from 10 to 9; search_nodes falls from 40.5 to 40; "
                                          "solvable by singles alone, like level 2")]


def test_a_level_the_seed_makes_easier_gives_the_seed_as_its_reason() -> None:
    cells = [Difficulty("river", 2, 1, {"min_solution_length": 11.0}), Difficulty("river", 3, 1, {"min_solution_length": 9.0}),
             Difficulty("river", 4, 1, {"min_solution_length": 11.0}), Difficulty("river", 5, 1, {"min_solution_length": 11.0})]
    assert weak_steps(cells) == [("river", 3, "min_solution_length falls from 11 to 9 — the seed's level 3 boat holds 3 (level 2: 2); "
                                              "kept as the seed defines it")]  # level 5 does not fall here: no weak step, no reason


def test_over_seeds_0_to_9_the_only_weak_steps_are_the_ones_the_seed_causes() -> None:
    """Issue 25's acceptance, on the distinct instances a run over seeds 0-9 plans: every other level of every family is
    harder than the one below."""
    facts = []
    for puzzle in puzzles.PUZZLES:
        records, alike = distinct(puzzle.generate(level, seed) for level in puzzles.LEVELS for seed in range(10))
        facts += [InstanceFacts(puzzle.name, record.level or 0, record.id, record.meta, alike.get(record.id, ())) for record in records]
    kept = "; kept as the seed defines it"
    assert weak_steps(difficulty_table(facts)) == [
        ("river", 3, f"min_solution_length falls from 11 to 9 — the seed's level 3 boat holds 3 (level 2: 2){kept}"),
        ("river", 5, f"min_solution_length falls from 11 to 9.6 — the seed's level 5 boat holds 4 (level 4: 3){kept}"),
    ]
