"""River crossing: minimal-trip table, count abstraction vs labelled BFS, every illegal trip rejected."""

from __future__ import annotations

import itertools
from collections import deque

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from puzzles import IssueCode, ParamError
from puzzles.river import RiverCrossing, count_plan, min_capacity

from .strategies import JSON_VALUES, answers_with_field

RIVER = RiverCrossing()


def instance(pairs: int, capacity: int) -> dict:
    return {"pairs": pairs, "capacity": capacity, "people": [f"{r}_{i}" for i in range(1, pairs + 1) for r in "Aa"]}


def first_issue(verdict) -> tuple[IssueCode, int | None, int | None]:
    return verdict.issues[0].code, verdict.first_illegal_step, verdict.steps_applied


# puzzle-families.md §3: minimal one-way trips (None: unsolvable)
TABLE = [
    (1, 1, None), (1, 2, 1), (2, 2, 5), (2, 3, 3), (2, 4, 1), (3, 2, 11), (3, 3, 5), (3, 4, 3), (3, 5, 3),
    (4, 2, None), (4, 3, 9), (4, 4, 5), (4, 5, 3), (5, 2, None), (5, 3, 11), (5, 4, 7), (5, 5, 5),
    (6, 3, None), (6, 4, 9), (6, 5, 7), (7, 3, None), (7, 4, 11), (7, 5, 7), (8, 4, 13), (9, 4, 15),
    (10, 4, 17), (10, 5, 13), (50, 4, 97), (100, 4, 197), (100, 6, 99),
]  # fmt: skip


@pytest.mark.parametrize(("pairs", "capacity", "trips"), TABLE)
def test_minimal_trip_table(pairs: int, capacity: int, trips: int | None) -> None:
    plan = count_plan(pairs, capacity)
    assert (None if plan is None else len(plan)) == trips
    if plan is not None:
        answer = RIVER.solve(instance(pairs, capacity))
        assert len(answer["trips"]) == trips
        assert RIVER.validate(instance(pairs, capacity), answer).ok


def test_minimum_capacity() -> None:
    assert [min_capacity(n) for n in range(1, 13)] == [2, 2, 2, 3, 3, 4, 4, 4, 4, 4, 4, 4]
    assert min_capacity(100) == 4


def labelled_bfs(pairs: int, capacity: int) -> int | None:
    """Plain BFS over labelled states with the paper's checks, independent of the module's code."""

    def safe(group: frozenset[tuple[str, int]]) -> bool:
        husbands = {i for role, i in group if role == "A"}
        return not husbands or all(i in husbands for role, i in group if role == "a")

    everyone = frozenset((role, i) for i in range(1, pairs + 1) for role in "Aa")
    start, seen = (everyone, 0), {(everyone, 0)}
    queue = deque([(start, 0)])
    while queue:
        (left, side), depth = queue.popleft()
        if not left:
            return depth
        bank = left if side == 0 else everyone - left
        for size in range(1, capacity + 1):
            for boat in map(frozenset, itertools.combinations(sorted(bank), size)):
                new_left = left - boat if side == 0 else left | boat
                state = (new_left, 1 - side)
                if safe(boat) and safe(new_left) and safe(everyone - new_left) and state not in seen:
                    seen.add(state)
                    queue.append((state, depth + 1))
    return None


@pytest.mark.parametrize(("pairs", "capacity"), [(n, k) for n in (1, 2, 3) for k in (1, 2, 3, 4)] + [(4, 2), (4, 3)])
def test_count_abstraction_matches_labelled_bfs(pairs: int, capacity: int) -> None:
    plan = count_plan(pairs, capacity)
    assert (None if plan is None else len(plan)) == labelled_bfs(pairs, capacity)


@pytest.mark.parametrize("level", range(1, 7))
def test_reference_answer_validates_on_every_level(level: int) -> None:
    for seed in range(10):
        record = RIVER.generate(level, seed)
        answer = RIVER.solve(record.instance)
        verdict = RIVER.validate(record.instance, answer)
        assert verdict.ok and verdict.steps_applied == len(answer["trips"]) == record.meta["min_solution_length"]
        assert sorted(record.instance["people"]) == sorted(instance(record.instance["pairs"], 1)["people"])


def test_levels_and_determinism() -> None:
    bands = {1: {(2, 2)}, 2: {(3, 2)}, 3: {(4, 3)}, 4: {(5, 3)}, 5: {(6, 4), (7, 4)}, 6: {(8, 4), (9, 4), (10, 4)}}
    for level, allowed in bands.items():
        params = {(r.params["pairs"], r.params["capacity"]) for r in (RIVER.generate(level, s) for s in range(20))}
        assert params <= allowed and (level < 5 or len(params) > 1)
    assert RIVER.generate(6, 3) == RIVER.generate(6, 3)
    orders = {tuple(RIVER.generate(2, s).instance["people"]) for s in range(5)}
    assert len(orders) > 1  # the people list is shuffled per seed
    assert RIVER.generate(params={"pairs": 3, "capacity": 2, "shuffle_people": False}, seed=0).instance == instance(3, 2)
    assert RIVER.generate(6, 0).meta["complexity"] == {"pairs": RIVER.generate(6, 0).params["pairs"], "capacity": 4}


@pytest.mark.parametrize(
    "params",
    [
        {"pairs": 4, "capacity": 2},
        {"pairs": 6, "capacity": 3},
        {"pairs": 1, "capacity": 1},
        {"pairs": 0},
        {"pairs": 101},
        {"capacity": 0},
        {"capacity": 13},
        {"pairs": True},
    ],
)
def test_bad_params_raise(params: dict) -> None:
    with pytest.raises(ParamError):
        RIVER.generate(params=params, seed=0)


def test_unsolvable_message_names_the_minimum() -> None:
    with pytest.raises(ParamError, match="at least 4"):
        RIVER.generate(params={"pairs": 6, "capacity": 3}, seed=0)


# the classic 11-trip plan for three couples and a two-seat boat
CLASSIC = [
    ["a_1", "a_2"], ["a_1"], ["a_1", "a_3"], ["a_1"], ["A_2", "A_3"], ["A_2", "a_2"],
    ["A_1", "A_2"], ["a_3"], ["a_1", "a_2"], ["A_3"], ["A_3", "a_3"],
]  # fmt: skip


def test_classic_eleven_trip_plan_passes() -> None:
    verdict = RIVER.validate(instance(3, 2), {"trips": CLASSIC})
    assert verdict.ok and verdict.steps_applied == 11


@pytest.mark.parametrize(
    ("trip", "code"),
    [
        (["A_3", "a_3"], IssueCode.UNKNOWN_TOKEN),  # unknown label when n = 2
        (["A_1", "A_1"], IssueCode.ILLEGAL_MOVE),  # duplicate: not collapsed to a set
        (["a_1", "a_1"], IssueCode.ILLEGAL_MOVE),
        (["B_1"], IssueCode.UNKNOWN_TOKEN),
        (["A_1 "], IssueCode.UNKNOWN_TOKEN),
        ([" A_2 "], IssueCode.UNKNOWN_TOKEN),
        (["A1"], IssueCode.UNKNOWN_TOKEN),
        (["A_01"], IssueCode.UNKNOWN_TOKEN),
        ([1], IssueCode.UNKNOWN_TOKEN),
        ([None], IssueCode.UNKNOWN_TOKEN),
        ([["A_1"]], IssueCode.UNKNOWN_TOKEN),
        ([], IssueCode.ILLEGAL_MOVE),  # empty boat
        (["A_1", "a_1", "A_2"], IssueCode.ILLEGAL_MOVE),  # over capacity 2
        (["A_1", "a_2"], IssueCode.ILLEGAL_MOVE),  # unsafe boat group (banks stay safe)
        (["A_1"], IssueCode.ILLEGAL_MOVE),  # leaves a_1 with A_2 on the left bank
        ("A_1", IssueCode.MALFORMED),
        ({"A_1": 1}, IssueCode.MALFORMED),
    ],
)
def test_first_trip_rejections(trip: object, code: IssueCode) -> None:
    assert first_issue(RIVER.validate(instance(2, 2), {"trips": [trip]})) == (code, 0, 0)


def test_case_matters() -> None:
    # 'a_1' is the wife, 'A_1' the husband: sending her back leaves her with A_2
    back_wife = RIVER.validate(instance(2, 2), {"trips": [["A_1", "a_1"], ["a_1"]]})
    assert first_issue(back_wife) == (IssueCode.ILLEGAL_MOVE, 1, 1)
    back_husband = RIVER.validate(instance(2, 2), {"trips": [["A_1", "a_1"], ["A_1"]]})
    assert back_husband.codes == {IssueCode.GOAL_NOT_REACHED} and back_husband.steps_applied == 2


def test_unsafe_boat_is_reported_as_such() -> None:
    # From a safe bank, an unsafe boat always also makes the arrival bank unsafe (a_2 lands with A_1
    # while A_2 stays behind), so the boat check only sharpens the message; it must come first.
    verdict = RIVER.validate(instance(3, 2), {"trips": [*CLASSIC[:4], ["A_3", "a_1"]]})
    assert first_issue(verdict) == (IssueCode.ILLEGAL_MOVE, 4, 4) and "boat group" in verdict.issues[0].message


def test_passenger_not_on_the_boats_bank() -> None:
    verdict = RIVER.validate(instance(2, 2), {"trips": [["A_1", "a_1"], ["A_2"]]})
    assert first_issue(verdict) == (IssueCode.ILLEGAL_MOVE, 1, 1) and "bank" in verdict.issues[0].message


def test_unsafe_arrival_bank() -> None:
    # A_2 a_2 land next to a_1, whose husband went back: only the arrival bank is unsafe
    verdict = RIVER.validate(instance(3, 2), {"trips": [["A_1", "a_1"], ["A_1"], ["A_2", "a_2"]]})
    assert first_issue(verdict) == (IssueCode.ILLEGAL_MOVE, 2, 2) and "bank is unsafe" in verdict.issues[0].message


def test_goal_not_reached_and_empty_plan() -> None:
    assert RIVER.validate(instance(2, 2), {"trips": CLASSIC[:0]}).codes == {IssueCode.GOAL_NOT_REACHED}
    verdict = RIVER.validate(instance(3, 2), {"trips": CLASSIC[:-1]})
    assert verdict.codes == {IssueCode.GOAL_NOT_REACHED} and verdict.steps_applied == 10 and verdict.first_illegal_step is None


def test_answer_shape() -> None:
    for answer in (None, [], "trips", {"moves": CLASSIC}, {"trips": "A_1"}, {"trips": None}):
        assert RIVER.validate(instance(3, 2), answer).codes == {IssueCode.MALFORMED}
    verdict = RIVER.validate(instance(3, 2), {"trips": CLASSIC, "note": "x"})
    assert verdict.codes == {IssueCode.EXTRA} and verdict.steps_applied == 11


@pytest.mark.parametrize("mutation", ["drop", "duplicate", "swap", "other_couple", "extra_rider", "reverse_tail"])
@pytest.mark.parametrize(("pairs", "capacity"), [(3, 2), (5, 3), (9, 4)])
def test_mutated_reference_is_rejected(pairs: int, capacity: int, mutation: str) -> None:
    trips = RIVER.solve(instance(pairs, capacity))["trips"]
    i = len(trips) // 2
    if mutation == "drop":
        trips = trips[:i] + trips[i + 1 :]
    elif mutation == "duplicate":
        trips = trips[:i] + [trips[i]] + trips[i:]
    elif mutation == "swap":
        trips[i], trips[i + 1] = trips[i + 1], trips[i]
    elif mutation == "other_couple":
        trips[i] = [f"{p[0]}_{int(p[2:]) % pairs + 1}" for p in trips[i]]
    elif mutation == "extra_rider":
        trips[i] = trips[i] + [trips[i][0]]
    else:
        trips = trips[:i] + list(reversed(trips[i:]))
    verdict = RIVER.validate(instance(pairs, capacity), {"trips": trips})
    assert not verdict.ok and verdict.codes <= {IssueCode.ILLEGAL_MOVE, IssueCode.GOAL_NOT_REACHED}


def test_large_instance_is_fast_and_valid() -> None:
    answer = RIVER.solve(instance(100, 4))
    assert len(answer["trips"]) == 197 and RIVER.validate(instance(100, 4), answer).ok


def test_render_shows_banks_and_capacity() -> None:
    text = RIVER.render(instance(2, 3))
    assert "left bank:  A_1 a_1 A_2 a_2" in text and "1..3" in text and "right bank" in text


@settings(max_examples=300)
@given(answers_with_field("trips"))
def test_validate_never_raises_on_arbitrary_json(answer: object) -> None:
    verdict = RIVER.validate(instance(3, 2), answer)
    assert verdict.ok == (not verdict.issues)


NEAR_LABELS = st.sampled_from(["A_1", "a_1", "A_2", "a_2", "A_3", "a_3", "A_4", "a_1 "])


@settings(max_examples=300)
@given(st.lists(st.lists(NEAR_LABELS, max_size=4), max_size=14), st.data())
def test_near_valid_plans_never_raise(trips: list, data: st.DataObject) -> None:
    if trips and data.draw(st.booleans()):
        trips[0] = data.draw(JSON_VALUES)
    verdict = RIVER.validate(instance(3, 2), {"trips": trips})
    assert verdict.ok == (not verdict.issues)
    assert verdict.ok or verdict.first_illegal_step is not None or IssueCode.GOAL_NOT_REACHED in verdict.codes
