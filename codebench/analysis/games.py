"""The games section of the report: scores, seat bias and ratings of every player of the stored games.

Scores per game × level × player: the raw score's mean; normalized against the absolute reference (a one-player game's
best score there is or a proven bound on it: the optimum, the clairvoyant score, the fewest probes, OptimalTouring's
proven upper bound; a two-player game's score is already 1 for a win, ½ for a draw, 0 for a loss) and, as PuzzlePlex's
second view, against the pool's best on the same setup (score ÷ the group's best finished game, or the group's fewest
÷ score where lower is better; 0 when the best is 0). A game its player failed (an illegal move, a forfeit) is 0 on
both scales, as in PuzzlePlex, whatever its raw score (ExclusivityProbes' raw failure is more probes than any
finished game). Since every reference bounds every legal score, a normalized score lies in [0, 1]; it is not capped,
so a reference that does not bound (a bug) shows as a score above 1.

Ratings per game and over all games, with the reference and random players in the same pool: the Bradley–Terry fit with
bootstrap intervals (draws half a win; the headline) and PuzzlePlex's one-pass Elo over the games in stored order (for
comparability only). One-player games are rated as PuzzlePlex does: on each setup, every two records of different
players are a match that the better score wins (equal scores draw). Win/draw/loss per seat shows first-mover bias.

Pure functions over `GameRow`s; imports the standard library, the shared types and `ratings`.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from ..types import GameRow, Status
from .ratings import Match, Rating, SeatRecord, bradley_terry_with_intervals, puzzleplex_elo, seat_records

ALL_GAMES = "all games"
RESULTS = {1.0: "wins", 0.5: "draws", 0.0: "losses"}


@dataclass(frozen=True)
class PlayerScore:
    """One player's games of one game and level."""

    game: str
    level: int
    player: str
    games: int
    raw: float  # mean raw score
    normalized: float | None  # mean against the absolute reference (None: no reference known)
    pool_normalized: float  # mean against the pool's best on the same setup
    wins: int
    draws: int
    losses: int
    status_counts: dict[str, int]  # how the player's seat ended: legal, or the status that ended its game
    tokens: float | None  # mean completion tokens per game (models in instruction mode)


@dataclass(frozen=True)
class GameRatings:
    """The ratings of one pool (one game, or all games)."""

    game: str
    matches: int  # one-player games' synthesized matches included
    ratings: tuple[Rating, ...]  # Bradley–Terry, best first
    elo: dict[str, float]  # PuzzlePlex's one-pass Elo
    seats: tuple[SeatRecord, ...]
    first_mover_rate: float  # the mean score of the player moving first (NaN: no two-player games)


@dataclass(frozen=True)
class GamesReport:
    scores: tuple[PlayerScore, ...]
    ratings: tuple[GameRatings, ...]
    games: int


@dataclass(frozen=True)
class Seat:
    """One seat of one stored game: its player, the sample it is (a built-in's: 0), its raw and normalized scores."""

    row: GameRow
    player: str
    sample: int
    raw: float
    status: str
    tokens: int | None
    normalized: float | None = None
    pool_normalized: float = 0.0


def build_games_report(rows: Sequence[GameRow], *, boot: int = 200, seed: int = 0) -> GamesReport:
    """Scores and ratings of the stored games (`boot` bootstrap rounds per pool)."""
    seats = scored_seats(rows)
    by_cell: dict[tuple[str, int, str], list[Seat]] = {}
    for seat in seats:
        by_cell.setdefault((seat.row.game, seat.row.level, seat.player), []).append(seat)
    scores = tuple(_score(key, cell) for key, cell in sorted(by_cell.items(), key=lambda item: (_order(rows, item[0][0]),
                                                                                             item[0][1], item[0][2])))
    pools: list[tuple[str, list[Match], list[Match]]] = []  # (pool, every match, the two-player games among them)
    for game in dict.fromkeys(row.game for row in rows):
        played, synthesized = _matches([row for row in rows if row.game == game])
        if played or synthesized:
            pools.append((game, played + synthesized, played))
    if len(pools) > 1:
        pools.append((ALL_GAMES, [m for _, found, _ in pools for m in found], [m for _, _, played in pools for m in played]))
    ratings = tuple(_ratings(game, found, played, boot, seed) for game, found, played in pools)
    return GamesReport(scores, ratings, len(rows))


def scored_seats(rows: Sequence[GameRow]) -> list[Seat]:
    """Every seat of the stored games, scored on both scales (`_normalized`)."""
    return _normalized([Seat(row, player, _sample(row, i), float(row.record["outcome"]["scores"][i]), row.record["statuses"][i],
                             row.record["kept"][i].get("completion_tokens") if i < len(row.record["kept"]) else None)
                        for row in rows for i, player in enumerate(row.players)])


def _sample(row: GameRow, seat: int) -> int:
    """The sample that sat in `seat` (the record's entries; a record without them, a built-in: 0)."""
    entries = row.record.get("entries") or []
    return int(entries[seat]["sample"]) if seat < len(entries) else 0


def _order(rows: Sequence[GameRow], game: str) -> int:
    return next(i for i, row in enumerate(rows) if row.game == game)


def _better(row: GameRow, a: float, b: float) -> bool:
    return a > b if row.record.get("higher_is_better", True) else a < b


def _normalized(seats: list[Seat]) -> list[Seat]:
    """Each seat's score against the absolute reference and against the best finished game on its setup (one-player
    games); 0 on both for a failed game."""
    groups: dict[tuple[str, int, int], list[float]] = {}
    for seat in seats:
        if len(seat.row.players) == 1 and seat.status == Status.LEGAL:
            groups.setdefault((seat.row.game, seat.row.level, seat.row.seed), []).append(seat.raw)
    done = []
    for seat in seats:
        if len(seat.row.players) == 2:
            done.append(Seat(**{**seat.__dict__, "normalized": seat.raw, "pool_normalized": seat.raw}))
            continue
        reference = seat.row.record.get("reference")
        if seat.status != Status.LEGAL:
            done.append(Seat(**{**seat.__dict__, "normalized": None if reference is None else 0.0, "pool_normalized": 0.0}))
            continue
        higher = seat.row.record.get("higher_is_better", True)
        group = groups[seat.row.game, seat.row.level, seat.row.seed]
        best = max(group) if higher else min(group)
        done.append(Seat(**{**seat.__dict__, "normalized": None if reference is None else _ratio(seat.raw, reference, higher),
                             "pool_normalized": _ratio(seat.raw, best, higher)}))
    return done


def _ratio(score: float, best: float, higher: bool) -> float:
    """score ÷ best (best ÷ score where lower is better); 0 where the division means nothing."""
    if higher:
        return score / best if best > 0 else 0.0
    return best / score if best > 0 and score > 0 else 0.0


def _score(key: tuple[str, int, str], cell: list[Seat]) -> PlayerScore:
    game, level, player = key
    two = len(cell[0].row.players) == 2
    results = Counter(RESULTS[seat.raw] for seat in cell) if two else Counter()
    tokens = [seat.tokens for seat in cell if seat.tokens is not None]
    normalized = [seat.normalized for seat in cell if seat.normalized is not None]
    return PlayerScore(game, level, player, len(cell), _mean([seat.raw for seat in cell]),
                       _mean(normalized) if len(normalized) == len(cell) else None,
                       _mean([seat.pool_normalized for seat in cell]), results["wins"], results["draws"], results["losses"],
                       dict(sorted(Counter(seat.status for seat in cell).items())), _mean(tokens) if tokens else None)


def _mean(values: Sequence[float]) -> float:
    return math.fsum(values) / len(values) if values else math.nan


def _matches(rows: Sequence[GameRow]) -> tuple[list[Match], list[Match]]:
    """A game's matches in stored order: two-player games as played, one-player games' synthesized per setup, as
    PuzzlePlex does."""
    matches: list[Match] = []
    synthesized: list[Match] = []
    groups: dict[tuple[int, int], list[tuple[str, float, GameRow]]] = {}
    for row in rows:
        scores = row.record["outcome"]["scores"]
        if len(row.players) == 2:
            if row.players[0] != row.players[1]:
                matches.append(Match(row.players[0], row.players[1], float(scores[0])))
        else:
            groups.setdefault((row.level, row.seed), []).append((row.players[0], float(scores[0]), row))
    for group in groups.values():
        for i, (first, a, row) in enumerate(group):
            for second, b, _ in group[i + 1:]:
                if first != second:
                    synthesized.append(Match(first, second, 1.0 if _better(row, a, b) else 0.0 if _better(row, b, a) else 0.5))
    return matches, synthesized


def _ratings(game: str, matches: list[Match], played: list[Match], boot: int, seed: int) -> GameRatings:
    """The pool's ratings over every match; seats (who moved first) from the two-player games only."""
    records, first_rate = seat_records(played)
    return GameRatings(game, len(matches), tuple(bradley_terry_with_intervals(matches, rounds=boot, seed=seed)),
                       puzzleplex_elo(matches), tuple(records), first_rate)


SCORE_HEADER = ["game", "level", "player", "games", "raw", "normalized", "pool-normalized", "W-D-L", "statuses", "tokens/game"]
RATING_HEADER = ["player", "BT rating", "95% interval", "Elo (PuzzlePlex)", "matches", "first W-D-L", "second W-D-L"]
SCORES_TITLE = ("game scores: raw mean; normalized against the absolute reference (one player: the best score there is or "
                "a proven bound; two players: win 1, draw ½, loss 0; a failed game 0) and against the pool's best on each "
                "setup; a normalized mean above 1, marked *, stands on a reference that does not bound it (one an older "
                "game version stored, such as OptimalTouring 1's best tour known)")
RATINGS_TITLE = ("ratings: Bradley–Terry on the Elo scale with 95% bootstrap intervals (draws half a win; the headline), "
                 "PuzzlePlex's one-pass Elo (K 32, stored order) for comparability")


def _number(value: float | None, digits: int = 3) -> str:
    return "-" if value is None or math.isnan(value) else f"{value:.{digits}f}"


def _bounded(value: float | None) -> str:
    """A normalized mean; above 1 (its reference does not bound it, as SCORES_TITLE says) marked with *."""
    return _number(value) + ("*" if value is not None and value > 1 else "")


def score_rows(report: GamesReport) -> list[list[str]]:
    """The scores as text cells, under SCORE_HEADER."""
    return [[s.game, str(s.level), s.player, str(s.games), _number(s.raw), _bounded(s.normalized), _number(s.pool_normalized),
             f"{s.wins}-{s.draws}-{s.losses}" if s.wins + s.draws + s.losses else "-",
             " ".join(f"{status} {n}" for status, n in s.status_counts.items()),
             "-" if s.tokens is None else f"{s.tokens:.0f}"] for s in report.scores]


def rating_rows(pool: GameRatings) -> list[list[str]]:
    """One pool's ratings as text cells, under RATING_HEADER."""
    seats = {record.player: record for record in pool.seats}
    rows = []
    nobody = SeatRecord("", *[0] * 9)
    for rating in pool.ratings:
        seat = seats.get(rating.player, nobody)
        interval = "-" if rating.low is None or rating.high is None else f"[{rating.low:.0f}, {rating.high:.0f}]"
        rows.append([rating.player, f"{rating.rating:.0f}", interval, f"{pool.elo.get(rating.player, math.nan):.0f}",
                     str(rating.games), f"{seat.first_wins}-{seat.first_draws}-{seat.first_losses}",
                     f"{seat.second_wins}-{seat.second_draws}-{seat.second_losses}"])
    return rows


def pool_title(pool: GameRatings) -> str:
    bias = "" if math.isnan(pool.first_mover_rate) else f", the first mover scores {_number(pool.first_mover_rate)}"
    return f"{pool.game}: {pool.matches} matches{bias}"
