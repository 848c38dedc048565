"""Ratings: Bradley–Terry fits against closed forms and the likelihood equations, draws as half wins, the prior,
PuzzlePlex's one-pass Elo by hand and its order dependence, seeded bootstrap intervals, seat records, and the refusals."""

from __future__ import annotations

import math

import pytest

from codebench.analysis.ratings import (
    Match,
    Rating,
    SeatRecord,
    bradley_terry,
    bradley_terry_with_intervals,
    puzzleplex_elo,
    seat_records,
)

LOG3 = math.log10(3)
LOG2 = math.log10(2)
# The fit stops when no strength moves by more than 1e-10 relatively; on the Elo scale (400·log10) that is ~1e-8 a point,
# a little more where MM converges slowly, so fitted ratings are compared to 1e-6 of a point.
FIT = 1e-6


def games(first: str, second: str, first_wins: int, second_wins: int = 0, draws: int = 0) -> list[Match]:
    """`first_wins` wins for `first`, `second_wins` for `second`, `draws` draws; `first` always moves first."""
    return [Match(first, second, 1)] * first_wins + [Match(first, second, 0)] * second_wins + [Match(first, second, 0.5)] * draws


def strengths(ratings: dict[str, float]) -> dict[str, float]:
    """Elo-scale ratings back to Bradley–Terry strengths (geometric mean 1)."""
    return {player: 10 ** ((r - 1000) / 400) for player, r in ratings.items()}


def mixed_pool() -> list[Match]:
    """Four players of clearly different strength, every pair met, some draws, both seats."""
    return (games("A", "B", 5, 2, 1) + games("B", "A", 1, 3) + games("A", "C", 6, 1) + games("C", "A", 1, 2, 1)
            + games("A", "D", 7, 0, 1) + games("B", "C", 4, 2, 2) + games("C", "B", 2, 3) + games("B", "D", 5, 1)
            + games("D", "B", 1, 3, 1) + games("C", "D", 4, 3) + games("D", "C", 2, 3, 1))


# --- Bradley–Terry: closed forms -------------------------------------------------------------------------------------

def test_bt_two_players_closed_form() -> None:
    # A beats B 3 times, loses once. Likelihood equation W_A = n·p_A/(p_A+p_B): 3 = 4·p_A/(p_A+p_B) ⇒ p_A/p_B = 3,
    # so the gap is 400·log10 3 ≈ 190.85 and, centred on the geometric mean, the ratings are 1000 ± 200·log10 3.
    ratings = bradley_terry(games("A", "B", 3, 1), prior=0)
    assert ratings["A"] == pytest.approx(1000 + 200 * LOG3, abs=FIT)
    assert ratings["B"] == pytest.approx(1000 - 200 * LOG3, abs=FIT)
    assert ratings["A"] - ratings["B"] == pytest.approx(190.848501887865, abs=FIT)


def test_bt_chain_closed_form() -> None:
    # A–B 3:1 and B–C 3:1, A and C never meet. On a tree each pair's equations decouple: p_A/p_B = 3 and p_B/p_C = 3
    # (check B: W_B = 1 + 3 = 4 = 4·1/(3+1) + 4·3/(3+1)). Strengths 9 : 3 : 1, geometric mean 3 ⇒ 3, 1, 1/3.
    ratings = bradley_terry(games("A", "B", 3, 1) + games("B", "C", 3, 1), prior=0)
    assert ratings["A"] == pytest.approx(1000 + 400 * LOG3, abs=FIT)
    assert ratings["B"] == pytest.approx(1000, abs=FIT)
    assert ratings["C"] == pytest.approx(1000 - 400 * LOG3, abs=FIT)


def test_bt_star_closed_form() -> None:
    # A beats B 2:1 and C 2:1; B and C never meet. By symmetry p_B = p_C, and A's equation 4 = 6·p_A/(p_A+p_B)
    # gives p_A = 2·p_B. Strengths 2 : 1 : 1, geometric mean 2^(1/3) ⇒ A = 1000 + 400·(2/3)·log10 2, B = C = 1000 − 400/3·log10 2.
    ratings = bradley_terry(games("A", "B", 2, 1) + games("A", "C", 2, 1), prior=0)
    assert ratings["A"] == pytest.approx(1000 + 800 / 3 * LOG2, abs=FIT)
    assert ratings["B"] == pytest.approx(1000 - 400 / 3 * LOG2, abs=FIT)
    assert ratings["C"] == pytest.approx(ratings["B"], abs=FIT)


@pytest.mark.parametrize("prior", [0.0, 0.5])
def test_bt_cycle_is_all_equal(prior: float) -> None:
    # A > B, B > C, C > A once each: every player won 1 of 2, so equal strengths solve every equation.
    ratings = bradley_terry([Match("A", "B", 1), Match("B", "C", 1), Match("C", "A", 1)], prior=prior)
    for player in "ABC":
        assert ratings[player] == pytest.approx(1000, abs=FIT)


def test_bt_asymmetric_pool_satisfies_likelihood_equations() -> None:
    # No closed form here, so check the fixed point: W_i = Σ_j n_ij·p_i/(p_i+p_j) for every player, with draws as half.
    matches = games("A", "B", 3, 1, 1) + games("B", "C", 2, 1) + games("C", "A", 1, 1, 2) + games("A", "D", 2, 0, 1)
    matches += games("D", "C", 1, 2)
    p = strengths(bradley_terry(matches, prior=0))
    wins = {"A": 3 + 0.5 + 1 + 1 + 2 + 0.5, "B": 1 + 0.5 + 2, "C": 1 + 1 + 1 + 2, "D": 0.5 + 1}
    n = {("A", "B"): 5, ("B", "C"): 3, ("A", "C"): 4, ("A", "D"): 3, ("C", "D"): 3}
    assert sum(wins.values()) == len(matches)
    for player, w in wins.items():
        opponents = [(b if a == player else a, count) for (a, b), count in n.items() if player in (a, b)]
        expected = sum(count * p[player] / (p[player] + p[other]) for other, count in opponents)
        assert expected == pytest.approx(w, abs=1e-9)
    assert math.prod(p.values()) == pytest.approx(1, abs=1e-12)  # centred on the geometric mean
    assert sorted(p, key=p.__getitem__, reverse=True) == ["A", "B", "C", "D"]


# --- Bradley–Terry: draws and the prior ------------------------------------------------------------------------------

def test_bt_draws_count_as_half_wins() -> None:
    # One win and one draw is 1.5 wins to 0.5 in 2 games: the same equations as 3 wins to 1 in 4 (ratio 3).
    win_and_draw = bradley_terry([Match("A", "B", 1), Match("A", "B", 0.5)], prior=0)
    assert win_and_draw == pytest.approx(bradley_terry(games("A", "B", 3, 1), prior=0), abs=FIT)
    # One win and two draws: 2 wins to 1 in 3 games ⇒ ratio 2. Ignoring draws (1 to 0) would have no finite fit.
    ratings = bradley_terry(games("A", "B", 1, 0, 2), prior=0)
    assert ratings["A"] - ratings["B"] == pytest.approx(400 * LOG2, abs=FIT)
    # Draws only: even, as even as a win-loss split.
    assert bradley_terry(games("A", "B", 0, 0, 2), prior=0) == pytest.approx({"A": 1000, "B": 1000}, abs=FIT)
    assert bradley_terry(games("A", "B", 1, 1), prior=0) == pytest.approx({"A": 1000, "B": 1000}, abs=FIT)


def test_bt_prior_is_pseudo_games_against_a_unit_anchor() -> None:
    # A beats B once, prior 0.5: each player also plays 0.5 games against an anchor of strength 1, winning 0.25.
    # The problem is symmetric under A ↔ B with p ↦ 1/p, so p_A = x, p_B = 1/x (geometric mean 1, as reported), and A's
    # equation is W_A = 1 + 0.25 = 1·x/(x + 1/x) + 0.5·x/(x + 1).
    ratings = bradley_terry([Match("A", "B", 1)], prior=0.5)
    assert ratings["A"] + ratings["B"] == pytest.approx(2000, abs=FIT)
    x = 10 ** ((ratings["A"] - 1000) / 400)
    assert x * x / (x * x + 1) + 0.5 * x / (x + 1) == pytest.approx(1.25, abs=1e-9)
    # The prior shrinks towards the anchor: 3:1 with the prior is closer than the plain MLE's 400·log10 3.
    shrunk = bradley_terry(games("A", "B", 3, 1))
    assert 0 < shrunk["A"] - shrunk["B"] < 400 * LOG3 - 1


def test_prior_makes_an_all_winner_finite_and_highest() -> None:
    matches = games("A", "B", 3) + games("C", "A", 0, 3) + games("B", "C", 2, 2)
    ratings = bradley_terry(matches)
    assert all(math.isfinite(r) for r in ratings.values())
    assert max(ratings, key=ratings.__getitem__) == "A"
    assert ratings["A"] > ratings["B"] + 100 and ratings["B"] == pytest.approx(ratings["C"], abs=FIT)
    with pytest.raises(ValueError, match="prior > 0"):
        bradley_terry(matches, prior=0)


def test_bt_is_order_free_and_rates_only_players_that_appear() -> None:
    matches = mixed_pool()
    forward, backward = bradley_terry(matches), bradley_terry(matches[::-1])
    assert set(forward) == {"A", "B", "C", "D"}
    assert forward == pytest.approx(backward, abs=FIT)
    assert bradley_terry([]) == {}


# --- PuzzlePlex Elo --------------------------------------------------------------------------------------------------

def test_puzzleplex_elo_by_hand() -> None:
    # Match 1, 1000 vs 1000: E = 1/2, A wins: A = 1000 + 32·(1 − 1/2) = 1016, B = 984.
    # Match 2, B (984) beats A (1016): E_B = 1/(1 + 10^(32/400)) = 0.4540780772..., so B = 984 + 32·(1 − E_B)
    # = 1001.4695015..., A = 1016 − 32·(1 − E_B) = 998.5304984... (E_A = 1 − E_B: the two changes cancel).
    after_one = puzzleplex_elo([Match("A", "B", 1)])
    assert after_one == {"A": 1016.0, "B": 984.0}
    after_two = puzzleplex_elo([Match("A", "B", 1), Match("B", "A", 1)])
    assert after_two["B"] == pytest.approx(1001.4695015289755, abs=1e-9)
    assert after_two["A"] == pytest.approx(998.5304984710245, abs=1e-9)
    assert puzzleplex_elo([Match("A", "B", 0.5)]) == {"A": 1000.0, "B": 1000.0}
    assert puzzleplex_elo([Match("A", "B", 1)], start=1500, k=16) == {"A": 1508.0, "B": 1492.0}
    assert puzzleplex_elo([]) == {}


def test_puzzleplex_elo_depends_on_order() -> None:
    # The same two matches the other way round: B wins first, so now B ends at 998.53 and A at 1001.47.
    matches = [Match("A", "B", 1), Match("B", "A", 1)]
    forward, backward = puzzleplex_elo(matches), puzzleplex_elo(matches[::-1])
    assert backward["A"] == pytest.approx(forward["B"], abs=1e-9)
    assert forward["A"] < 1000 < backward["A"]
    # Bradley–Terry sees one win each either way.
    assert bradley_terry(matches) == pytest.approx({"A": 1000, "B": 1000}, abs=FIT)
    assert bradley_terry(matches[::-1]) == pytest.approx({"A": 1000, "B": 1000}, abs=FIT)


# --- Bootstrap intervals ---------------------------------------------------------------------------------------------

def test_bootstrap_is_seeded_and_deterministic() -> None:
    matches = mixed_pool()
    first = bradley_terry_with_intervals(matches, rounds=200, seed=7)
    assert first == bradley_terry_with_intervals(matches, rounds=200, seed=7)
    other_seed = bradley_terry_with_intervals(matches, rounds=200, seed=8)
    assert first != other_seed
    assert [(r.player, r.rating) for r in first] == [(r.player, r.rating) for r in other_seed]  # only the intervals move


def test_bootstrap_point_estimate_inside_interval_sorted_best_first() -> None:
    matches = mixed_pool()
    ratings = bradley_terry_with_intervals(matches, rounds=300, seed=1)
    point = bradley_terry(matches)
    assert [r.player for r in ratings] == sorted(point, key=point.__getitem__, reverse=True) == ["A", "B", "C", "D"]
    counts = {p: sum(p in (m.first, m.second) for m in matches) for p in "ABCD"}
    for r in ratings:
        assert isinstance(r, Rating)
        assert r.rating == point[r.player]  # the same fit on all matches
        assert r.low is not None and r.high is not None and r.median is not None
        assert r.low < r.rating < r.high and r.low < r.median < r.high
        assert r.games == counts[r.player]
    narrow = {r.player: r for r in bradley_terry_with_intervals(matches, rounds=300, seed=1, confidence=0.5)}
    for r in ratings:
        assert r.low < narrow[r.player].low < narrow[r.player].high < r.high


def test_bootstrap_intervals_shrink_with_ten_times_the_matches() -> None:
    once = {r.player: r for r in bradley_terry_with_intervals(mixed_pool(), rounds=200, seed=3)}
    tenfold = {r.player: r for r in bradley_terry_with_intervals(mixed_pool() * 10, rounds=200, seed=3)}
    for player, r in once.items():
        assert tenfold[player].high - tenfold[player].low < r.high - r.low


def test_bootstrap_single_round() -> None:
    ratings = bradley_terry_with_intervals(mixed_pool(), rounds=1, seed=0)
    assert len(ratings) == 4
    for r in ratings:
        assert r.low is not None and math.isfinite(r.low)
        assert r.low == r.high == r.median


def test_bootstrap_skips_players_absent_from_a_resample() -> None:
    # Two separate matches: a resample of two draws both from one of them with probability 1/2, and then the other
    # match's players get no rating that round (with rounds=1: no interval at all). The point estimate is still there.
    matches = [Match("A", "B", 1), Match("C", "D", 1)]
    outcomes = [bradley_terry_with_intervals(matches, rounds=1, seed=seed) for seed in range(20)]
    skipped = [[r.player for r in ratings if r.low is None] for ratings in outcomes]
    assert {tuple(s) for s in skipped} <= {(), ("A", "B"), ("C", "D")}
    assert any(skipped) and not all(skipped)
    for ratings in outcomes:
        assert all(math.isfinite(r.rating) for r in ratings)
        assert all(r.high is None and r.median is None for r in ratings if r.low is None)


def test_bootstrap_without_prior_skips_resamples_with_no_finite_fit() -> None:
    # 3:1 with prior=0: about a third of resamples hold only A's wins and have no MLE; they are skipped, not fatal.
    ratings = {r.player: r for r in bradley_terry_with_intervals(games("A", "B", 3, 1), rounds=200, seed=0, prior=0)}
    assert ratings["A"].rating == pytest.approx(1000 + 200 * LOG3, abs=FIT)
    assert ratings["A"].low is not None and ratings["A"].high is not None
    assert math.isfinite(ratings["A"].high) and ratings["A"].low <= ratings["A"].rating <= ratings["A"].high


def test_bootstrap_empty() -> None:
    assert bradley_terry_with_intervals([], rounds=10) == []


# --- Seat records ----------------------------------------------------------------------------------------------------

def test_seat_records_counts_and_first_mover_rate() -> None:
    matches = [Match("A", "B", 1), Match("B", "A", 0.5), Match("A", "C", 0), Match("C", "B", 1)]
    records, rate = seat_records(matches)
    assert records == [
        SeatRecord("A", wins=1, draws=1, losses=1, first_wins=1, first_draws=0, first_losses=1,
                   second_wins=0, second_draws=1, second_losses=0),
        SeatRecord("B", wins=0, draws=1, losses=2, first_wins=0, first_draws=1, first_losses=0,
                   second_wins=0, second_draws=0, second_losses=2),
        SeatRecord("C", wins=2, draws=0, losses=0, first_wins=1, first_draws=0, first_losses=0,
                   second_wins=1, second_draws=0, second_losses=0),
    ]
    assert rate == pytest.approx((1 + 0.5 + 0 + 1) / 4)


def test_seat_records_empty() -> None:
    records, rate = seat_records([])
    assert records == [] and math.isnan(rate)


# --- Refusals --------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("first", "second", "score", "message"), [
    ("A", "A", 1, "two different players"),
    ("A", "B", 2, "score_first must be 1"),
    ("A", "B", -0.5, "score_first must be 1"),
    ("A", "B", 0.25, "score_first must be 1"),
    ("A", "B", math.nan, "score_first must be 1"),
    ("A", "B", "1", "score_first must be 1"),
])
def test_bad_match_refused(first: str, second: str, score: float, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Match(first, second, score)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"rounds": 0}, "rounds must be an integer ≥ 1"),
    ({"rounds": 2.5}, "rounds must be an integer ≥ 1"),
    ({"confidence": 0}, "confidence must be strictly between 0 and 1"),
    ({"confidence": 1}, "confidence must be strictly between 0 and 1"),
    ({"confidence": 1.5}, "confidence must be strictly between 0 and 1"),
    ({"prior": -0.5}, "prior must be a finite number ≥ 0"),
])
def test_bad_bootstrap_arguments_refused(kwargs: dict[str, float], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        bradley_terry_with_intervals([Match("A", "B", 1)], **kwargs)  # type: ignore[arg-type]


def test_functions_recheck_matches() -> None:
    # A Match forced past its own check (frozen dataclasses can be) is still refused by every function.
    bad = Match("A", "B", 1)
    object.__setattr__(bad, "score_first", 0.7)
    for function in (puzzleplex_elo, bradley_terry, bradley_terry_with_intervals, seat_records):
        with pytest.raises(ValueError, match="score_first must be 1"):
            function([bad])
    with pytest.raises(ValueError, match="prior must be"):
        bradley_terry([Match("A", "B", 1)], prior=math.inf)
