"""The reference strategies against the uniformly random legal player: the figures the README's games table states.

Two-player games: the reference's score (1 a win, ½ a draw) over GAMES_PER_SEAT seeded games in each seat, per level.
One-player games: over as many seeded games per level, the reference's and random play's totals beside the absolute
references the setups' meta holds (a proven optimum, a proven bound, the clairvoyant score). Correctness, not speed:
the tests hold the same figures as floors. Run: `.venv/bin/python benchmarks/game_strength.py [--games N] [GAME ...]`.
"""

from __future__ import annotations

import argparse
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from puzzles.games import GAMES, get_game, play  # noqa: E402

ABSOLUTE = ("optimum", "upper_bound", "clairvoyant_score", "clairvoyant_probes", "random_expected_probes")


def measure(name: str, games: int) -> str:
    """One line per level: the reference against random play."""
    game = get_game(name)
    ref, rnd = ("ref", game.reference_move), ("random", game.random_move)
    lines = []
    for level in game.levels:
        setups = [game.setup(level, seed) for seed in range(games)]
        if game.players == 2:
            first = sum(play(game, setup, [ref, rnd]).outcome.scores[0] for setup in setups)
            second = sum(play(game, setup, [rnd, ref]).outcome.scores[1] for setup in setups)
            lines.append(f"{name} L{level}: reference {first:g}/{games} as first player, {second:g}/{games} as second")
        else:
            mine = sum(play(game, setup, [ref]).outcome.scores[0] for setup in setups)
            theirs = sum(play(game, setup, [rnd]).outcome.scores[0] for setup in setups)
            known = {key: sum(setup.meta[key] for setup in setups) for key in ABSOLUTE
                     if all(setup.meta.get(key) is not None for setup in setups)}
            absolute = ", ".join(f"{key} {value:,.6g}" for key, value in known.items())
            lines.append(f"{name} L{level}: reference {mine:,.6g}, random {theirs:,.6g} over {games} games"
                         + (f"; {absolute}" if absolute else ""))
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=50, help="seeded games per level (and per seat), default 50")
    parser.add_argument("names", nargs="*", help="games to measure (default: all)")
    args = parser.parse_args()
    names = args.names or [game.name for game in GAMES]
    with ProcessPoolExecutor() as pool:
        for text in pool.map(measure, names, [args.games] * len(names)):
            print(text, flush=True)


if __name__ == "__main__":
    main()
