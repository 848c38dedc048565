"""Ratings of players (models, a reference strategy, a random player) in one pool from two-player match results.

Two ratings, for two purposes:

- `puzzleplex_elo`, **for comparability** with the PuzzlePlex paper only: its sequential one-pass Elo (everyone starts at
  1000, K = 32, E_a = 1 / (1 + 10^((R_b − R_a) / 400)), then R_a += K·(S_a − E_a) and R_b += K·(S_b − E_b)). It depends on
  the order the matches are processed in and comes with no interval, so it is not the headline number; the caller
  passes matches in a deterministic order (e.g. stored order) so it is at least reproducible.
- `bradley_terry`, the **headline rating**: the maximum-likelihood Bradley–Terry strengths of the whole pool at once
  (order-free), fitted with the MM / Zermelo iteration (Hunter 2004) and reported on the Elo scale,
  rating_i = 1000 + 400·log10(p_i / geometric mean of p), so a 400-point gap means 10:1 odds.
  `bradley_terry_with_intervals` adds seeded bootstrap intervals over the matches — the move Chatbot Arena made from
  online Elo to Bradley–Terry with bootstrap confidence intervals.

Draws count as half a win to each side: a draw adds 0.5 to each player's win count and 1 to the pair's game count.

The prior: a player that won (or lost) every game has its maximum-likelihood strength at +∞ (or 0), and a pool whose
comparison graph is not strongly connected has no finite fit at all. `prior` (default 0.5) adds that many pseudo-games
between every player and a virtual anchor player of fixed strength 1, counted as half won and half lost (each player
gets prior/2 pseudo-wins, the anchor prior/2 from each player). It is symmetric, so it pulls every rating gently towards
the anchor and makes every fit finite; the anchor itself is never reported. With `prior=0` the plain MLE is fitted and a
pool without a finite one raises ValueError.

Only players that appear in some match are rated (a player with no games is simply absent from the results).

`seat_records` counts wins, draws and losses per player overall and by seat (first or second mover), with the pool's
first-mover score rate, to show seat bias.

Pure standard-library code over `Match` lists (the report command imports it and must start fast): no numpy, no I/O,
no global random state (bootstrap resamples use `random.Random(seed)` only).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

_SCORES = (0.0, 0.5, 1.0)
_TOLERANCE = 1e-10  # stop when no strength changes by more than this, relatively
_MAX_ITERATIONS = 10_000


@dataclass(frozen=True)
class Match:
    """One finished two-player game: `first` moved first; score_first is 1 (first won), 0.5 (draw) or 0 (second won)."""

    first: str
    second: str
    score_first: float

    def __post_init__(self) -> None:
        _check_match(self)


@dataclass(frozen=True)
class Rating:
    """One player's Bradley–Terry rating on the Elo scale, with its bootstrap interval and median when bootstrapped."""

    player: str
    rating: float  # point estimate on the Elo scale
    low: float | None  # bootstrap interval (None when not bootstrapped)
    high: float | None
    median: float | None
    games: int


@dataclass(frozen=True)
class SeatRecord:
    """One player's wins, draws and losses: overall, as first mover and as second mover."""

    player: str
    wins: int
    draws: int
    losses: int
    first_wins: int
    first_draws: int
    first_losses: int
    second_wins: int
    second_draws: int
    second_losses: int


class _NoFiniteFit(ValueError):
    """The pool has no finite maximum-likelihood Bradley–Terry fit (only possible with prior = 0)."""


def _check_match(match: Match) -> None:
    if match.first == match.second:
        raise ValueError(f"a match needs two different players, got {match.first!r} against itself")
    if isinstance(match.score_first, bool) or match.score_first not in _SCORES:
        raise ValueError(f"score_first must be 1 (first won), 0.5 (draw) or 0 (second won), got {match.score_first!r} "
                         f"in {match.first!r} vs {match.second!r}")


def _check_matches(matches: Sequence[Match]) -> None:
    for match in matches:
        _check_match(match)


def _check_prior(prior: float) -> None:
    if not (math.isfinite(prior) and prior >= 0):
        raise ValueError(f"prior must be a finite number ≥ 0 (pseudo-games against the anchor), got {prior!r}")


def puzzleplex_elo(matches: Sequence[Match], start: float = 1000.0, k: float = 32.0) -> dict[str, float]:
    """PuzzlePlex's sequential one-pass Elo, for comparability with the paper: the result depends on the order of
    `matches`, which are processed as given, so pass them in a deterministic order. Returns each player's final rating,
    in order of first appearance."""
    _check_matches(matches)
    if not (math.isfinite(start) and math.isfinite(k)):
        raise ValueError(f"start and k must be finite, got start={start!r}, k={k!r}")
    ratings: dict[str, float] = {}
    for match in matches:
        r_a = ratings.setdefault(match.first, start)
        r_b = ratings.setdefault(match.second, start)
        e_a = 1.0 / (1.0 + 10.0 ** ((r_b - r_a) / 400.0))
        e_b = 1.0 / (1.0 + 10.0 ** ((r_a - r_b) / 400.0))
        ratings[match.first] = r_a + k * (match.score_first - e_a)
        ratings[match.second] = r_b + k * ((1.0 - match.score_first) - e_b)
    return ratings


# A tally of (a resample of) the matches over player indices: each player's win credit (draws count half), the games of
# each unordered pair {i, j} (keyed i < j), and the directed credit i earned against j (for the existence check).
_Tally = tuple[dict[int, float], dict[tuple[int, int], float], dict[tuple[int, int], float]]


def _tally(indexed: Sequence[tuple[int, int, float]]) -> _Tally:
    wins: dict[int, float] = {}
    games: dict[tuple[int, int], float] = {}
    credit: dict[tuple[int, int], float] = {}
    for a, b, s in indexed:
        wins[a] = wins.get(a, 0.0) + s
        wins[b] = wins.get(b, 0.0) + (1.0 - s)
        pair = (a, b) if a < b else (b, a)
        games[pair] = games.get(pair, 0.0) + 1.0
        if s > 0:
            credit[(a, b)] = credit.get((a, b), 0.0) + s
        if s < 1:
            credit[(b, a)] = credit.get((b, a), 0.0) + (1.0 - s)
    return wins, games, credit


def _unreached(nodes: list[int], edges: dict[tuple[int, int], float]) -> list[int]:
    """The nodes not reachable from nodes[0] both forwards and backwards along `edges` (empty: strongly connected)."""
    forward: dict[int, list[int]] = {n: [] for n in nodes}
    backward: dict[int, list[int]] = {n: [] for n in nodes}
    for a, b in edges:
        forward[a].append(b)
        backward[b].append(a)
    missing: set[int] = set()
    for adjacency in (forward, backward):
        seen = {nodes[0]}
        stack = [nodes[0]]
        while stack:
            for n in adjacency[stack.pop()]:
                if n not in seen:
                    seen.add(n)
                    stack.append(n)
        missing.update(n for n in nodes if n not in seen)
    return sorted(missing)


def _fit(tally: _Tally, prior: float, names: Sequence[str]) -> dict[int, float]:
    """Bradley–Terry strengths (geometric mean 1 over the real players) of the players in `tally`, by MM iteration.

    The anchor is fitted as one more player with a free strength (its pseudo-games make it win prior/2 against each
    player) and every iterate is normalised to geometric mean 1; the likelihood is scale-free, so this is the same fit as
    holding the anchor at 1 and rescaling. Iterates until no strength changes by more than 1e-10 relatively, or 10,000
    times (then the last iterate is returned, without warning)."""
    wins, games, credit = tally
    players = sorted(wins)
    if prior == 0:
        unreached = _unreached(players, credit)
        if unreached:
            shown = ", ".join(repr(names[i]) for i in unreached[:5]) + (", …" if len(unreached) > 5 else "")
            raise _NoFiniteFit("Bradley–Terry with prior=0 has no finite maximum-likelihood fit: some group of players won "
                               f"(or lost) every game against the rest (not strongly connected with {names[players[0]]!r}: "
                               f"{shown}); use prior > 0")
    local = {p: n for n, p in enumerate(players)}
    size = len(players) + (1 if prior > 0 else 0)
    neighbours: list[list[tuple[int, float]]] = [[] for _ in range(size)]
    for (a, b), n in games.items():
        neighbours[local[a]].append((local[b], n))
        neighbours[local[b]].append((local[a], n))
    w = [wins[p] for p in players]
    if prior > 0:
        anchor = len(players)
        for i in range(len(players)):
            neighbours[i].append((anchor, prior))
            neighbours[anchor].append((i, prior))
            w[i] += prior / 2
        w.append(prior / 2 * len(players))
    strengths = [1.0] * size
    for _ in range(_MAX_ITERATIONS):
        updated = [w[i] / sum(n / (strengths[i] + strengths[j]) for j, n in neighbours[i]) for i in range(size)]
        scale = math.exp(math.fsum(math.log(x) for x in updated) / size)
        updated = [x / scale for x in updated]
        change = max(abs(new - old) / old for new, old in zip(updated, strengths))
        strengths = updated
        if change < _TOLERANCE:
            break
    real = strengths[:len(players)]
    scale = math.exp(math.fsum(math.log(x) for x in real) / len(real))
    return {p: x / scale for p, x in zip(players, real)}


def _elo_scale(strength: float) -> float:
    return 1000.0 + 400.0 * math.log10(strength)


def _index(matches: Sequence[Match]) -> tuple[list[str], list[tuple[int, int, float]]]:
    """The players in order of first appearance, and the matches over their indices."""
    position: dict[str, int] = {}
    for match in matches:
        position.setdefault(match.first, len(position))
        position.setdefault(match.second, len(position))
    return list(position), [(position[m.first], position[m.second], float(m.score_first)) for m in matches]


def bradley_terry(matches: Sequence[Match], prior: float = 0.5) -> dict[str, float]:
    """The headline rating: maximum-likelihood Bradley–Terry strengths of the whole pool (independent of match order),
    on the Elo scale 1000 + 400·log10(p / geometric mean p). Draws count as half a win to each side; `prior` pseudo-games
    against a virtual anchor of strength 1 (half won, half lost) keep all-win and all-loss players finite. Only players
    that appear are rated, in order of first appearance. With prior=0 and no finite MLE (the comparison graph is not
    strongly connected, e.g. someone won every game), raises ValueError."""
    _check_matches(matches)
    _check_prior(prior)
    if not matches:
        return {}
    names, indexed = _index(matches)
    strengths = _fit(_tally(indexed), prior, names)
    return {names[i]: _elo_scale(strengths[i]) for i in range(len(names))}


def _quantile(ordered: Sequence[float], q: float) -> float:
    """Linear interpolation between order statistics (numpy's default, statistics' "inclusive")."""
    position = q * (len(ordered) - 1)
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def bradley_terry_with_intervals(matches: Sequence[Match], rounds: int = 1000, confidence: float = 0.95,
                                 seed: int = 0, prior: float = 0.5) -> list[Rating]:
    """Bradley–Terry ratings with bootstrap intervals, sorted best first (ties by player name).

    Each of `rounds` resamples draws len(matches) matches with replacement (random.Random(seed) only, so the same inputs
    always give the same intervals) and refits Bradley–Terry; low and high are the (1 − confidence)/2 and
    (1 + confidence)/2 percentiles of a player's resampled ratings (linear interpolation), median their median. A player
    absent from a resample is skipped in that round; each resample's ratings are centred on the geometric mean of the
    players it contains. With prior=0 a resample with no finite fit is skipped whole, and a player left with no rating
    from any round gets low = high = median = None. `rating` is the fit on all matches; `games` counts the player's
    matches."""
    _check_matches(matches)
    _check_prior(prior)
    if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1:
        raise ValueError(f"rounds must be an integer ≥ 1, got {rounds!r}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence!r}")
    if not matches:
        return []
    names, indexed = _index(matches)
    point = _fit(_tally(indexed), prior, names)
    games = [0] * len(names)
    for a, b, _ in indexed:
        games[a] += 1
        games[b] += 1
    rng = random.Random(seed)
    resampled: list[list[float]] = [[] for _ in names]
    for _ in range(rounds):
        sample = rng.choices(indexed, k=len(indexed))
        try:
            strengths = _fit(_tally(sample), prior, names)
        except _NoFiniteFit:
            continue
        for i, x in strengths.items():
            resampled[i].append(_elo_scale(x))
    tail = (1.0 - confidence) / 2
    ratings = []
    for i, name in enumerate(names):
        ordered = sorted(resampled[i])
        if ordered:
            low, high, median = _quantile(ordered, tail), _quantile(ordered, 1.0 - tail), _quantile(ordered, 0.5)
        else:
            low = high = median = None
        ratings.append(Rating(name, _elo_scale(point[i]), low, high, median, games[i]))
    return sorted(ratings, key=lambda r: (-r.rating, r.player))


def seat_records(matches: Sequence[Match]) -> tuple[list[SeatRecord], float]:
    """Wins, draws and losses per player overall and by seat, sorted by player, with the pool's first-mover score rate
    (the mean of score_first over all matches; NaN when there are none): seat bias shows here before it skews a rating."""
    _check_matches(matches)
    counts: dict[str, list[int]] = {}  # first wins, draws, losses, then second wins, draws, losses
    for match in matches:
        first = counts.setdefault(match.first, [0] * 6)
        second = counts.setdefault(match.second, [0] * 6)
        outcome = {1.0: 0, 0.5: 1, 0.0: 2}[float(match.score_first)]
        first[outcome] += 1
        second[3 + 2 - outcome] += 1
    records = [SeatRecord(player, c[0] + c[3], c[1] + c[4], c[2] + c[5], *c) for player, c in sorted(counts.items())]
    rate = math.fsum(m.score_first for m in matches) / len(matches) if matches else math.nan
    return records, rate
