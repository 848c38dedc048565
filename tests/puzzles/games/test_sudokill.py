"""SudoKill's rules (PuzzlePlex §2.8): the prompts' two worked examples, the allowed cells (row and column of the last
move, else anywhere; empty even when dead), the loss of a player who cannot move, the setup, the exact 4×4 values,
precise issue codes, and the reference against a random legal player."""

from __future__ import annotations

import math

import pytest

from puzzles import IssueCode
from puzzles.games import LOSS, WIN, get_game, play

GAME = get_game("sudokill")

EXAMPLE = [[6, 8, 4, 5, 1, 3, 2, 7, 9],
           [5, 9, 7, 6, 2, 0, 1, 8, 0],
           [2, 3, 1, 4, 8, 7, 6, 5, 0],
           [9, 1, 2, 7, 6, 4, 8, 0, 3],
           [4, 6, 8, 3, 0, 1, 7, 2, 5],
           [7, 5, 3, 2, 9, 8, 4, 1, 6],
           [8, 4, 5, 1, 3, 2, 9, 6, 7],
           [1, 0, 6, 9, 0, 5, 0, 3, 8],
           [3, 2, 0, 0, 7, 0, 5, 4, 0]]


def state(grid: list[list[int]], last: tuple[int, int] | None = None, to_move: int = 0) -> dict:
    last_move = None if last is None else {"row": last[0], "col": last[1], "value": grid[last[0]][last[1]]}
    return {"grid": [list(row) for row in grid], "last_move": last_move, "to_move": to_move, "winner": None, "turn": 0,
            "over": False, "env": "test"}


def cells(position: dict) -> set[tuple[int, int]]:
    return {(m["row"], m["col"]) for m in GAME.legal_moves(GAME.observe(position, position["to_move"]), position["to_move"])}


def test_the_first_example_after_0_8_only_column_8_is_open() -> None:
    position = state(EXAMPLE, last=(0, 8))
    assert cells(position) == {(1, 8), (8, 8)}  # row 0 is full; (2, 8) is open too, but no value fits there
    assert "already in" in GAME.legal(position, 0, {"row": 2, "col": 8, "value": 9}).issues[0].message
    assert "neither in row 0 nor in column 8" in GAME.legal(position, 0, {"row": 1, "col": 5, "value": 3}).issues[0].message


def test_the_second_example_1_8_gets_4_and_the_opponent_is_stuck() -> None:
    grid = [list(row) for row in EXAMPLE]
    grid[8][8] = 1
    position = state(grid, last=(0, 8))
    assert GAME.legal_moves(GAME.observe(position, 0), 0) == [{"row": 1, "col": 8, "value": 4}]
    assert GAME.reference_move(GAME, GAME.observe(position, 0), 0, None) == {"row": 1, "col": 8, "value": 4}
    after = GAME.apply(position, 0, {"row": 1, "col": 8, "value": 4})
    assert GAME.is_over(after) and GAME.outcome(after).results == (WIN, LOSS)  # (1, 5) and (2, 8) are empty but dead


def test_with_the_last_row_and_column_full_every_empty_cell_is_open() -> None:
    position = state(EXAMPLE, last=(0, 0))  # row 0 and column 0 are full
    assert cells(position) == {(1, 8), (7, 1), (7, 4), (8, 2), (8, 3), (8, 5), (8, 8)}  # (1, 5), (2, 8), (3, 7), (4, 4), (7, 6) are dead
    assert GAME.legal(position, 0, {"row": 7, "col": 1, "value": 7}).ok


def test_a_value_already_in_the_box_is_refused() -> None:
    grid = [[1, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]
    assert GAME.legal(state(grid), 0, {"row": 1, "col": 1, "value": 1}).codes == {IssueCode.ILLEGAL_MOVE}
    assert GAME.legal(state(grid), 0, {"row": 2, "col": 2, "value": 1}).ok


def test_filling_the_last_cell_wins() -> None:
    grid = [[1, 2, 3, 4], [3, 4, 1, 2], [2, 1, 4, 3], [4, 3, 2, 0]]
    done = GAME.apply(state(grid), 0, {"row": 3, "col": 3, "value": 1})
    assert GAME.is_over(done) and GAME.outcome(done).results == (WIN, LOSS) and GAME.to_move(done) is None


def test_the_setup_blanks_a_valid_grid() -> None:
    for level, band in GAME.levels.items():
        for seed in range(20):
            setup = GAME.setup(level, seed)
            grid, size = setup.state["grid"], band["size"]
            box = math.isqrt(size)
            low, high = band["blanks"]
            assert low <= sum(row.count(0) for row in grid) <= high and len(grid) == size
            units = [row for row in grid] + [[grid[r][c] for r in range(size)] for c in range(size)]
            units += [[grid[r][c] for r in range(top, top + box) for c in range(left, left + box)]
                      for top in range(0, size, box) for left in range(0, size, box)]
            assert all(len([v for v in unit if v]) == len({v for v in unit if v}) for unit in units)
            assert setup.meta["complexity"] == {"size": size, "blanks": sum(row.count(0) for row in grid)}


def _wins(position: dict, memo: dict) -> bool:
    """Plain negamax through the game's own legal_moves and apply: an independent check of the engine's solver."""
    key = (str(position["grid"]), str(position["last_move"]))
    if key not in memo:
        player = position["to_move"]
        memo[key] = any(GAME.is_over(after) or not _wins(after, memo)
                        for move in GAME.legal_moves(GAME.observe(position, player), player)
                        for after in [GAME.apply(position, player, move)])
    return memo[key]


def test_the_exact_4x4_values_agree_with_a_plain_search() -> None:
    values = [GAME.setup(1, seed).meta["first_player_wins"] for seed in range(12)]
    assert values == [_wins(GAME.setup(1, seed).state, {}) for seed in range(12)]
    assert True in values and False in values


@pytest.mark.parametrize(("move", "code"), [
    ({"row": 1, "col": 5, "value": 3}, IssueCode.ILLEGAL_MOVE),  # neither in row 0 nor in column 8
    ({"row": 0, "col": 0, "value": 1}, IssueCode.ILLEGAL_MOVE),  # filled
    ({"row": 8, "col": 8, "value": 9}, IssueCode.ILLEGAL_MOVE),  # 9 is in column 8
    ({"row": 1, "col": 8, "value": 1}, IssueCode.ILLEGAL_MOVE),  # 1 is in row 1
    ({"row": 9, "col": 8, "value": 1}, IssueCode.BAD_VALUE), ({"row": 1, "col": -1, "value": 1}, IssueCode.BAD_VALUE),
    ({"row": 1, "col": 8, "value": 0}, IssueCode.BAD_VALUE), ({"row": 1, "col": 8, "value": 10}, IssueCode.BAD_VALUE),
    ({"row": "1", "col": 8, "value": 4}, IssueCode.BAD_VALUE), ({"row": 1, "col": 8.0, "value": 4}, IssueCode.BAD_VALUE),
    ({"row": 1, "col": 8, "value": True}, IssueCode.BAD_VALUE),
    ([[1, 8], 4], IssueCode.MALFORMED), ({"cell": [1, 8], "value": 4}, IssueCode.MALFORMED),
    ({"row": 1, "col": 8}, IssueCode.MALFORMED), ({"row": 1, "col": 8, "value": 4, "also": 1}, IssueCode.MALFORMED),
    (None, IssueCode.MALFORMED),
])
def test_illegal_moves_get_a_precise_issue(move: object, code: IssueCode) -> None:
    assert GAME.legal(state(EXAMPLE, last=(0, 8)), 0, move).codes == {code}


def test_nothing_is_hidden() -> None:
    position = state(EXAMPLE, last=(0, 8), to_move=1)
    assert GAME.observe(position, 1) == {"grid": EXAMPLE, "opponent_last_move": {"row": 0, "col": 8, "value": 9}}


@pytest.mark.parametrize(("level", "floor"), [(1, (44, 39)), (2, (48, 47))])
def test_the_reference_beats_a_random_legal_player(level: int, floor: tuple[int, int]) -> None:
    """Over 50 seeded games in each seat (measured: 45/50 first and 40/50 second at level 1, where the reference is
    exact: it wins all 30 first seats and 20 second seats won from the start, and loses only seats lost from the
    start that random plays right; 49 and 48 at level 2)."""
    wins = [0, 0]
    for seed in range(50):
        setup = GAME.setup(level, seed)
        wins[0] += play(GAME, setup, [("ref", GAME.reference_move), ("random", GAME.random_move)]).outcome.scores[0]
        wins[1] += play(GAME, setup, [("random", GAME.random_move), ("ref", GAME.reference_move)]).outcome.scores[1]
    assert wins[0] >= floor[0] and wins[1] >= floor[1], wins
