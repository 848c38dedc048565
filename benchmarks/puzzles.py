"""Puzzle library speed: L6 generation and solve time per family, validator throughput, and the games' engines.

Bars (issue 2): every L6 instance generated in ≤ 5 s and solved in ≤ 2 s; Hanoi n=20
(1,048,575 moves) validated at ≥ 1 M moves/s. Issue 12: random-vs-random games, every level, at ≥ 1,000 moves/s
on the slowest game (the engine, observations and legality checks included: the state machines must not be the
bottleneck). Run: `.venv/bin/python benchmarks/puzzles.py [--seeds N] [--games-only]`.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

sys.path[0] = str(Path(__file__).resolve().parents[1])  # this file's folder would shadow the `puzzles` package

from puzzles import PUZZLES, get_puzzle  # noqa: E402
from puzzles.games import GAMES, Game, play  # noqa: E402

GENERATE_BAR_S, SOLVE_BAR_S, HANOI_BAR_MOVES_PER_S, GAME_BAR_MOVES_PER_S = 5.0, 2.0, 1_000_000, 1_000


def timed(call: Any, *args: Any) -> tuple[Any, float]:
    start = time.perf_counter()
    result = call(*args)
    return result, time.perf_counter() - start


def bench_family(name: str, seeds: int) -> tuple[float, float, float, float]:
    """Worst L6 generate and solve seconds, and validations per second over the reference answers."""
    puzzle = get_puzzle(name)
    worst_generate = worst_solve = validate_total = 0.0
    for seed in range(seeds):
        record, generate_s = timed(puzzle.generate, 6, seed)
        answer, solve_s = timed(puzzle.solve, record.instance)
        verdict, validate_s = timed(puzzle.validate, record.instance, answer)
        if not verdict.ok:
            raise SystemExit(f"{record.id}: reference answer rejected: {verdict.issues}")
        worst_generate, worst_solve = max(worst_generate, generate_s), max(worst_solve, solve_s)
        validate_total += validate_s
    return worst_generate, worst_solve, seeds / validate_total, validate_total / seeds


def bench_game(game: Game, seeds: int) -> tuple[float, float, float]:
    """Setups per second, then random-vs-random games and moves per second of play alone, over every level × `seeds`
    seeds. Setup is timed apart: it computes the absolute references in meta (OptimalTouring's bound, the exact
    cocktail counts), which a game played needs once, not once a move."""
    games = moves = 0
    setup_s = play_s = 0.0
    for level in game.levels:
        for seed in range(seeds):
            setup, seconds = timed(game.setup, level, seed)
            setup_s += seconds
            record, seconds = timed(play, game, setup, [("random", game.random_move)] * game.players)
            play_s += seconds
            games, moves = games + 1, moves + len(record.moves)
    return games / setup_s, games / play_s, moves / play_s


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seeds", type=int, default=10, help="L6 seeds per family and seeds per game level (default 10)")
    parser.add_argument("--games-only", action="store_true", help="only the games' engines")
    args = parser.parse_args()
    failures = []
    if not args.games_only:
        failures += bench_families(args.seeds)
    failures += bench_games(args.seeds)
    print("\n" + ("\n".join(failures) if failures else "all bars met"))
    raise SystemExit(1 if failures else 0)


def bench_families(seeds: int) -> list[str]:
    failures = []
    print(f"{'family':<12} {'L6 gen max s':>12} {'L6 solve max s':>14} {'validations/s':>14} {'ms/validation':>14}")
    for puzzle in PUZZLES:
        generate_s, solve_s, per_s, mean_s = bench_family(puzzle.name, seeds)
        print(f"{puzzle.name:<12} {generate_s:>12.3f} {solve_s:>14.3f} {per_s:>14.1f} {mean_s * 1000:>14.3f}")
        if generate_s > GENERATE_BAR_S or solve_s > SOLVE_BAR_S:
            failures.append(f"{puzzle.name}: L6 generate {generate_s:.2f} s / solve {solve_s:.2f} s over the bar")
    hanoi = get_puzzle("hanoi")
    instance = hanoi.generate(params={"n": 20}).instance
    answer = hanoi.solve(instance)
    verdict, seconds = timed(hanoi.validate, instance, answer)
    rate = len(answer["moves"]) / seconds
    print(f"\nhanoi n=20: {len(answer['moves']):,} moves validated in {seconds:.3f} s = {rate:,.0f} moves/s "
          f"({rate / HANOI_BAR_MOVES_PER_S:.2f}x the 1 M moves/s bar), ok={verdict.ok}")
    if rate < HANOI_BAR_MOVES_PER_S or not verdict.ok:
        failures.append(f"hanoi n=20 validation {rate:,.0f} moves/s under the bar")
    return failures


def bench_games(seeds: int) -> list[str]:
    failures = []
    print(f"\n{'game':<24} {'setups/s':>9} {'games/s':>9} {'moves/s':>10}   (random vs random, every level)")
    for game in GAMES:
        setups_per_s, games_per_s, moves_per_s = bench_game(game, seeds)
        print(f"{game.name:<24} {setups_per_s:>9.1f} {games_per_s:>9.1f} {moves_per_s:>10,.0f}")
        if moves_per_s < GAME_BAR_MOVES_PER_S:
            failures.append(f"{game.name}: {moves_per_s:,.0f} moves/s under the {GAME_BAR_MOVES_PER_S:,} bar")
    return failures


if __name__ == "__main__":
    main()
