"""`search_nodes` in the generators' meta: the reference solver's own count of its search, reproducible from the instance."""

from __future__ import annotations

import pytest
from pysat.solvers import Solver

from puzzles import LEVELS, get_puzzle
from puzzles.coloring import SOLVE_CONFLICTS, colour_search
from puzzles.cryptarithm import COUNT_CAP, search
from puzzles.sat import SOLVER

SEEDS = (0, 1)


def test_sat_counts_the_decisions_the_reference_solver_takes_on_the_formula() -> None:
    means = {}
    for level in LEVELS:
        nodes = []
        for seed in SEEDS:
            record = get_puzzle("sat").generate(level, seed)
            with Solver(name=SOLVER, bootstrap_with=record.instance["clauses"]) as solver:
                assert solver.solve()
                assert record.meta["search_nodes"] == solver.accum_stats()["decisions"]
            nodes.append(record.meta["search_nodes"])
        means[level] = sum(nodes) / len(nodes)
    assert means[6] > means[4] > means[1]  # the search grows with the formula


def test_coloring_counts_the_decisions_of_the_reference_colouring() -> None:
    for level in LEVELS:
        record = get_puzzle("coloring").generate(level, 0)
        instance = record.instance
        colours, nodes = colour_search(instance["num_nodes"], instance["edges"], instance["num_colors"], SOLVE_CONFLICTS)
        assert colours is not None and record.meta["search_nodes"] == nodes >= 0


@pytest.mark.parametrize("level", LEVELS)
def test_river_counts_the_states_its_breadth_first_search_expanded(level: int) -> None:
    meta = get_puzzle("river").generate(level, 0).meta
    pairs, capacity = meta["complexity"]["pairs"], meta["complexity"]["capacity"]
    # every state on the minimal plan is expanded, the goal included; no state twice (at most 4 counts × 2 banks per pair)
    assert meta["min_solution_length"] + 1 <= meta["search_nodes"] <= 8 * (pairs + 1) ** 2
    assert capacity >= meta["min_capacity"]


def test_cryptarithm_counts_the_branches_of_the_counting_search() -> None:
    for level in LEVELS:
        record = get_puzzle("cryptarithm").generate(level, 0)
        cap = 2 if level >= 3 else COUNT_CAP  # levels 3-6 ask for a unique solution: the search stops at a second
        count, _, branches = search(record.instance["addends"], record.instance["result"], cap)
        assert (count, branches) == (record.meta["solution_count"], record.meta["search_nodes"])
        assert branches > 0
