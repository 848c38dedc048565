"""BeatOrBombSto's rules (PuzzlePlex §2.12): the deal, the round's scoring, the simultaneous choice as two turns that
hide the first from the second, the hidden hands, precise issue codes, and the reference against a random player
and PuzzlePlex's custom baselines."""

from __future__ import annotations

import random

import pytest

from puzzles import IssueCode
from puzzles.games import DRAW, LOSS, WIN, get_game, play
from puzzles.games.beatorbomb import RANKS, VALUE, _deals, _maximin

GAME = get_game("beatorbombsto")


def state(first: list[str], second: list[str], scores: tuple[int, int] = (0, 0)) -> dict:
    total = sum(VALUE[card] for card in first)
    return {"hands": [first, second], "total": total, "scores": list(scores), "pending": None, "rounds": [], "to_move": 0,
            "turn": 0, "over": False, "env": "beatorbombsto|test"}


def round_of(position: dict, first: tuple[str, str], second: tuple[str, str]) -> dict:
    position = GAME.apply(position, 0, {"card": first[0], "action": first[1]})
    return GAME.apply(position, 1, {"card": second[0], "action": second[1]})


@pytest.mark.parametrize(("first", "second", "points"), [
    (("K", "compete"), ("5", "compete"), [18, 0]),  # the higher card scores both
    (("5", "compete"), ("K", "compete"), [0, 18]),
    (("5", "compete"), ("5", "compete"), [0, 0]),  # equal cards score nothing
    (("5", "compete"), ("K", "give up"), [5, 0]),  # one competes: its own card's value
    (("5", "give up"), ("K", "compete"), [0, 13]),
    (("K", "give up"), ("5", "give up"), [0, 0]),
])
def test_a_rounds_points(first: tuple[str, str], second: tuple[str, str], points: list[int]) -> None:
    after = round_of(state(["5", "K"], ["5", "K"]), first, second)
    assert after["scores"] == points and after["rounds"][0]["points"] == points
    assert after["hands"] == [[card for card in ("5", "K") if card != first[0]], [card for card in ("5", "K") if card != second[0]]]


def test_the_spec_example_and_the_end() -> None:
    """The code prompt's example: 5 competes, the opponent gives up a 3: 5 points to 0; the higher total wins."""
    position = round_of(state(["2", "5", "K"], ["3", "4", "K"]), ("5", "compete"), ("3", "give up"))
    assert position["scores"] == [5, 0] and not GAME.is_over(position)
    position = round_of(position, ("2", "give up"), ("K", "compete"))
    end = round_of(position, ("K", "compete"), ("4", "compete"))
    assert end["scores"] == [22, 13] and GAME.is_over(end) and GAME.outcome(end).results == (WIN, LOSS)
    tie = round_of(state(["5"], ["5"]), ("5", "compete"), ("5", "compete"))
    assert GAME.is_over(tie) and GAME.outcome(tie).results == (DRAW, DRAW)


def test_the_deal_gives_two_different_hands_of_distinct_ranks_and_equal_totals() -> None:
    for level in GAME.levels:
        low, high = GAME.levels[level]["cards"]
        for seed in range(40):
            setup = GAME.setup(level, seed)
            first, second = setup.state["hands"]
            assert low <= len(first) == len(second) <= high and first != second
            assert len(set(first)) == len(first) and len(set(second)) == len(second) and set(first) | set(second) <= set(RANKS)
            assert sum(map(VALUE.get, first)) == sum(map(VALUE.get, second)) == setup.state["total"] == setup.meta["hand_total"]
            assert setup.meta["complexity"] == {"cards": len(first)}


def test_no_deal_of_twelve_exists() -> None:
    """PuzzlePlex's normal level drew 9–12 cards; with 12 no two hands share a total and its generator raised."""
    assert all(len(group) == 1 for group in _deals(12)) and any(len(group) > 1 for group in _deals(11))


def _positions(seeds: int) -> list[dict]:
    """States with seat 1 to choose, seat 0's choice pending, a few random rounds into seeded games."""
    found = []
    for seed in range(seeds):
        for level in GAME.levels:
            position, rng = GAME.setup(level, seed).state, random.Random(seed)
            for _ in range(rng.randrange(len(position["hands"][0])) * 2 + 1):
                player = GAME.to_move(position)
                position = GAME.apply(position, player, GAME.random_move(GAME, GAME.observe(position, player), player, rng))
            found.append(position)
    return found


def test_the_second_chooser_sees_nothing_of_the_first_choice_nor_the_other_hand() -> None:
    for position in _positions(40):
        assert position["to_move"] == 1 and position["pending"] is not None
        seen = GAME.observe(position, 1)
        for card in position["hands"][0]:  # whatever seat 0 chose, and whatever it holds, seat 1 sees the same
            for action in ("compete", "give up"):
                assert GAME.observe({**position, "pending": {"card": card, "action": action}}, 1) == seen
        shuffled = [*reversed(position["hands"][0][1:]), "X"]
        assert GAME.observe({**position, "hands": [shuffled, position["hands"][1]]}, 1) == seen
        after = GAME.apply(position, 1, GAME.legal_moves(seen, 1)[0])  # both are revealed once the round is scored
        revealed = GAME.observe(after, 1)["rounds"][-1]
        assert (revealed["opponent_card"], revealed["opponent_action"]) == (position["pending"]["card"], position["pending"]["action"])


def test_the_observation() -> None:
    position = round_of(state(["2", "5", "K"], ["3", "4", "K"]), ("5", "compete"), ("3", "give up"))
    assert GAME.observe(position, 1) == {
        "my_cards": ["4", "K"], "opponent_cards_left": 2, "hand_total": 20, "my_score": 0, "opponent_score": 5,
        "rounds": [{"my_card": "3", "my_action": "give up", "opponent_card": "5", "opponent_action": "compete"}]}


@pytest.mark.parametrize(("move", "code"), [
    ({"card": "Q", "action": "compete"}, IssueCode.ILLEGAL_MOVE),  # not in the hand
    ({"card": "Z", "action": "compete"}, IssueCode.UNKNOWN_TOKEN), ({"card": "k", "action": "compete"}, IssueCode.UNKNOWN_TOKEN),
    ({"card": "1", "action": "compete"}, IssueCode.UNKNOWN_TOKEN), ({"card": "K", "action": "fold"}, IssueCode.UNKNOWN_TOKEN),
    ({"card": "K", "action": "Compete"}, IssueCode.UNKNOWN_TOKEN), ({"card": "K", "action": " give up"}, IssueCode.UNKNOWN_TOKEN),
    ({"card": 13, "action": "compete"}, IssueCode.BAD_VALUE), ({"card": "K", "action": True}, IssueCode.BAD_VALUE),
    (["K", "compete"], IssueCode.MALFORMED), ({"card": "K"}, IssueCode.MALFORMED), ("K", IssueCode.MALFORMED),
    ({"card": "K", "action": "compete", "also": 1}, IssueCode.MALFORMED), (None, IssueCode.MALFORMED),
])
def test_illegal_moves_get_a_precise_issue(move: object, code: IssueCode) -> None:
    assert GAME.legal(state(["2", "5", "K"], ["3", "4", "K"]), 0, move).codes == {code}


def test_the_matrix_game_solver_finds_the_maximin_strategy() -> None:
    assert _maximin([[1, -1], [-1, 1]]) == pytest.approx([0.5, 0.5])  # matching pennies
    assert _maximin([[3, 0], [5, 1]]) == pytest.approx([0, 1])  # a dominated row
    weights = _maximin([[2, -1, 0], [-1, 1, 3]])
    assert min(sum(w * line[col] for w, line in zip(weights, [[2, -1, 0], [-1, 1, 3]])) for col in range(3)) == pytest.approx(0.2)


def test_the_reference_gives_up_once_giving_up_everything_wins() -> None:
    position = state(["2", "K"], ["6", "9"], scores=(16, 0))
    position["rounds"] = [{"cards": ["J", "A"], "actions": ["compete", "compete"], "points": [12, 0]}]
    move = GAME.reference_move(GAME, GAME.observe(position, 0), 0, random.Random(0))
    assert move["action"] == "give up"


# -- PuzzlePlex's custom baselines -----------------------------------------------------------------------------------
def _easy(game: object, observation: dict, player: int, rng: random.Random) -> dict:
    """A random card, always competing."""
    return {"card": rng.choice(observation["my_cards"]), "action": "compete"}


def _normal(game: object, observation: dict, player: int, rng: random.Random) -> dict:
    """PuzzlePlex's rule list, in order (spec §2.12)."""
    mine, shown = observation["my_cards"], [done["opponent_card"] for done in observation["rounds"]]
    if observation["my_score"] > observation["opponent_score"] + observation["hand_total"] - sum(map(VALUE.get, shown)):
        return {"card": rng.choice(mine), "action": "give up"}
    high, low = max(mine, key=VALUE.get), min(mine, key=VALUE.get)
    if len(mine) == 1 or VALUE[high] > 10:
        return {"card": high, "action": "compete"}
    if VALUE[low] < 5:
        return {"card": low, "action": "give up"}
    unseen = [VALUE[rank] for rank in RANKS if rank not in shown]
    above = [card for card in sorted(mine, key=VALUE.get, reverse=True) if VALUE[card] > sum(unseen) / len(unseen)]
    if above:
        return {"card": above[0], "action": "compete"}
    if observation["my_score"] < observation["opponent_score"]:
        return {"card": high, "action": "compete"}
    return {"card": min(mine, key=lambda card: abs(VALUE[card] - 7)), "action": "compete"}


def _wins(level: int, opponent: object, seeds: int = 50) -> list[float]:
    wins = [0.0, 0.0]
    for seed in range(seeds):
        setup = GAME.setup(level, seed)
        wins[0] += play(GAME, setup, [("ref", GAME.reference_move), ("other", opponent)]).outcome.scores[0]
        wins[1] += play(GAME, setup, [("other", opponent), ("ref", GAME.reference_move)]).outcome.scores[1]
    return wins


@pytest.mark.parametrize(("level", "least"), [(1, 40), (2, 43)])
def test_the_reference_beats_a_random_legal_player(level: int, least: float) -> None:
    """Over 50 seeded games in each seat; equal totals leave luck a large part (measured: 41/50 as first player and
    42/50 as second at level 1, 43.5 and 46.5 at level 2; over 300 other seeds at level 1, 84% and 84%, where
    PuzzlePlex's normal baseline wins 83% and 89%)."""
    assert min(_wins(level, GAME.random_move)) >= least


@pytest.mark.parametrize(("level", "opponent", "least"), [(1, _easy, 22), (1, _normal, 33), (2, _easy, 25), (2, _normal, 39)])
def test_the_reference_holds_its_own_against_puzzleplexs_custom_baselines(level: int, opponent: object, least: float) -> None:
    """Over 50 seeded games in each seat (measured: against the easy baseline 22.5/50 first and 28/50 second at level
    1, 29.5 and 25.5 at level 2; against the normal one 36 and 34 at level 1, 42 and 40 at level 2). These seeds are
    few for a game this lucky: over 300 other seeds at level 1 the reference wins 61.5% and 53% against easy, as the
    normal baseline itself does (61% and 61%), and 56% and 63% against normal."""
    assert min(_wins(level, opponent)) >= least
