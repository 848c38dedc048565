"""The isolation's cost per move: code-mode games through the sandbox against the same strategy run in-process.

One strategy program (RubyRisks, a one-player game of 3–16 moves, and CardNim against the reference) plays the
same seeded games twice in one run, side by side: as a program in the sandbox (one long-lived child per game,
its moves over the supervisor's channel) and as the same class instantiated in this process. Printed: games and
moves per second each way, and the sandbox's added milliseconds per game and per move (the game's start and
cleanup spread over its moves: RubyRisks' longer games show the channel's own cost closer).
Run: `.venv/bin/python benchmarks/games.py [--backend docker|local] [--games N]`.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from codebench.games.match import ProgramSeat  # noqa: E402
from codebench.keys import program_key  # noqa: E402
from codebench.sandbox import get_backend  # noqa: E402
from codebench.types import GameLimits, Limits, Program  # noqa: E402
from puzzles.games import Answer, Forfeit, Game, Setup, StrategyPlayer, get_game, play, player_view  # noqa: E402

PROGRAMS = {
    "rubyrisks": "class Strategy:\n    def __init__(self, setup):\n        self.total = setup['observation']['total_rubies']\n"
                 "    def act(self, observation):\n        return {'rubies': self.total // (2 * observation['boxes'])}\n",
    "cardnim": "class Strategy:\n    def __init__(self, setup):\n        pass\n    def act(self, observation):\n"
               "        return {'card': max(c for c in observation['my_cards'] if c <= observation['stones'])}\n",
}


class InProcessSeat:
    """The program's Strategy in this process: what the sandbox's isolation is compared with."""

    def __init__(self, label: str, source: str) -> None:
        namespace: dict[str, Any] = {}
        exec(compile(source, label, "exec"), namespace)  # trusted: the benchmark's own program
        self.name, self.strategy_class = label, namespace["Strategy"]

    def begin(self, game: Game, setup: Setup, seat: int) -> Forfeit | None:
        self.strategy = self.strategy_class(player_view(game, setup, seat))
        return None

    def move(self, observation: Any, since: list[dict[str, Any]]) -> Answer:
        return Answer(self.strategy.act(observation))

    def finish(self) -> dict[str, Any]:
        return {}


def seats_for(game: Game, program_seat: Any) -> list[Any]:
    return [program_seat] if game.players == 1 else [program_seat, StrategyPlayer("ref", game.reference_move)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--backend", default="docker", help="sandbox backend (default docker)")
    parser.add_argument("--games", type=int, default=60, help="seeded games per game and way (default 60)")
    args = parser.parse_args()
    game_limits = GameLimits()
    print(f"{'game':<10} {'way':<10} {'games/s':>9} {'moves/s':>9} {'ms/move':>8}   ({args.games} games, backend {args.backend})")
    with get_backend(args.backend, Limits(), workers=1) as sandbox:
        for name, source in PROGRAMS.items():
            game = get_game(name)
            setups = [game.setup(min(game.levels) + seed % len(game.levels), seed) for seed in range(args.games)]
            held = sandbox.reserve(Program(program_key(source), source, "Strategy"))
            try:
                measured = {}
                for way in ("in-process", "sandbox"):
                    started, moves = time.perf_counter(), 0
                    for setup in setups:
                        seat = ProgramSeat("program", held, game_limits) if way == "sandbox" else InProcessSeat("program", source)
                        record = play(game, setup, seats_for(game, seat))
                        assert record.statuses[0] == "legal", record
                        moves += sum(move["player"] == 0 for move in record.moves)
                    seconds = time.perf_counter() - started
                    measured[way] = (seconds, moves)
                    print(f"{name:<10} {way:<10} {len(setups) / seconds:>9.1f} {moves / seconds:>9.0f} {1000 * seconds / moves:>8.3f}")
            finally:
                held.release()
            (inside, moves), (outside, _) = measured["sandbox"], measured["in-process"]
            print(f"{name:<10} isolation: +{1000 * (inside - outside) / moves:.2f} ms a move, "
                  f"+{1000 * (inside - outside) / len(setups):.1f} ms a game ({inside / outside:.0f}x the in-process time)")


if __name__ == "__main__":
    main()
