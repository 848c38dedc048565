"""Water Jug: closed form equals breadth-first search, step bands per level, the paper's holes closed."""

from __future__ import annotations

from collections import deque
from math import gcd

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from puzzles import IssueCode, ParamError
from puzzles.waterjug import ACTIONS, WaterJug, WaterJugParams, min_steps_by_volume

from .strategies import JSON_VALUES, answers_with_field

WATERJUG = WaterJug()
DIE_HARD = {"capacities": {"A": 3, "B": 5}, "target": 4}
DIE_HARD_PLAN = ["Fill B", "Pour B to A", "Empty A", "Pour B to A", "Fill B", "Pour B to A"]  # the paper's §3.1.7


def instance(a: int, b: int, g: int) -> dict:
    return {"capacities": {"A": a, "B": b}, "target": g}


def successors(x: int, y: int, a: int, b: int) -> list[tuple[int, int]]:
    """The six moves, written independently of the module (pour = min(source, room))."""
    ab, ba = min(x, b - y), min(y, a - x)
    return [(a, y), (x, b), (0, y), (x, 0), (x - ab, y + ab), (x + ba, y - ba)]


def bfs_min_steps(a: int, b: int) -> dict[int, int]:
    """Fewest steps until some jug holds each volume, by breadth-first search over (x, y)."""
    dist = {(0, 0): 0}
    best = {0: 0}
    queue = deque([(0, 0)])
    while queue:
        x, y = queue.popleft()
        for state in successors(x, y, a, b):
            if state not in dist:
                dist[state] = dist[(x, y)] + 1
                queue.append(state)
                for volume in state:
                    best.setdefault(volume, dist[state])
    return best


def simulate(plan: list[str], a: int, b: int) -> tuple[int, int]:
    x = y = 0
    for action in plan:
        x, y = successors(x, y, a, b)[ACTIONS.index(action)]
    return x, y


@pytest.mark.parametrize("level", range(1, 7))
@pytest.mark.parametrize("seed", range(10))
def test_reference_answer_validates_on_every_level(level: int, seed: int) -> None:
    record = WATERJUG.generate(level, seed)
    a, b = record.instance["capacities"]["A"], record.instance["capacities"]["B"]
    g = record.instance["target"]
    band = WATERJUG.levels[level]
    assert max(a, b) <= band["max_capacity"] and a != b
    assert g % gcd(a, b) == 0 and 0 < g <= max(a, b) and g not in (a, b)
    assert band["min_steps"] <= record.meta["min_solution_length"] <= band["max_steps"]
    assert record.meta["min_solution_length"] == bfs_min_steps(a, b)[g]
    assert record.meta["complexity"] == {"c1": a, "c2": b, "g": g}
    verdict = WATERJUG.validate(record.instance, WATERJUG.solve(record.instance))
    assert verdict.ok and verdict.steps_applied == record.meta["min_solution_length"]


def test_levels_rise_and_vary() -> None:
    lengths = {level: [WATERJUG.generate(level, s).meta["min_solution_length"] for s in range(10)] for level in range(1, 7)}
    assert all(max(lengths[level]) < min(lengths[level + 1]) for level in range(1, 6))
    assert all(len({str(WATERJUG.generate(level, s).instance) for s in range(10)}) >= 5 for level in range(1, 7))


def test_die_hard_is_the_papers_six_step_plan() -> None:
    assert WATERJUG.solve(DIE_HARD) == {"steps": DIE_HARD_PLAN}
    assert WATERJUG.validate(DIE_HARD, {"steps": DIE_HARD_PLAN}).ok
    assert len(WATERJUG.solve(instance(5, 3, 4))["steps"]) == 6
    assert simulate(DIE_HARD_PLAN, 3, 5) == (3, 4)


def test_closed_form_equals_bfs_for_all_capacities_up_to_25() -> None:
    for a in range(1, 26):
        for b in range(1, 26):
            closed, searched = min_steps_by_volume((a, b)), bfs_min_steps(a, b)
            assert closed == searched, (a, b)
            assert set(closed) == set(range(0, max(a, b) + 1, gcd(a, b)))  # the paper's feasibility rule
            for g in closed:
                if g not in (0, a, b):
                    assert closed[g] % 2 == 0  # why every level band only ever holds even lengths
                    plan = WATERJUG.solve(instance(a, b, g))["steps"]
                    assert len(plan) == closed[g] and g in simulate(plan, a, b)


def test_known_minimal_lengths() -> None:
    assert min_steps_by_volume((49, 50))[25] == 96  # the research note's worst case for capacities ≤ 50
    assert min_steps_by_volume((2, 3))[1] == 2
    assert 46 not in min_steps_by_volume((8, 56))  # gcd 8 does not divide 46: unsolvable


@pytest.mark.parametrize(
    ("step", "code"),
    [
        ("fill A", IssueCode.UNKNOWN_TOKEN),
        ("Pour A->B", IssueCode.UNKNOWN_TOKEN),
        ("pour a to b", IssueCode.UNKNOWN_TOKEN),
        ("Fill A ", IssueCode.UNKNOWN_TOKEN),
        ("Fill  A", IssueCode.UNKNOWN_TOKEN),
        ("Fill C", IssueCode.UNKNOWN_TOKEN),
        ("Pour A to A", IssueCode.UNKNOWN_TOKEN),
        ("", IssueCode.UNKNOWN_TOKEN),
        (["Fill A"], IssueCode.MALFORMED),  # the paper's singleton-list format
        ([], IssueCode.MALFORMED),
        (0, IssueCode.MALFORMED),
        (None, IssueCode.MALFORMED),
        (True, IssueCode.MALFORMED),
        ({"action": "Fill A"}, IssueCode.MALFORMED),
    ],
)
def test_bad_step_rejected_where_it_occurs(step: object, code: IssueCode) -> None:
    verdict = WATERJUG.validate(DIE_HARD, {"steps": ["Fill B", "Pour B to A", step, *DIE_HARD_PLAN[2:]]})
    assert [issue.code for issue in verdict.issues] == [code]
    assert verdict.first_illegal_step == 2 and verdict.steps_applied == 2 and verdict.issues[0].step == 2


@pytest.mark.parametrize(
    "answer",
    [None, 3, "Fill B", [["Fill B"], ["Pour B to A"]], {}, {"Steps": DIE_HARD_PLAN}, {"steps": "Fill B"}, {"steps": None}],
)
def test_malformed_answers(answer: object) -> None:
    verdict = WATERJUG.validate(DIE_HARD, answer)
    assert verdict.codes == {IssueCode.MALFORMED} and verdict.steps_applied is None


def test_no_ops_are_legal_and_only_the_final_state_counts() -> None:
    no_ops = ["Pour A to B", "Empty B", "Fill A", "Fill A", "Empty A"]
    assert WATERJUG.validate(DIE_HARD, {"steps": no_ops + DIE_HARD_PLAN}).ok
    assert WATERJUG.validate(DIE_HARD, {"steps": DIE_HARD_PLAN + ["Empty A", "Pour A to B"]}).ok  # B still holds 4
    left = WATERJUG.validate(DIE_HARD, {"steps": DIE_HARD_PLAN + ["Empty B"]})
    assert left.codes == {IssueCode.GOAL_NOT_REACHED} and left.steps_applied == 7 and left.first_illegal_step is None
    assert "A holds 3 and B holds 0" in left.issues[0].message
    assert WATERJUG.validate(DIE_HARD, {"steps": []}).codes == {IssueCode.GOAL_NOT_REACHED}


def test_extra_field_and_duplicate_key_fail_a_correct_plan() -> None:
    verdict = WATERJUG.validate(DIE_HARD, {"steps": DIE_HARD_PLAN, "explanation": "..."})
    assert verdict.codes == {IssueCode.EXTRA} and verdict.steps_applied == 6
    text = '{"steps": ["Fill A"], "steps": ["Fill B", "Pour B to A", "Empty A", "Pour B to A", "Fill B", "Pour B to A"]}'
    assert WATERJUG.validate_json(DIE_HARD, text).codes == {IssueCode.DUPLICATE_KEY}


@pytest.mark.parametrize("level", [4, 6])
def test_dropping_any_step_of_a_minimal_plan_fails(level: int) -> None:
    record = WATERJUG.generate(level, 1)
    plan = WATERJUG.solve(record.instance)["steps"]
    for i in range(len(plan)):
        verdict = WATERJUG.validate(record.instance, {"steps": plan[:i] + plan[i + 1 :]})
        assert verdict.codes == {IssueCode.GOAL_NOT_REACHED}, i


@pytest.mark.parametrize("level", [3, 5])
def test_replaced_and_swapped_steps_agree_with_an_independent_simulator(level: int) -> None:
    record = WATERJUG.generate(level, 2)
    a, b, g = record.instance["capacities"]["A"], record.instance["capacities"]["B"], record.instance["target"]
    plan = WATERJUG.solve(record.instance)["steps"]
    variants = [plan[:i] + [action] + plan[i + 1 :] for i in range(len(plan)) for action in ACTIONS]
    variants += [plan[:i] + [plan[i + 1], plan[i]] + plan[i + 2 :] for i in range(len(plan) - 1)]
    rejected = 0
    for variant in variants:
        verdict = WATERJUG.validate(record.instance, {"steps": variant})
        assert verdict.ok == (g in simulate(variant, a, b))
        rejected += not verdict.ok
    assert rejected > len(variants) // 2


def test_params_raise_config_error() -> None:
    for bad in ({"max_capacity": 2}, {"max_capacity": 1001}, {"min_steps": 1}, {"min_steps": 6, "max_steps": 5}):
        with pytest.raises(ParamError):
            WaterJugParams(**bad)
    with pytest.raises(ParamError, match="max_capacity"):
        WATERJUG.generate(params={"max_capacity": 10.0})
    with pytest.raises(ParamError, match="no target"):
        WATERJUG.generate(params={"max_capacity": 10, "min_steps": 30, "max_steps": 40})
    assert WATERJUG.generate(params={"max_capacity": 5, "min_steps": 6, "max_steps": 6}).meta["min_solution_length"] == 6


def test_render_shows_capacities_and_target() -> None:
    text = WATERJUG.render(DIE_HARD)
    assert "jug A: capacity 3" in text and "jug B: capacity 5" in text and "exactly 4" in text
    assert "Pour B to A" in text


@settings(max_examples=300)
@given(answers_with_field("steps"))
def test_validate_never_raises_on_arbitrary_json(answer: object) -> None:
    verdict = WATERJUG.validate(DIE_HARD, answer)
    assert verdict.ok == (not verdict.issues)


@settings(max_examples=300)
@given(st.lists(st.sampled_from(ACTIONS) | st.sampled_from(["fill A", "Pour A->B"]) | JSON_VALUES, max_size=12))
def test_near_valid_plans_pass_exactly_when_well_formed_and_reaching_the_target(steps: list) -> None:
    verdict = WATERJUG.validate(DIE_HARD, {"steps": steps})
    bad = [i for i, s in enumerate(steps) if not (type(s) is str and s in ACTIONS)]
    assert verdict.ok == (not bad and 4 in simulate(steps, 3, 5))
    assert verdict.first_illegal_step == (bad[0] if bad else None)
