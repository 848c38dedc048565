"""The report's normalized game scores on PuzzlePlex's scale: a failed game is 0 on both scales, whatever its raw score,
and a finished one is measured against the best finished game of its setup."""

from __future__ import annotations

import pytest

from codebench.analysis.games import build_games_report
from codebench.types import GameRow
from puzzles.games import Game, get_game, play

PROBES = get_game("exclusivityprobes")


def stored(game: Game, seed: int, player: str, strategy: object) -> GameRow:
    """A one-player game played and stored as a run stores it: the record, its reference and direction."""
    setup = game.setup(1, seed)
    record = play(game, setup, [(player, strategy)])
    return GameRow(f"{game.name}-{seed}-{player}", game.name, 1, seed, (player,),
                   {**record.to_json(), "players": [player], "reference": game.reference_score(setup),
                    "higher_is_better": game.higher_is_better})


def junk(*_: object) -> dict[str, str]:
    return {"position": "junk"}


def scores(rows: list[GameRow]) -> dict[str, tuple[float, float | None, float]]:
    """Per player: (raw mean, normalized, pool-normalized)."""
    return {s.player: (s.raw, s.normalized, s.pool_normalized) for s in build_games_report(rows, boot=5).scores}


def test_a_failed_exclusivityprobes_game_normalizes_to_0_not_to_the_clairvoyant_share_of_its_raw_score() -> None:
    """The raw failure score is 2^(d+1) + 1 probes (worse than any finished game), whose clairvoyant share
    n / (2^(d+1) + 1) would be credit > 0; PuzzlePlex's rule gives a failed game 0."""
    rows = [stored(PROBES, 0, "wrong", junk), stored(PROBES, 0, "ref", PROBES.reference_move)]
    failed, finished = rows[0].record, rows[1].record
    assert failed["failed"] == 0 and failed["statuses"] == ["rule_violation"] and finished["statuses"] == ["legal"]
    dimension = failed["final"]["dimension"]
    raw, probes = failed["outcome"]["scores"][0], finished["outcome"]["scores"][0]
    assert raw == 2 ** (dimension + 1) + 1 and failed["reference"] / raw > 0
    assert scores(rows) == {"wrong": (raw, 0.0, 0.0), "ref": (probes, pytest.approx(failed["reference"] / probes), 1.0)}


def test_a_setup_every_player_failed_has_no_best_to_share() -> None:
    """Two failed games on one setup: each is 0 against the pool too (its raw score is not the group's best)."""
    rows = [stored(PROBES, 1, "wrong", junk), stored(PROBES, 1, "also wrong", junk)]
    assert {player: normalized for player, (_, *normalized) in scores(rows).items()} == {"wrong": [0.0, 0.0],
                                                                                         "also wrong": [0.0, 0.0]}


def test_a_failed_game_where_higher_is_better_is_0_too() -> None:
    touring = get_game("optimaltouring")
    rows = [stored(touring, 0, "wrong", lambda *_: {"tour": [0]}), stored(touring, 0, "ref", touring.reference_move)]
    result = scores(rows)
    assert result["wrong"] == (0.0, 0.0, 0.0) and result["ref"][2] == 1.0 and 0 < result["ref"][1] <= 1
