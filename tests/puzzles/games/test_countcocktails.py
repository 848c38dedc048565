"""CountMaximalCocktails' rules (PuzzlePlex §2.3) with "maximal cocktail" read as the instruction prompt says (a maximum
independent set): the prompts' example, the two readings apart, duplicates refused, precise issue codes, the solver
against brute force, and the reference against random play."""

from __future__ import annotations

import random

import pytest

from puzzles import IssueCode
from puzzles.games import get_game, play
from puzzles.games.countcocktails import cocktails

GAME = get_game("countmaximalcocktails")


def state(drugs: int, interactions: list[list[int]], answer: str) -> dict:
    return {"drugs": drugs, "interactions": interactions, "answer": answer, "given": None, "to_move": 0, "score": None,
            "turn": 0, "over": False, "env": "test"}


def score(position: dict, move: dict) -> float:
    return GAME.outcome(GAME.apply(position, 0, move)).scores[0]


def test_the_prompts_example_drugs_1_to_4_with_1_2_apart_has_two_cocktails() -> None:
    assert cocktails(4, ((1, 2),)) == (((1, 3, 4), (2, 3, 4)), 2)
    assert score(state(4, [[1, 2]], "count"), {"count": 2}) == 1.0
    assert score(state(4, [[1, 2]], "count"), {"count": 3}) == 0.0
    listing = state(4, [[1, 2]], "list")
    assert score(listing, {"cocktails": [[1, 3, 4], [2, 3, 4]]}) == 1.0
    assert score(listing, {"cocktails": [[4, 3, 2], [3, 1, 4]]}) == 1.0  # any order, of the cocktails or inside one
    assert score(listing, {"cocktails": [[1, 3, 4]]}) == 0.0 and score(listing, {"cocktails": []}) == 0.0
    assert score(listing, {"cocktails": [[1, 3, 4], [2, 3, 4], [3, 4]]}) == 0.0


def test_maximal_means_maximum_not_inclusion_maximal() -> None:
    """On the path 1–2–3, {2} cannot grow, but only {1, 3} is of the largest size."""
    assert cocktails(3, ((1, 2), (2, 3))) == (((1, 3),), 2)
    assert score(state(3, [[1, 2], [2, 3]], "count"), {"count": 1}) == 1.0
    assert score(state(3, [[1, 2], [2, 3]], "list"), {"cocktails": [[1, 3], [2]]}) == 0.0


def test_puzzleplexs_seeds_1_to_10_tell_the_two_readings_apart_on_6() -> None:
    """PuzzlePlex's generator replayed (random.seed(s) is Random(s)): seed 1 has 1 maximum and 4 inclusion-maximal
    cocktails, as the spec says; in all the counts differ on 6 of the 10 seeds (the spec says 7)."""
    counts = []
    for seed in range(1, 11):
        rng = random.Random(seed)
        drugs = rng.randint(3, 10)
        pairs = [(i, j) for i in range(1, drugs + 1) for j in range(i + 1, drugs + 1)]
        largest, maximal = cocktails(drugs, tuple(rng.sample(pairs, rng.randint(0, len(pairs) // 2))))
        counts.append((len(largest), maximal))
    assert counts[0] == (1, 4) and sum(a != b for a, b in counts) == 6


def test_the_solver_agrees_with_brute_force() -> None:
    rng = random.Random(3)
    for _ in range(200):
        drugs = rng.randint(1, 11)
        pairs = [(i, j) for i in range(1, drugs + 1) for j in range(i + 1, drugs + 1)]
        interactions = tuple(rng.sample(pairs, rng.randint(0, len(pairs))))
        safe = [frozenset(d + 1 for d in range(drugs) if mask >> d & 1) for mask in range(1 << drugs)]
        safe = [s for s in safe if not any(u in s and v in s for u, v in interactions)]
        size = max(map(len, safe))
        largest, maximal = cocktails(drugs, interactions)
        assert list(largest) == sorted(tuple(sorted(s)) for s in safe if len(s) == size)
        assert maximal == sum(1 for s in safe if not any(s < t for t in safe))


def test_the_setup_draws_as_puzzleplex_and_meta_holds_the_answer() -> None:
    for level in GAME.levels:
        for seed in range(30):
            setup = GAME.setup(level, seed)
            drugs, interactions = setup.state["drugs"], setup.state["interactions"]
            low, high = GAME.levels[level]["drugs"]
            assert low <= drugs <= high and setup.state["answer"] == GAME.levels[level]["answer"]
            assert len(interactions) <= drugs * (drugs - 1) // 4 and all(1 <= u < v <= drugs for u, v in interactions)
            assert len({tuple(e) for e in interactions}) == len(interactions)
            largest, maximal = cocktails(drugs, tuple(map(tuple, interactions)))
            assert setup.meta == {"version": 1, "complexity": {"drugs": drugs, "interactions": len(interactions)},
                                  "count": len(largest), "size": len(largest[0]), "maximal_count": maximal}


@pytest.mark.parametrize(("answer", "move", "code"), [
    ("count", {"count": -1}, IssueCode.BAD_VALUE), ("count", {"count": "2"}, IssueCode.BAD_VALUE),
    ("count", {"count": 2.0}, IssueCode.BAD_VALUE), ("count", {"count": True}, IssueCode.BAD_VALUE),
    ("count", {"cocktails": [[1, 3, 4]]}, IssueCode.MALFORMED), ("count", 2, IssueCode.MALFORMED),
    ("count", {"count": 2, "also": 1}, IssueCode.MALFORMED),
    ("list", {"cocktails": [[1, 3, 4], [4, 3, 1]]}, IssueCode.ILLEGAL_MOVE),  # the same cocktail twice
    ("list", {"cocktails": [[1, 3, 3]]}, IssueCode.ILLEGAL_MOVE),  # a drug twice in one cocktail
    ("list", {"cocktails": [[5]]}, IssueCode.BAD_VALUE), ("list", {"cocktails": [[0]]}, IssueCode.BAD_VALUE),
    ("list", {"cocktails": [["1"]]}, IssueCode.BAD_VALUE), ("list", {"cocktails": [[1.0]]}, IssueCode.BAD_VALUE),
    ("list", {"cocktails": [[[1]]]}, IssueCode.BAD_VALUE),
    ("list", {"cocktails": [1, 3, 4]}, IssueCode.MALFORMED), ("list", {"cocktails": {"1": [1]}}, IssueCode.MALFORMED),
    ("list", {"count": 2}, IssueCode.MALFORMED), ("list", None, IssueCode.MALFORMED),
])
def test_illegal_moves_get_a_precise_issue(answer: str, move: object, code: IssueCode) -> None:
    assert GAME.legal(state(4, [[1, 2]], answer), 0, move).codes == {code}


def test_nothing_is_hidden_and_the_answer_kind_is_shown() -> None:
    assert GAME.observe(state(4, [[1, 2]], "list"), 0) == {"drugs": [1, 2, 3, 4], "interactions": [[1, 2]], "answer": "list"}


@pytest.mark.parametrize(("level", "random_right"), [(1, 5), (2, 0), (3, 0), (4, 0)])
def test_the_reference_is_always_right_and_random_play_rarely(level: int, random_right: int) -> None:
    """Over 50 seeded games per level the reference scores 1 every time; random play (a random count up to the
    Moon–Moser bound, or one one-drug cocktail) measured 5 right answers of 50 at level 1 and none at levels 2–4."""
    right = 0.0
    for seed in range(50):
        setup = GAME.setup(level, seed)
        assert play(GAME, setup, [("ref", GAME.reference_move)]).outcome.scores == (1.0,)
        right += play(GAME, setup, [("random", GAME.random_move)]).outcome.scores[0]
    assert right <= random_right
