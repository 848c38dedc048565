"""A protocol's own table (`codebench run --protocol NAME`): PuzzlePlex's Table 3 layout over the stored games.

Each sample is a player of its own, as in the paper: a sample's score on a game and level is the mean of its games'
normalized scores over the seeds (a one-player game against codebench's absolute reference, beside it PuzzlePlex's
pool-relative score; a two-player game's win 1, draw ½, loss 0 over every opponent, baseline and other models). A
model's score is the mean ± the 95% Student-t interval over its sample means (half-width 0 for one sample, as the
paper's), and its best the best sample's mean (best-of-n). A group of games (a kind at a level) and the whole pool the
sample means of their games, as the paper does; a group's best is the mean of its games' bests (the paper's best of
the pooled list mixes games). A built-in player is one sample.

Pure functions over `GameRow`s; imports the standard library, `puzzles`, the protocols and the games analysis.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from puzzles.games import get_game

from ..protocols import KINDS, Protocol, game_kind
from ..types import GameRow
from .games import Seat, scored_seats

ALL = "all"  # the group of every game and level
CONFIDENCE = 0.95


@dataclass(frozen=True)
class Interval:
    """A mean over sample means with its 95% Student-t half-width, how many it stands on, and the best sample's."""

    mean: float
    half_width: float
    n: int
    best: float

    def shown(self) -> str:
        return f"{self.mean:.3f} ± {self.half_width:.3f}"


@dataclass(frozen=True)
class GameScore:
    """One player on one game and level."""

    player: str
    game: str
    kind: str
    level: int
    games: int  # the games played, every sample's
    normalized: Interval  # against the absolute reference (two players: win 1, draw ½, loss 0)
    pool_normalized: Interval  # PuzzlePlex's: against the pool's best on each setup


@dataclass(frozen=True)
class GroupScore:
    """One player on a kind of game at a level (`kind` ALL and `level` None: every game and level), Table 3's cell."""

    player: str
    kind: str
    level: int | None
    games: int  # the distinct games pooled
    normalized: Interval


@dataclass(frozen=True)
class ProtocolTable:
    """The protocol's table of the stored games, with what the runs change of it and what differs from the paper."""

    protocol: str
    title: str
    table: str  # the paper's table whose layout this is
    levels: dict[int, str]  # the levels played, by the paper's names
    kinds: tuple[str, ...]  # the kinds played, in KINDS' order
    groups: tuple[GroupScore, ...]
    scores: tuple[GameScore, ...]
    runs: tuple[tuple[str, tuple[str, ...]], ...]  # (run, what it plays otherwise than the protocol)
    differs: tuple[str, ...]


def t_quantile(p: float, df: int) -> float:
    """The Student-t distribution's `p` quantile (p > ½) with `df` degrees of freedom: bisection on its distribution
    function, P(T ≤ t) = 1 − ½ I_{df/(df+t²)}(df/2, ½)."""
    low, high = 0.0, 1.0
    while _t_tail(high, df) > 1 - p:
        high *= 2
    for _ in range(200):
        middle = (low + high) / 2
        low, high = (middle, high) if _t_tail(middle, df) > 1 - p else (low, middle)
    return (low + high) / 2


def _t_tail(t: float, df: int) -> float:
    """P(T > t) for t ≥ 0."""
    return 0.5 * _incomplete_beta(df / 2, 0.5, df / (df + t * t))


def _incomplete_beta(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b), by its continued fraction (modified Lentz)."""
    if x <= 0 or x >= 1:
        return 0.0 if x <= 0 else 1.0
    if x > (a + 1) / (a + b + 2):
        return 1 - _incomplete_beta(b, a, 1 - x)
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log(1 - x)) / a
    tiny, c, d = 1e-300, 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1 / (d if abs(d) > tiny else tiny)
    fraction = d
    for m in range(1, 500):
        for numerator in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                          -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1 + numerator * d
            d = 1 / (d if abs(d) > tiny else tiny)
            c = 1 + numerator / c
            c = c if abs(c) > tiny else tiny
            fraction *= c * d
        if abs(c * d - 1) < 1e-15:
            break
    return front * fraction


def interval(means: Sequence[float], best: float | None = None) -> Interval:
    """Mean ± t_{0.975, n−1} · s/√n over `means` (half-width 0 for one); `best`: the best of them unless given."""
    n = len(means)
    half = t_quantile(1 - (1 - CONFIDENCE) / 2, n - 1) * statistics.stdev(means) / math.sqrt(n) if n > 1 else 0.0
    return Interval(_mean(means), half, n, max(means) if best is None else best)


def protocol_table(rows: Sequence[GameRow], protocol: Protocol, runs: Sequence[tuple[str, tuple[str, ...]]]) -> ProtocolTable | None:
    """The protocol's table of the stored games among its own (None: none was played); `runs`: each run of it and what
    it plays otherwise than the protocol (`Protocol.departures`)."""
    seats = scored_seats([row for row in rows if row.game in protocol.games])
    if not seats:
        return None
    by_sample: dict[tuple[str, str, int], dict[int, list[Seat]]] = {}
    for seat in seats:
        by_sample.setdefault((seat.player, seat.row.game, seat.row.level), {}).setdefault(seat.sample, []).append(seat)
    absolute, pool = {}, {}  # per player × game × level, its sample means on each scale
    for cell, found in by_sample.items():
        kept = [found[sample] for sample in sorted(found)]
        absolute[cell] = [_mean([_absolute(seat) for seat in games]) for games in kept]
        pool[cell] = [_mean([seat.pool_normalized for seat in games]) for games in kept]
    players = list(dict.fromkeys(seat.player for seat in seats))  # as played: the models' entrants before the built-ins
    scores = [GameScore(player, game, game_kind(get_game(game)), level, sum(map(len, by_sample[cell].values())),
                        interval(absolute[cell]), interval(pool[cell]))
              for player in players for game in protocol.games for level in protocol.levels
              if (cell := (player, game, level)) in by_sample]
    kinds = tuple(kind for kind in KINDS if any(score.kind == kind for score in scores))
    levels = {level: name for level, name in protocol.levels.items() if any(score.level == level for score in scores)}
    groups = []
    for player in players:
        for kind, level in [*((kind, level) for kind in kinds for level in levels), (ALL, None)]:
            mine = [score for score in scores if score.player == player and kind in (ALL, score.kind) and level in (None, score.level)]
            if mine:
                groups.append(GroupScore(player, kind, level, len({score.game for score in mine}),
                                         interval([mean for s in mine for mean in absolute[s.player, s.game, s.level]],
                                                  best=_mean([score.normalized.best for score in mine]))))
    return ProtocolTable(protocol.name, protocol.title, protocol.table, levels, kinds, tuple(groups), tuple(scores), tuple(runs),
                         protocol.differs)


def _absolute(seat: Seat) -> float:
    """A seat's score against the absolute reference (a game stored without its reference: the pool's best's)."""
    return seat.normalized if seat.normalized is not None else seat.pool_normalized


def _mean(values: Sequence[float]) -> float:
    return math.fsum(values) / len(values)


SHORT = {kind: kind.replace("deterministic", "det").replace("stochastic", "sto") for kind in KINDS}
TABLE_TITLE = ("normalized score, mean ± 95% Student-t half-width over the sample means (a group pools "
               "its games' sample means, as the paper does); best: the best sample's mean, a group's averaged over its games")
GAME_HEADER = ["player", "game", "kind", "level", "samples", "games", "normalized", "pool-normalized (paper's)", "best"]
GAME_TITLE = ("per game: normalized against the absolute reference (one player; two players: win 1, draw ½, loss 0) and "
              "against the pool's best on each setup (PuzzlePlex's), mean ± 95% Student-t half-width over the sample means")


def table_header(table: ProtocolTable) -> list[str]:
    return ["player", *(f"{SHORT[kind]} {name}" for kind in table.kinds for name in table.levels.values()), "all", "best"]


def table_rows(table: ProtocolTable) -> list[list[str]]:
    """Table 3's rows: a player per row, a kind × level per column, then every game and the best."""
    cells = {(group.player, group.kind, group.level): group for group in table.groups}
    rows = []
    for player in dict.fromkeys(group.player for group in table.groups):
        values = [cells[player, kind, level].normalized.shown() if (player, kind, level) in cells else "-"
                  for kind in table.kinds for level in table.levels]
        whole = cells[player, ALL, None].normalized
        rows.append([player, *values, whole.shown(), f"{whole.best:.3f}"])
    return rows


def game_rows(table: ProtocolTable) -> list[list[str]]:
    return [[s.player, s.game, s.kind, table.levels.get(s.level, str(s.level)), str(s.normalized.n), str(s.games),
             s.normalized.shown(), s.pool_normalized.shown(), f"{s.normalized.best:.3f}"] for s in table.scores]


def table_notes(table: ProtocolTable) -> list[str]:
    """What the runs change of the protocol, then what codebench computes otherwise than the paper."""
    return [*(f"{run or 'the run'}: --protocol {table.protocol}" + (f", but {'; '.join(changes)}" if changes else ", whole")
              for run, changes in table.runs),
            *(f"differs from the paper: {line}" for line in table.differs)]
