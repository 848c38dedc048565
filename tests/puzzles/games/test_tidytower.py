"""TidyTower's rules (PuzzlePlex §2.1) with the prompts' hold semantics: their worked example, the setup's top cube,
precise issue codes, the least number of operations against breadth-first search, and the reference against random."""

from __future__ import annotations

from collections import deque

import pytest

from puzzles import IssueCode
from puzzles.games import get_game, play
from puzzles.games.tidytower import COLOURS, plan, turned

GAME = get_game("tidytower")


def state(tower: str) -> dict:
    return {"tower": tower, "operations": None, "to_move": 0, "score": None, "turn": 0, "over": False, "env": "test"}


def test_the_prompts_example_hold_0_turns_the_cubes_above_and_hold_1_the_cube_alone() -> None:
    assert turned("RGBYRGBYBGBGBG", 1, 1, 0) == "RRGBYRGBGRGRGR"
    assert turned("RGBYRGBYBGBGBG", 1, 1, 1) == "RRBYRGBYBGBGBG"
    assert turned("RYBG", 0, 4, 0) == "RYBG" and turned("RYBG", 3, 1, 0) == turned("RYBG", 3, 1, 1) == "RYBR"


def test_an_answer_is_applied_in_order_and_scores_1_only_when_tidy() -> None:
    done = GAME.apply(state("RYRR"), 0, {"operations": [[1, 3, 1]]})
    assert done["tower"] == "RRRR" and GAME.is_over(done) and GAME.outcome(done).scores == (1.0,)
    wrong = GAME.apply(state("RYRR"), 0, {"operations": [[1, 3, 0]]})  # the cubes above turn too: RRGG
    assert wrong["tower"] == "RRGG" and GAME.outcome(wrong).scores == (0.0,)
    empty = GAME.apply(state("RYRR"), 0, {"operations": []})
    assert GAME.is_over(empty) and GAME.outcome(empty).scores == (0.0,)


def _distances(height: int) -> dict[str, int]:
    """The least number of operations for every tower of `height` cubes, by breadth-first search from the tidy ones."""
    distance = {colour * height: 0 for colour in COLOURS}
    queue = deque(distance)
    while queue:
        tower = queue.popleft()
        for cube in range(height):
            for turns in (1, 2, 3):
                for hold in (0, 1):
                    after = turned(tower, cube, turns, hold)
                    if after not in distance:
                        distance[after] = distance[tower] + 1
                        queue.append(after)
    return distance


@pytest.mark.parametrize("height", [2, 3, 6, 7])
def test_the_plan_is_shortest_on_every_tower(height: int) -> None:
    for tower, least in _distances(height).items():
        operations = plan(tower)
        final = tower
        for operation in operations:
            final = turned(final, *operation)
        assert len(set(final)) == 1 and len(operations) == least, tower


def test_the_one_shot_prompts_tower_needs_9_operations_here_not_8() -> None:
    """Its 8-move solution turns blocks of cubes ("hold at position p"), which this action space does not have."""
    assert len(plan("RGBYRGBYBGBGBG")) == 9


def test_the_setup_is_never_tidy_and_meta_holds_the_least_operations() -> None:
    for level in GAME.levels:
        for seed in range(40):
            setup = GAME.setup(level, seed)
            tower, cubes = setup.state["tower"], setup.params["cubes"]
            band = GAME.levels[level]["cubes"]
            low, high = band if isinstance(band, tuple) else (band, band)
            assert len(tower) == cubes and low <= cubes <= high and set(tower) <= set(COLOURS)
            assert tower[-1] == next(c for c in COLOURS if c != tower[-2])
            assert setup.meta["complexity"] == {"cubes": cubes} and setup.meta["min_operations"] == len(plan(tower)) >= 1


@pytest.mark.parametrize(("move", "code"), [
    ({"operations": [[4, 1, 0]]}, IssueCode.BAD_VALUE),  # the tower has cubes 0..3
    ({"operations": [[-1, 1, 0]]}, IssueCode.BAD_VALUE), ({"operations": [[0, 0, 0]]}, IssueCode.BAD_VALUE),
    ({"operations": [[0, 5, 0]]}, IssueCode.BAD_VALUE), ({"operations": [[0, 1, 2]]}, IssueCode.BAD_VALUE),
    ({"operations": [[0, 1, True]]}, IssueCode.BAD_VALUE), ({"operations": [[0, 1.0, 0]]}, IssueCode.BAD_VALUE),
    ({"operations": [["0", 1, 0]]}, IssueCode.BAD_VALUE),
    ({"operations": [[0, 1]]}, IssueCode.MALFORMED), ({"operations": [[0, 1, 0, 0]]}, IssueCode.MALFORMED),
    ({"operations": [0, 1, 0]}, IssueCode.MALFORMED), ({"operations": [[0, 1, 0]] * 1001}, IssueCode.MALFORMED),
    ({"operations": "[[0, 1, 0]]"}, IssueCode.MALFORMED), ({"operations": [], "also": 1}, IssueCode.MALFORMED),
    ([[0, 1, 0]], IssueCode.MALFORMED), (None, IssueCode.MALFORMED),
])
def test_illegal_moves_get_a_precise_issue(move: object, code: IssueCode) -> None:
    verdict = GAME.legal(state("RYBG"), 0, move)
    assert verdict.codes == {code}


def test_the_first_bad_operation_is_named() -> None:
    assert GAME.legal(state("RYBG"), 0, {"operations": [[0, 1, 0], [1, 1, 1], [9, 1, 0]]}).first_illegal_step == 2


def test_nothing_is_hidden() -> None:
    assert GAME.observe(state("RYBG"), 0) == {"tower": "RYBG"}


@pytest.mark.parametrize("level", [1, 2, 3, 4])
def test_the_reference_always_tidies_with_the_fewest_operations(level: int) -> None:
    """Over 50 seeded games per level the reference scores 1 every time, with exactly `min_operations` operations;
    random play (one random operation) measured no tidy tower at any level."""
    solved = 0.0
    for seed in range(50):
        setup = GAME.setup(level, seed)
        record = play(GAME, setup, [("ref", GAME.reference_move)])
        assert record.outcome.scores == (1.0,) and len(record.moves[0]["move"]["operations"]) == setup.meta["min_operations"]
        solved += play(GAME, setup, [("random", GAME.random_move)]).outcome.scores[0]
    assert solved == 0
