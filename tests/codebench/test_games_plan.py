"""Games in a run without a model or a sandbox: the options, the matches planned, what a seat is told, and the
report's scores and ratings on a hand-computed fixture."""

from __future__ import annotations

import math
import random
from collections import Counter
from typing import Any

import pytest

from codebench.analysis.games import build_games_report
from codebench.errors import ConfigError
from codebench.run.options import spec_from_options
from codebench.run.plan import make_plan
from codebench.run.spec import RunSpec
from codebench.types import GameRow
from puzzles import UnknownPuzzleError
from puzzles.games import Answer, Game, StrategyPlayer, game_names, get_game, play

URL = "http://127.0.0.1:9/v1"


def test_games_alone_plan_no_puzzle_and_levels_meet_each_games_own() -> None:
    spec = spec_from_options({"model": "a", "games": "tidytower,cardnim", "levels": "3-4"}, {})
    assert spec.puzzles == () and spec.games == ("tidytower", "cardnim")
    assert spec.game_levels("tidytower") == (3, 4) and spec.game_levels("cardnim") == (3,)
    assert spec_from_options({"model": "a", "games": "all"}, {}).games == tuple(game_names())


@pytest.mark.parametrize(("options", "message"), [
    ({"games": "cardnim", "levels": "5"}, "the game cardnim has levels 1-3"),
    ({"games": "cardnim", "opponents": "ref,humans"}, "--opponents 'humans': choose from ref, random, models"),
    ({"games": "chess"}, "unknown game 'chess'"),
    ({"puzzles": [], "games": None}, "nothing to run"),
    ({"games": "cardnim", "game_cpu": 0}, "--game-cpu 0: give a number above 0, at most 36000"),
])
def test_bad_game_options_are_refused_with_what_to_do(options: dict[str, Any], message: str) -> None:
    with pytest.raises((ConfigError, UnknownPuzzleError)) as refused:
        spec_from_options({"model": "a", **options}, {})
    assert message in str(refused.value)


def test_matches_seat_every_entrant_both_ways_and_samples_k_against_k() -> None:
    spec = RunSpec(models=("a", "b"), mode="both", puzzles=(), games=("cardnim", "tidytower"), levels=(1,),
                   instances_per_level=2, samples=2)
    plan = make_plan(spec, URL)
    strategies = plan.strategies
    assert plan.samples == ()  # no puzzle: the strategy requests are jobs of their own
    assert len(strategies) == 2 * 2 * 2 and all("class Strategy" in job.prompt.text for job in strategies)
    assert len({match.key for match in plan.matches}) == len(plan.matches)
    cardnim = [m for m in plan.matches if m.game == "cardnim" and m.seed == 0]
    seatings = Counter(tuple(e.label for e in m.entrants) for m in cardnim)
    assert max(seatings.values()) == 1
    models = [f"{model} ({mode}) #{k}" for model in "ab" for mode in ("code", "instruction") for k in range(2)]
    for entrant in models:
        for opponent in ("ref", "random"):
            assert (entrant, opponent) in seatings and (opponent, entrant) in seatings
    between = [s for s in seatings if all("#" in label for label in s)]
    assert sorted(between) == sorted([(f"a ({m}) #{k}", f"b ({m}) #{k}") for m in ("code", "instruction") for k in range(2)]
                                     + [(f"b ({m}) #{k}", f"a ({m}) #{k}") for m in ("code", "instruction") for k in range(2)])
    assert ("ref", "random") in seatings and ("random", "ref") in seatings
    assert len(cardnim) == 8 * 4 + 8 + 2
    tower = [m for m in plan.matches if m.game == "tidytower" and m.seed == 1]
    assert sorted(m.entrants[0].label for m in tower) == sorted([*models, "ref", "random"])
    code = next(e for m in cardnim for e in m.entrants if e.mode == "code")
    assert code.strategy_key in {job.key for job in strategies}


def test_fewer_opponents_fewer_matches_and_another_budget_another_key() -> None:
    spec = RunSpec(models=("a", "b"), mode="instruction", puzzles=(), games=("cardnim",), levels=(1,),
                   instances_per_level=1, samples=1, opponents=("ref",))
    seatings = [tuple(e.label for e in m.entrants) for m in make_plan(spec, URL).matches]
    assert sorted(seatings) == sorted([("a (instruction) #0", "ref"), ("ref", "a (instruction) #0"),
                                       ("b (instruction) #0", "ref"), ("ref", "b (instruction) #0")])
    keys = {m.key for m in make_plan(spec, URL).matches}
    no_history = {m.key for m in make_plan(RunSpec(**{**spec.__dict__, "history": False}), URL).matches}
    assert not keys & no_history  # another ablation: other games, stored apart


class Recorder(StrategyPlayer):
    """The reference strategy, keeping what it is told each turn."""

    def __init__(self, game: Game) -> None:
        super().__init__("ref", game.strategies["ref"])
        self.told: list[list[dict[str, Any]]] = []

    def move(self, observation: Any, since: list[dict[str, Any]]) -> Answer:
        self.told.append(since)
        return super().move(observation, since)


def test_a_seat_is_told_the_moves_since_its_last_but_never_a_hidden_one() -> None:
    cardnim = get_game("cardnim")
    seats = [Recorder(cardnim), Recorder(cardnim)]
    record = play(cardnim, cardnim.setup(1, 0), seats)
    assert seats[0].told[0] == [] and [entry["player"] for entry in seats[1].told[0]] == [0]
    assert all(len(told) == 1 for told in seats[0].told[1:]) and record.moves[0] == seats[1].told[0][0]
    hidden = get_game("beatorbombsto")  # each round's choices are simultaneous: the first stays hidden
    seats = [Recorder(hidden), Recorder(hidden)]
    play(hidden, hidden.setup(1, 0), seats)
    assert all(told == [] for seat in seats for told in seat.told) and len(seats[1].told) > 1


def row(game: str, seed: int, players: tuple[str, ...], scores: list[float], reference: float | None = None,
        higher: bool = True) -> GameRow:
    results = None if len(players) == 1 else ["win" if s == 1 else "loss" if s == 0 else "draw" for s in scores]
    record = {"outcome": {"scores": scores, "results": results}, "statuses": ["legal"] * len(players),
              "kept": [{} for _ in players], "reference": reference, "higher_is_better": higher}
    return GameRow(f"{game}-{seed}-{players}", game, 1, seed, players, record)


def test_scores_normalize_against_the_reference_and_the_pool_as_worked_by_hand() -> None:
    rows = [row("maxtarget", 0, ("m",), [20.0], 25.0), row("maxtarget", 0, ("ref",), [24.0], 25.0),
            row("maxtarget", 1, ("m",), [10.0], 10.0), row("maxtarget", 1, ("ref",), [5.0], 10.0),
            row("exclusivityprobes", 0, ("m",), [4.0], 2.0, higher=False),
            row("exclusivityprobes", 0, ("ref",), [8.0], 2.0, higher=False)]
    report = build_games_report(rows, boot=20)
    scores = {(s.game, s.player): s for s in report.scores}
    m, ref = scores["maxtarget", "m"], scores["maxtarget", "ref"]
    assert m.raw == 15.0 and m.normalized == pytest.approx((20 / 25 + 10 / 10) / 2)
    assert m.pool_normalized == pytest.approx((20 / 24 + 1.0) / 2) and ref.pool_normalized == pytest.approx((1.0 + 0.5) / 2)
    probes = scores["exclusivityprobes", "m"], scores["exclusivityprobes", "ref"]
    assert [p.normalized for p in probes] == [0.5, 0.25] and [p.pool_normalized for p in probes] == [1.0, 0.5]
    pools = {pool.game: pool for pool in report.ratings}
    assert pools["maxtarget"].matches == 2  # one synthesized per setup: m lost seed 0, won seed 1
    assert pools["maxtarget"].ratings[0].rating == pytest.approx(1000.0) and math.isnan(pools["maxtarget"].first_mover_rate)
    assert pools["exclusivityprobes"].ratings[0].player == "m"  # fewer probes win
    assert pools["all games"].matches == 3


def test_two_player_scores_and_seat_bias() -> None:
    rows = [row("cardnim", 0, ("m", "ref"), [1.0, 0.0]), row("cardnim", 0, ("ref", "m"), [1.0, 0.0]),
            row("cardnim", 1, ("m", "ref"), [0.5, 0.5]), row("cardnim", 1, ("ref", "m"), [1.0, 0.0])]
    report = build_games_report(rows, boot=20)
    m = next(s for s in report.scores if s.player == "m")
    assert (m.wins, m.draws, m.losses, m.games) == (1, 1, 2, 4) and m.normalized == m.pool_normalized == pytest.approx(1.5 / 4)
    pool = report.ratings[0]
    assert pool.first_mover_rate == pytest.approx((1 + 1 + 0.5 + 1) / 4)
    assert pool.elo["ref"] > 1000 > pool.elo["m"]
    seats = {record.player: record for record in pool.seats}
    assert (seats["m"].first_wins, seats["m"].first_draws, seats["m"].second_losses) == (1, 1, 2)
    random.seed(0)  # the fit uses no global randomness
    again = build_games_report(rows, boot=20)
    assert again == report


def test_the_puzzleplex_rule_variant_is_played_by_name_but_not_in_all() -> None:
    spec = spec_from_options({"model": "a", "mode": "both", "games": "maxmaximalcocktails-puzzleplex", "levels": "1",
                              "samples": 1}, {})
    [strategy] = make_plan(spec, URL).strategies
    assert "self-loop" in strategy.prompt.text and "maxmaximalcocktails-puzzleplex" not in game_names()
    assert "maxmaximalcocktails-puzzleplex" in game_names(variants=True)


def test_a_normalized_mean_above_one_is_marked_and_the_title_says_why() -> None:
    """An older OptimalTouring record normalized by the best tour known, which a better tour beats."""
    from codebench.analysis.games import SCORES_TITLE, score_rows

    report = build_games_report([row("optimaltouring", 0, ("m",), [110.0], 100.0), row("optimaltouring", 0, ("ref",), [90.0], 100.0)],
                                boot=1)
    normalized = {cells[2]: cells[5] for cells in score_rows(report)}
    assert normalized == {"m": "1.100*", "ref": "0.900"} and "marked *" in SCORES_TITLE
