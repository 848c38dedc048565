"""Tower of Hanoi: minimal lengths, the paper's validator holes closed, mutations rejected."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from puzzles import IssueCode, get_puzzle

HANOI = get_puzzle("hanoi")


def instance(n: int, start: str = "A", goal: str = "C") -> dict:
    return {"n": n, "pegs": ["A", "B", "C"], "start": start, "goal": goal}


@pytest.mark.parametrize("n", range(1, 16))
def test_solve_is_minimal_and_valid(n: int) -> None:
    answer = HANOI.solve(instance(n))
    assert len(answer["moves"]) == 2**n - 1  # OEIS A000225
    verdict = HANOI.validate(instance(n), answer)
    assert verdict.ok and verdict.steps_applied == 2**n - 1


@pytest.mark.parametrize(
    ("move", "code"),
    [
        ([1, "A", "A"], IssueCode.ILLEGAL_MOVE),  # s == t passes the paper's Alg. 1
        ([True, "A", "C"], IssueCode.BAD_VALUE),  # True == 1 in Python
        ([1.0, "A", "C"], IssueCode.BAD_VALUE),
        ([0, "A", "C"], IssueCode.BAD_VALUE),
        ([4, "A", "C"], IssueCode.BAD_VALUE),
        ([1, "a", "C"], IssueCode.UNKNOWN_TOKEN),
        ([1, 0, 2], IssueCode.UNKNOWN_TOKEN),
        ([2, "A", "C"], IssueCode.ILLEGAL_MOVE),  # not the top disk
        ([1, "B", "C"], IssueCode.ILLEGAL_MOVE),  # empty source
        ([1, "A"], IssueCode.MALFORMED),
        ("1 A C", IssueCode.MALFORMED),
    ],
)
def test_first_move_rejections(move: object, code: IssueCode) -> None:
    verdict = HANOI.validate(instance(3), {"moves": [move]})
    assert not verdict.ok
    assert verdict.issues[0].code == code
    assert verdict.first_illegal_step == 0 and verdict.steps_applied == 0


def test_larger_on_smaller_reports_step_and_progress() -> None:
    verdict = HANOI.validate(instance(3), {"moves": [[1, "A", "C"], [2, "A", "C"]]})
    assert verdict.codes == {IssueCode.ILLEGAL_MOVE}
    assert verdict.first_illegal_step == 1 and verdict.steps_applied == 1


def test_leaving_the_goal_and_empty_plans_fail() -> None:
    moves = HANOI.solve(instance(2))["moves"]
    assert HANOI.validate(instance(2), {"moves": moves + [[1, "C", "B"]]}).codes == {IssueCode.GOAL_NOT_REACHED}
    assert HANOI.validate(instance(2), {"moves": []}).codes == {IssueCode.GOAL_NOT_REACHED}


def test_suboptimal_legal_plan_passes() -> None:
    moves = [[1, "A", "B"], [1, "B", "A"]] + HANOI.solve(instance(3))["moves"]
    assert HANOI.validate(instance(3), {"moves": moves}).ok


def test_random_pegs_are_honoured() -> None:
    record = HANOI.generate(params={"n": 6, "random_pegs": True}, seed=4)
    assert record.instance["start"] != record.instance["goal"]
    assert HANOI.validate(record.instance, HANOI.solve(record.instance)).ok


@pytest.mark.parametrize("mutation", ["drop", "duplicate", "swap"])
@pytest.mark.parametrize("n", [3, 6, 9])
def test_mutated_reference_is_rejected(n: int, mutation: str) -> None:
    moves = HANOI.solve(instance(n))["moves"]
    i = len(moves) // 2
    if mutation == "drop":
        moves = moves[:i] + moves[i + 1 :]
    elif mutation == "duplicate":
        moves = moves[:i] + [moves[i]] + moves[i:]
    else:
        moves[i], moves[i + 1] = moves[i + 1], moves[i]
    verdict = HANOI.validate(instance(n), {"moves": moves})
    assert not verdict.ok and verdict.codes <= {IssueCode.ILLEGAL_MOVE, IssueCode.GOAL_NOT_REACHED}


@settings(max_examples=300)
@given(st.lists(st.tuples(st.integers(-1, 5), st.sampled_from(["A", "B", "C", "D"]), st.sampled_from(["A", "B", "C"]))))
def test_random_plans_never_raise(moves: list) -> None:
    verdict = HANOI.validate(instance(3), {"moves": [list(m) for m in moves]})
    assert verdict.ok == (not verdict.issues)
