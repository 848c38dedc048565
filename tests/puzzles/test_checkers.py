"""Checker Jumping: exact solution lengths, the two solutions found by search, the paper's holes closed."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from puzzles import IssueCode, ParamError
from puzzles.checkers import Checkers, CheckersParams

from .strategies import JSON_VALUES, answers_with_field

CHECKERS = Checkers()


def instance(n: int) -> dict:
    return {"n": n, "board": "R" * n + "_" + "B" * n}


def mirror(moves: list, n: int) -> list:
    """The other solution: reflect the board and swap the colours."""
    return [["B" if c == "R" else "R", 2 * n - i, 2 * n - j] for c, i, j in moves]


def search_solutions(n: int) -> list[list[list]]:
    """Every move sequence from start to goal, by exhaustive search (the move graph is acyclic)."""
    goal = "B" * n + "_" + "R" * n
    found: list[list[list]] = []

    def extend(board: str, path: list[list]) -> None:
        if board == goal:
            found.append(list(path))
        hole = board.index("_")
        for colour, step in (("R", 1), ("B", -1)):
            other = "B" if colour == "R" else "R"
            for source, over in ((hole - step, None), (hole - 2 * step, hole - step)):
                if 0 <= source < len(board) and board[source] == colour and (over is None or board[over] == other):
                    cells = list(board)
                    cells[source], cells[hole] = "_", colour
                    extend("".join(cells), path + [[colour, source, hole]])

    extend(instance(n)["board"], [])
    return found


@pytest.mark.parametrize("level", range(1, 7))
@pytest.mark.parametrize("seed", range(10))
def test_reference_answer_validates_on_every_level(level: int, seed: int) -> None:
    record = CHECKERS.generate(level, seed)
    n = record.instance["n"]
    assert record.instance["board"] == "R" * n + "_" + "B" * n
    assert record.meta["complexity"] == {"n": n}
    verdict = CHECKERS.validate(record.instance, CHECKERS.solve(record.instance))
    assert verdict.ok and verdict.steps_applied == record.meta["min_solution_length"] == (n + 1) ** 2 - 1


def test_level_bands() -> None:
    ns = {level: {CHECKERS.generate(level, seed).instance["n"] for seed in range(20)} for level in range(1, 7)}
    assert ns == {1: {1}, 2: {2}, 3: {3}, 4: {4, 5}, 5: {6, 7, 8}, 6: set(range(10, 16))}


@pytest.mark.parametrize("n", range(1, 16))
def test_solution_length_is_n_times_n_plus_2(n: int) -> None:
    moves = CHECKERS.solve(instance(n))["moves"]
    assert len(moves) == n * (n + 2)  # OEIS A005563: 3, 8, 15, 24, 35, …
    assert sum(abs(j - i) == 2 for _, i, j in moves) == n * n
    assert CHECKERS.validate(instance(n), {"moves": moves}).ok
    assert CHECKERS.validate(instance(n), {"moves": mirror(moves, n)}).ok


def test_small_lengths_match_the_paper() -> None:
    assert [len(CHECKERS.solve(instance(n))["moves"]) for n in range(1, 7)] == [3, 8, 15, 24, 35, 48]
    assert CHECKERS.solve(instance(1))["moves"] == [["R", 0, 1], ["B", 2, 0], ["R", 1, 2]]


@pytest.mark.parametrize("n", range(1, 5))
def test_search_finds_exactly_two_solutions_of_minimal_length(n: int) -> None:
    solutions = search_solutions(n)
    assert len(solutions) == 2
    assert {len(s) for s in solutions} == {(n + 1) ** 2 - 1}
    reference = CHECKERS.solve(instance(n))["moves"]
    assert sorted(solutions) == sorted([reference, mirror(reference, n)])
    assert all(CHECKERS.validate(instance(n), {"moves": s}).ok for s in solutions)


@pytest.mark.parametrize(
    ("move", "code"),
    [
        (["X", 2, 3], IssueCode.UNKNOWN_TOKEN),  # the paper's Alg. 2 treats any non-R token as blue
        (["r", 2, 3], IssueCode.UNKNOWN_TOKEN),
        (["R ", 2, 3], IssueCode.UNKNOWN_TOKEN),
        ([1, 2, 3], IssueCode.UNKNOWN_TOKEN),  # the paper's internal encoding R → 1
        (["R", True, 3], IssueCode.BAD_VALUE),
        (["R", 2, 3.0], IssueCode.BAD_VALUE),
        (["R", "2", 3], IssueCode.BAD_VALUE),
        (["R", -5, 3], IssueCode.BAD_VALUE),  # board[-5] would wrap to a red checker
        (["B", 7, 5], IssueCode.BAD_VALUE),
        (["B", 4, -1], IssueCode.BAD_VALUE),
        (["B", 2, 3], IssueCode.ILLEGAL_MOVE),  # cell 2 holds R
        (["R", 3, 4], IssueCode.ILLEGAL_MOVE),  # cell 3 is empty
        (["R", 2, 2], IssueCode.ILLEGAL_MOVE),
        (["R", 2, 4], IssueCode.ILLEGAL_MOVE),  # destination occupied
        (["R", 1, 3], IssueCode.ILLEGAL_MOVE),  # jump over own colour: passes the paper's Alg. 2
        (["B", 5, 3], IssueCode.ILLEGAL_MOVE),
        (["R", 0, 3], IssueCode.ILLEGAL_MOVE),  # three cells
        (["R", 2], IssueCode.MALFORMED),
        (["R", 2, 3, 0], IssueCode.MALFORMED),
        ("R 2 3", IssueCode.MALFORMED),
        ({"colour": "R", "from": 2, "to": 3}, IssueCode.MALFORMED),
    ],
)
def test_first_move_rejections(move: object, code: IssueCode) -> None:
    verdict = CHECKERS.validate(instance(3), {"moves": [move]})
    assert [issue.code for issue in verdict.issues] == [code]
    assert verdict.first_illegal_step == 0 and verdict.steps_applied == 0


@pytest.mark.parametrize(
    "moves",
    [
        [["R", 2, 3], ["R", 3, 2]],  # red moving left
        [["R", 2, 3], ["B", 4, 2], ["B", 2, 4]],  # blue moving right
        [["R", 2, 3], ["R", 0, 2]],  # jump over own colour later in the plan
    ],
)
def test_later_illegal_moves_report_step_and_progress(moves: list) -> None:
    verdict = CHECKERS.validate(instance(3), {"moves": moves})
    last = len(moves) - 1
    assert verdict.codes == {IssueCode.ILLEGAL_MOVE}
    assert verdict.first_illegal_step == last and verdict.steps_applied == last
    assert verdict.issues[0].step == last


def test_incomplete_and_empty_plans_fail() -> None:
    moves = CHECKERS.solve(instance(3))["moves"]
    verdict = CHECKERS.validate(instance(3), {"moves": moves[:-1]})
    assert verdict.codes == {IssueCode.GOAL_NOT_REACHED} and verdict.steps_applied == 14
    assert verdict.first_illegal_step is None
    assert CHECKERS.validate(instance(3), {"moves": []}).codes == {IssueCode.GOAL_NOT_REACHED}


def test_no_move_leaves_the_goal() -> None:
    moves = CHECKERS.solve(instance(2))["moves"]
    for extra in (["B", 1, 2], ["R", 3, 2], ["R", 3, 4], ["B", 0, 2]):
        verdict = CHECKERS.validate(instance(2), {"moves": moves + [extra]})
        assert verdict.codes == {IssueCode.ILLEGAL_MOVE} and verdict.first_illegal_step == 8


@pytest.mark.parametrize(
    "answer",
    [None, [], "moves", 3, {}, {"Moves": []}, {"moves": None}, {"moves": "R 2 3"}, {"moves": {"0": ["R", 2, 3]}}],
)
def test_malformed_answers(answer: object) -> None:
    verdict = CHECKERS.validate(instance(3), answer)
    assert verdict.codes == {IssueCode.MALFORMED} and verdict.steps_applied is None


def test_extra_field_and_duplicate_key_fail_a_correct_plan() -> None:
    moves = CHECKERS.solve(instance(1))["moves"]
    verdict = CHECKERS.validate(instance(1), {"moves": moves, "note": "done"})
    assert verdict.codes == {IssueCode.EXTRA} and verdict.steps_applied == 3
    text = '{"moves": [["R",0,1],["B",2,0],["R",1,2]], "moves": [["R",0,1],["B",2,0],["R",1,2]]}'
    assert CHECKERS.validate_json(instance(1), text).codes == {IssueCode.DUPLICATE_KEY}


@pytest.mark.parametrize("mutation", ["drop", "duplicate", "swap", "colour"])
@pytest.mark.parametrize("n", [3, 6, 10])
def test_mutated_reference_is_rejected(n: int, mutation: str) -> None:
    moves = CHECKERS.solve(instance(n))["moves"]
    i = len(moves) // 2
    if mutation == "drop":
        moves = moves[:i] + moves[i + 1 :]
    elif mutation == "duplicate":
        moves = moves[:i] + [moves[i]] + moves[i:]
    elif mutation == "swap":
        moves[i], moves[i + 1] = moves[i + 1], moves[i]
    else:
        moves[i] = ["B" if moves[i][0] == "R" else "R", *moves[i][1:]]
    verdict = CHECKERS.validate(instance(n), {"moves": moves})
    assert not verdict.ok and verdict.codes <= {IssueCode.ILLEGAL_MOVE, IssueCode.GOAL_NOT_REACHED}


@pytest.mark.parametrize("n", [2, 3])
def test_every_shifted_cell_is_rejected_at_that_step(n: int) -> None:
    """Moving either cell of any move by ±1 is illegal there (several only under the opposing-jump rule)."""
    moves = CHECKERS.solve(instance(n))["moves"]
    for i in range(len(moves)):
        for position in (1, 2):
            for delta in (-1, 1):
                mutated = [list(m) for m in moves]
                mutated[i][position] += delta
                verdict = CHECKERS.validate(instance(n), {"moves": mutated})
                assert verdict.first_illegal_step == i and verdict.steps_applied == i, (i, position, delta)
                assert verdict.codes <= {IssueCode.ILLEGAL_MOVE, IssueCode.BAD_VALUE}


def test_params_and_levels_raise_config_error() -> None:
    for bad in (0, -1, 101):
        with pytest.raises(ParamError):
            CheckersParams(n=bad)
    with pytest.raises(ParamError):
        CHECKERS.generate(params={"n": True})
    with pytest.raises(ParamError):
        CHECKERS.generate(7, 0)
    assert CHECKERS.generate(params={"n": 20}).meta["min_solution_length"] == 440


def test_render_shows_cells_start_and_goal() -> None:
    text = CHECKERS.render(instance(3))
    assert "0 1 2 3 4 5 6" in text and "R R R _ B B B" in text and "B B B _ R R R" in text
    assert "19 20" in CHECKERS.render(instance(10))


@settings(max_examples=300)
@given(answers_with_field("moves"))
def test_validate_never_raises_on_arbitrary_json(answer: object) -> None:
    verdict = CHECKERS.validate(instance(2), answer)
    assert not verdict.ok and verdict.ok == (not verdict.issues)


@settings(max_examples=300)
@given(st.integers(0, 14), st.integers(0, 2), JSON_VALUES | st.integers(-8, 8) | st.sampled_from(["R", "B"]))
def test_near_valid_answers_fail_at_the_changed_move(i: int, position: int, value: object) -> None:
    """At most one checker of a colour can enter the hole, so any other value at step i is illegal there."""
    reference = CHECKERS.solve(instance(3))["moves"]
    moves = [list(m) for m in reference]
    moves[i][position] = value
    verdict = CHECKERS.validate(instance(3), {"moves": moves})
    unchanged = json.dumps(moves) == json.dumps(reference)  # strict: True and 1.0 are not 1
    assert verdict.ok == unchanged
    assert unchanged or (verdict.first_illegal_step == i and verdict.steps_applied == i)
