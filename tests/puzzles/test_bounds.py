"""solve and generate refuse inconsistent or oversized inputs up front, naming the rule (issue 8, item 4).

Every refusal must come before any search: each is timed, and a refusal that took a search's time fails.
Also the protocol's helpers for totality: `clip` (bounded quoting) and `json_shape_problem` (the guard).
"""

from __future__ import annotations

import dataclasses
import math
import time
from typing import Any

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from puzzles import LEVELS, PUZZLES, InstanceFormatError, ParamError, PuzzleError, get_puzzle
from puzzles import sat as sat_module
from puzzles._protocol import MAX_DEPTH, QUOTE_LIMIT, clip, json_shape_problem, listing
from puzzles.rubik import SOLVED, apply_moves, reachability_problem

from .strategies import edit_at, json_paths, perturb

REFUSAL_SECONDS = 2.0  # a bound check is microseconds; a search that ran first would take far longer
HANOI = {"n": 3, "pegs": ["A", "B", "C"], "start": "A", "goal": "C"}
SUDOKU_4 = {"size": 4, "box": [2, 2], "regions": None, "grid": [[1, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]}


def _deep(depth: int) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


def _refused(name: str, instance: Any, pattern: str) -> None:
    start = time.perf_counter()
    with pytest.raises(InstanceFormatError, match=pattern) as caught:
        get_puzzle(name).solve(instance)
    assert time.perf_counter() - start < REFUSAL_SECONDS
    assert len(str(caught.value)) < 400, str(caught.value)[:200]


REFUSALS = [
    # Hanoi: the 2^n − 1 bound and a consistent peg set
    ("hanoi", {**HANOI, "n": 40}, r"n=40: expected an integer 1\.\.24 .*2\^n"),
    ("hanoi", {**HANOI, "n": 10**5000}, r"n=<integer of ~5001 digits>"),
    ("hanoi", {**HANOI, "n": True}, r"n=True"),
    ("hanoi", {**HANOI, "n": 0}, r"n=0"),
    ("hanoi", {**HANOI, "pegs": ["A", "A", "C"]}, r"three distinct peg names"),
    ("hanoi", {**HANOI, "goal": "A"}, r"two different pegs"),
    ("hanoi", {**HANOI, "start": "D"}, r"two different pegs"),
    ("hanoi", {"n": 3}, r"pegs=None"),
    # Checkers: the board must match n
    ("checkers", {"n": 3, "board": "RR_BB"}, r"board 'RR_BB' does not match n=3: expected 'RRR_BBB'"),
    ("checkers", {"n": 3, "board": "BBB_RRR"}, r"does not match n=3"),
    ("checkers", {"n": 101, "board": "R" * 101 + "_" + "B" * 101}, r"n=101: expected an integer 1\.\.100"),
    # River: the labels, the bounds, solvability with the smallest capacity that works
    ("river", {"pairs": 4, "capacity": 2, "people": ["A_1", "a_1", "A_2", "a_2", "A_3", "a_3", "A_4", "a_4"]},
     r"4 pairs cannot cross with capacity 2; the smallest that works is 3"),
    ("river", {"pairs": 2, "capacity": 2, "people": ["A_1", "a_1", "A_2", "A_2"]}, r"people .* are not A_1, a_1"),
    ("river", {"pairs": 1000, "capacity": 4, "people": []}, r"pairs=1000: expected an integer 1\.\.100"),
    ("river", {"pairs": 2, "capacity": 13, "people": ["A_1", "a_1", "A_2", "a_2"]}, r"capacity=13: expected an integer 1\.\.12"),
    # SAT: literal range, empty clauses, bounds, unsatisfiable formulas
    ("sat", {"num_vars": 2, "clauses": [[1, 3]]}, r"clause 0 \[1, 3\]: literals must be non-zero integers within ±2"),
    ("sat", {"num_vars": 2, "clauses": [[1, True]]}, r"clause 0"),
    ("sat", {"num_vars": 2, "clauses": [[]]}, r"clause 0 \[\]: expected a non-empty list"),
    ("sat", {"num_vars": 10**6, "clauses": [[1]]}, r"num_vars=1000000: expected an integer 1\.\.100000"),
    ("sat", {"num_vars": 3, "clauses": [[1] * 2_000_001]}, r"more than 2000000 literals"),
    ("sat", {"num_vars": 1, "clauses": [[1], [-1]]}, r"unsatisfiable"),
    # Cryptarithm: at most ten letters, words of A-Z, no solution
    ("cryptarithm", {"addends": ["ABCDEF", "GHIJK"], "result": "LMNOP"}, r"16 distinct letters .*at most 10"),
    ("cryptarithm", {"addends": ["SEND", "more"], "result": "MONEY"}, r"addend 1 'more': expected 1\.\.15 uppercase"),
    ("cryptarithm", {"addends": ["A" * 16, "B"], "result": "C"}, r"addend 0 'AAAA.*expected 1\.\.15"),
    ("cryptarithm", {"addends": [], "result": "A"}, r"addends \[\]: expected a list of 1\.\.100 words"),
    ("cryptarithm", {"addends": ["AB", "AB"], "result": "A"}, r"'AB \+ AB = A' has no solution"),
    # Colouring: self-loops, node range, the encoding bound, unsolvable graphs
    ("coloring", {"num_nodes": 3, "edges": [[0, 0]], "num_colors": 3}, r"edge 0 \[0, 0\] is a self-loop"),
    ("coloring", {"num_nodes": 3, "edges": [[0, 3]], "num_colors": 3}, r"edge 0 \[0, 3\]: expected \[u, v\] with nodes 0\.\.2"),
    ("coloring", {"num_nodes": 10_000, "edges": [], "num_colors": 10_000}, r"need more than 5000000 clauses"),
    ("coloring", {"num_nodes": 3, "edges": [], "num_colors": 10**5000}, r"num_colors=|clauses"),
    ("coloring", {"num_nodes": 3, "edges": [[0, 1], [1, 2], [0, 2]], "num_colors": 2}, r"no 2-colouring"),
    # Water jug: the state-space bound and a reachable target
    ("waterjug", {"capacities": {"A": 10**9, "B": 10**9 - 1}, "target": 5}, r"expected integers 1\.\.1000 \(the solve bound\)"),
    ("waterjug", {"capacities": {"A": 4, "B": 6}, "target": 3}, r"target 3 is unreachable: it is not a multiple of gcd\(4, 6\) = 2"),
    ("waterjug", {"capacities": {"A": 3, "B": 5}, "target": 6}, r"target=6: expected an integer 1\.\.5"),
    ("waterjug", {"capacities": {"A": 3, "B": 5}, "target": 0}, r"target=0"),
    ("waterjug", {"capacities": {"A": 3, "B": 5, "C": 7}, "target": 4}, r"capacities .* expected"),
    # Sudoku: conflicting givens named by unit, no completion, malformed geometry, the size bound
    ("sudoku", {**SUDOKU_4, "grid": [[1, 1, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]}, r"the givens conflict: row 0 repeats 1"),
    ("sudoku", {**SUDOKU_4, "grid": [[1, 0, 0, 0], [1, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]}, r"the givens conflict: column 0 repeats 1"),
    ("sudoku", {**SUDOKU_4, "grid": [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]}, r"the givens conflict: box 0 repeats 1"),
    ("sudoku", {**SUDOKU_4, "grid": [[1, 2, 0, 0], [0, 0, 3, 0], [0, 0, 0, 0], [0, 0, 0, 0]]}, r"consistent but have no completion"),
    ("sudoku", {**SUDOKU_4, "box": [2, 3]}, r"malformed: box \[2, 3\] is not \[rows, cols\]"),
    ("sudoku", {**SUDOKU_4, "size": 25}, r"malformed: size 25 is not an integer 1\.\.16"),
    ("sudoku", {**SUDOKU_4, "grid": [[1, 0, 0, 0]] * 3}, r"malformed: grid is not 4×4"),
    # Rubik: only states reachable from the solved cube
    ("rubik", {"state": SOLVED[:54], "target": "U" * 54, "scramble": None}, r"target does not have 9 facelets"),
    # any family: not an object, too deep
    ("hanoi", [HANOI], r"an instance is an object"),
    ("sat", {"num_vars": 1, "clauses": _deep(100_000)}, rf"nests lists and objects more than {MAX_DEPTH} deep"),
]


@pytest.mark.parametrize(("name", "instance", "pattern"), REFUSALS, ids=[f"{r[0]}-{i}" for i, r in enumerate(REFUSALS)])
def test_solve_refuses_with_the_rule(name: str, instance: Any, pattern: str) -> None:
    _refused(name, instance, pattern)


def _twisted(kind: str) -> str:
    """A scrambled cube with one corner twisted, one edge flipped, or two edges swapped."""
    from puzzles.rubik import _CORNERS, _EDGES

    cube = list(apply_moves(SOLVED, [0, 4, 8, 10, 14, 2, 7]))
    if kind == "twist":
        a, b, c = _CORNERS[2]
        cube[a], cube[b], cube[c] = cube[b], cube[c], cube[a]
    elif kind == "flip":
        a, b = _EDGES[5]
        cube[a], cube[b] = cube[b], cube[a]
    else:
        (a1, b1), (a2, b2) = _EDGES[0], _EDGES[7]
        cube[a1], cube[a2], cube[b1], cube[b2] = cube[a2], cube[a1], cube[b2], cube[b1]
    return "".join(cube)


@pytest.mark.parametrize(("kind", "rule"), [("twist", "corner twists sum"), ("flip", "edge flips sum"), ("swap", "different parity")])
def test_rubik_refuses_unreachable_cubes_before_any_search(kind: str, rule: str) -> None:
    cube = _twisted(kind)
    assert sorted(cube) == sorted(SOLVED)  # colour counts alone cannot tell
    _refused("rubik", {"state": cube, "target": SOLVED, "scramble": None}, f"rubik: state: .*{rule}")
    _refused("rubik", {"state": SOLVED, "target": cube, "scramble": None}, f"rubik: target: .*{rule}")


def test_every_reachable_cube_passes_the_reachability_check() -> None:
    rubik = get_puzzle("rubik")
    for move in range(18):
        assert reachability_problem(apply_moves(SOLVED, [move])) is None
    for level in LEVELS:
        for seed in range(3):
            instance = rubik.generate(level, seed, params={"reveal_scramble": False}).instance
            assert reachability_problem(instance["state"]) is None and reachability_problem(instance["target"]) is None
    random_target = rubik.generate(params={"scramble_length": 20, "random_target": True}).instance
    assert reachability_problem(random_target["target"]) is None


@pytest.mark.parametrize("puzzle", PUZZLES, ids=lambda p: p.name)
def test_mutated_instances_are_solved_or_refused_with_the_rule(puzzle: Any) -> None:
    """One element of a generated instance perturbed: solve answers it (validly) or refuses it; nothing else."""
    instance = puzzle.generate(1, 0).instance
    paths = json_paths(instance)

    @settings(max_examples=150, deadline=5000)
    @given(st.data())
    def check(data: st.DataObject) -> None:
        mutated = edit_at(instance, data.draw(st.sampled_from(paths)), lambda element: perturb(data, element))
        try:
            puzzle.check_instance(mutated)
        except InstanceFormatError as exc:
            assert len(str(exc)) < 400, str(exc)[:200]
            event("refused by check_instance")
            return
        if puzzle.name == "hanoi" and mutated["n"] > 16:  # within the bound, but 2^n moves is slow for a property test
            return
        try:
            answer = puzzle.solve(mutated)
        except InstanceFormatError as exc:  # unsolvable: refused by the search, with the rule
            assert len(str(exc)) < 400, str(exc)[:200]
            event("refused by the search")
            return
        assert puzzle.validate(mutated, answer).ok
        event("solved")

    check()


def test_search_budgets_refuse_instead_of_running_on(monkeypatch: pytest.MonkeyPatch) -> None:
    hard = get_puzzle("sat").generate(6, 0).instance  # needs more than one conflict
    monkeypatch.setattr(sat_module, "SOLVE_CONFLICTS", 1)
    _refused("sat", hard, r"no model found within the solve budget of 1 conflicts")


@pytest.mark.parametrize("puzzle", PUZZLES, ids=lambda p: p.name)
def test_generated_instances_pass_their_own_checks(puzzle: Any) -> None:
    for level in LEVELS:
        for seed in range(2):
            puzzle.check_instance(puzzle.generate(level, seed).instance)


@pytest.mark.parametrize(
    ("name", "params"),
    [
        ("hanoi", {"n": 24}),
        ("checkers", {"n": 100}),
        ("river", {"pairs": 100, "capacity": 4}),
        ("waterjug", {"max_capacity": 1000, "min_steps": 2, "max_steps": 2000}),
        ("sat", {"num_vars": 200, "num_clauses": 400}),
    ],
)
def test_the_largest_generated_instances_are_within_the_solve_bounds(name: str, params: dict) -> None:
    get_puzzle(name).check_instance(get_puzzle(name).generate(params=params).instance)


def test_waterjug_every_reachable_target_is_solved_and_every_other_refused() -> None:
    jug = get_puzzle("waterjug")
    for a in range(1, 13):
        for b in range(1, 13):
            for target in range(0, 14):
                instance = {"capacities": {"A": a, "B": b}, "target": target}
                if 1 <= target <= max(a, b) and target % math.gcd(a, b) == 0:
                    assert jug.validate(instance, jug.solve(instance)).ok
                else:
                    with pytest.raises(InstanceFormatError):
                        jug.solve(instance)


@pytest.mark.parametrize(
    ("call", "pattern"),
    [
        (lambda: get_puzzle("hanoi").generate(params={"n": 10**5000}), r"^parameter n=<integer of ~5001 digits>: expected 1\.\.24$"),
        (lambda: get_puzzle("hanoi").generate(params={"n": "x" * 1_000_000}), r"^parameter n='x{58}…: expected"),
        (lambda: get_puzzle("hanoi").generate(params={"x" * 1_000_000: 1}), r"^unknown parameter\(s\) 'x{58}…; this puzzle takes"),
        (lambda: get_puzzle("hanoi").generate(10**5000, 0), r"level <integer of ~5001 digits> does not exist"),
        (lambda: get_puzzle("hanoi").generate(1, 10**5000), r"^seed <integer of ~5001 digits>: expected an integer 0\.\.2\^64-1$"),
        (lambda: get_puzzle("hanoi").generate(1, 2**64), r"^seed 18446744073709551616: expected"),
        (lambda: get_puzzle("hanoi").generate(1, -1), r"^seed -1: expected"),
        (lambda: get_puzzle("waterjug").generate(params={"max_capacity": 10**9}), r"max_capacity=1000000000: expected 3\.\.1000"),
        (lambda: get_puzzle("sudoku").generate(params={"size": 25, "box_rows": 5}), r"size=25: expected 4\.\.16"),
        (lambda: get_puzzle("rubik").generate(1, 0, params={"scramble_length": 10**5000}), r"cannot be combined with a level"),
        (lambda: get_puzzle("river").generate(params={"pairs": 2, "capacity": 2.5}), r"capacity=2\.5: expected"),
        (lambda: get_puzzle("river").generate(params={"pairs": math.nan}), r"pairs=nan: expected"),
    ],
    ids=lambda value: "" if callable(value) else str(value)[:40],
)
def test_generate_refuses_bad_params_with_a_short_message(call: Any, pattern: str) -> None:
    start = time.perf_counter()
    with pytest.raises(ParamError, match=pattern) as caught:
        call()
    assert time.perf_counter() - start < REFUSAL_SECONDS and len(str(caught.value)) < 300


PARAM_VALUES = [10**5000, -(10**5000), "x" * 1_000_000, math.nan, math.inf, 1e308, [], {}, -1, 10**9]


@pytest.mark.parametrize("puzzle", PUZZLES, ids=lambda p: p.name)
def test_every_parameter_refuses_hostile_values_quickly(puzzle: Any) -> None:
    for field in dataclasses.fields(puzzle.params_type):
        for value in PARAM_VALUES:
            start = time.perf_counter()
            with pytest.raises(ParamError) as caught:
                puzzle.generate(params={field.name: value})
            assert time.perf_counter() - start < REFUSAL_SECONDS and len(str(caught.value)) < 300, (field.name, clip(value))


def test_the_largest_seed_still_generates() -> None:
    assert get_puzzle("hanoi").generate(1, 2**64 - 1).id == f"hanoi/L1/s{2**64 - 1}"


def test_refusals_are_puzzle_errors_and_value_errors() -> None:
    assert issubclass(InstanceFormatError, PuzzleError) and issubclass(InstanceFormatError, ValueError)


# the helpers behind totality


@pytest.mark.parametrize(
    "value",
    [1, -7, True, None, 1.5, math.nan, -math.inf, -0.0, "A_1", "it's", [1, "A", "C"], {"1": True, "2": [None]}, [], {}, "\ud800"],
    ids=repr,
)
def test_clip_is_repr_for_short_values(value: object) -> None:
    assert clip(value) == repr(value)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (10**5000, "<integer of ~5001 digits>"),
        (-(10**5000), "<negative integer of ~5001 digits>"),
        ("x" * 1_000_000, "'" + "x" * (QUOTE_LIMIT - 2) + "…"),
        (list(range(10**6)), repr(list(range(30)))[: QUOTE_LIMIT - 1] + "…"),
        (_deep(100_000), "[" * (QUOTE_LIMIT - 1) + "…"),
        ([10**5000, "x"], "[<integer of ~5001 digits>, 'x']"),
        ({"k" * 100: 1}, "{'" + "k" * (QUOTE_LIMIT - 3) + "…"),
        ((1, 2), "[1, 2]"),
        (object(), "<object>"),
    ],
    ids=lambda value: type(value).__name__,  # pytest would str() a 5000-digit integer for the id
)
def test_clip_bounds_anything(value: object, expected: str) -> None:
    assert clip(value) == expected and len(clip(value)) <= QUOTE_LIMIT


def test_listing_names_at_most_twenty_numbers() -> None:
    assert listing([1, 4]) == "1, 4"
    assert listing(list(range(300))) == ", ".join(map(str, range(20))) + " … (300 in all)"


def test_shape_guard_is_iterative_and_exact_at_the_limit() -> None:
    assert json_shape_problem(_deep(MAX_DEPTH - 1)) is None  # MAX_DEPTH containers, the empty innermost included
    assert json_shape_problem(_deep(MAX_DEPTH)) is not None
    assert json_shape_problem(_deep(1_000_000)) is not None
    cycle: list = []
    cycle.append(cycle)
    assert json_shape_problem(cycle) is not None  # not JSON, but still no hang
    assert json_shape_problem({"a": [1, {"b": [2, 3]}], "c": "x"}) is None and json_shape_problem(10**5000) is None


@pytest.mark.parametrize("name", [10**5000, ["hanoi"], {"a": 1}, None, "x" * 1_000_000], ids=["huge", "list", "object", "null", "long"])
def test_unknown_puzzle_names_are_quoted_short(name: object) -> None:
    from puzzles import UnknownPuzzleError

    with pytest.raises(UnknownPuzzleError, match="known puzzles: hanoi") as caught:
        get_puzzle(name)  # type: ignore[arg-type]
    assert len(str(caught.value)) < 200
