"""The isolation's cost per move, measured side by side in one run against its floor, a bare pipe round trip.

One strategy program per game (RubyRisks, a one-player game of 3–16 moves, and CardNim against the reference) plays
the same seeded games: as the same class instantiated in this process, and as a program in the sandbox through the
local (bubblewrap) and the Docker backend (one long-lived child per game, its moves over the supervisor's channel).
The floor: one JSON-framed request and reply between this process and a child process over two pipes.

Each way's seat is timed (the program's own share of a game: its start, moves and end; the engine and the reference
cost the same either way), and the ways take turns ten games at a time, so the shared machine's drift falls on all.
Printed per game and way: moves per second of the program's own time; what a move adds (its round trip less the
in-process call) against the move's floor; what a game adds (its start and end: a fresh process, the clean slate
proven) against a second floor, fork + exit + reap of a warm interpreter; and both spread over the program's moves.
Bars (issue 30): a move adds ≤ 10× the pipe round trip on the local backend, ≤ 20× on Docker (exit status 1 when one
is missed). Spread over moves, a game of 1.7 moves (CardNim here) cannot come within them: the fork floor alone, over
its moves, is 14–16× the pipe round trip here, and with a move's own cost on top over 20×; the line says how far each
game is. A CardNim move follows the engine's and the reference's turn, some 1 ms in which the sandbox's CPUs idle: on
this Firecracker guest (no cpuidle driver, an idle CPU halts) a bare round trip after 1 ms idle took 150 µs, not 9, so about
half of CardNim's second moves wait 120–240 µs for the supervisor to wake; the floor here is measured back to back.
Run: `.venv/bin/python benchmarks/games.py [--games N] [--backends local,docker]` (Docker needs the engine and image).
"""

from __future__ import annotations

import argparse
import json
import statistics
import struct
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path[0] = str(Path(__file__).resolve().parents[1])  # this folder must not shadow the packages

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
BARS = {"local": 10.0, "docker": 20.0}  # added time per move, as a multiple of the pipe round trip
HEADER = struct.Struct(">I")
ECHO = ("import json, struct, sys\nH = struct.Struct('>I')\nsource, sink = sys.stdin.buffer, sys.stdout.buffer\n"
        "while (size := source.read(4)):\n    data = json.dumps({'answer': json.loads(source.read(H.unpack(size)[0]))}).encode()\n"
        "    sink.write(H.pack(len(data)) + data)\n    sink.flush()\n")


FORK = ("import gc, os, statistics, time\n"
        "for name in ('bisect', 'collections', 'copy', 'dataclasses', 'decimal', 'fractions', 'functools', 'heapq', "
        "'itertools', 'json', 'math', 'operator', 'random', 're', 'selectors', 'statistics', 'string', 'typing'):\n"
        "    __import__(name)\n"
        "gc.freeze()\ntimes = []\n"
        "for _ in range(400):\n    started = time.perf_counter()\n    pid = os.fork()\n    if pid == 0:\n        os._exit(0)\n"
        "    os.waitpid(pid, 0)\n    times.append(time.perf_counter() - started)\n"
        "print(statistics.median(times[40:]))\n")


def fork_floor() -> float:
    """Seconds to fork, exit and reap a child of an interpreter as warm as the supervisor (its modules; numpy only for a
    program that names it, which these do not): what the fresh process a game's clean slate needs costs at least,
    whatever the sandbox does around it."""
    return float(subprocess.run([sys.executable, "-I", "-c", FORK], capture_output=True, text=True, check=True).stdout)


def pipe_round_trip(count: int = 3000) -> float:
    """Seconds for one JSON-framed request and reply with a child process over two pipes (the median)."""
    child = subprocess.Popen([sys.executable, "-I", "-c", ECHO], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert child.stdin is not None and child.stdout is not None
    times = []
    for index in range(count):
        started = time.perf_counter()
        data = json.dumps({"observation": {"boxes": 3, "turn": index}}).encode()
        child.stdin.write(HEADER.pack(len(data)) + data)
        child.stdin.flush()
        (size,) = HEADER.unpack(child.stdout.read(4))
        json.loads(child.stdout.read(size))
        times.append(time.perf_counter() - started)
    child.stdin.close()
    child.wait()
    return statistics.median(times[count // 10:])


class TimedSeat:
    """A seat whose calls are timed: the program's own share of a game, apart from the engine's and the reference's
    (which are the same either way, and noisy), its start and end apart from its moves."""

    def __init__(self, seat: Any) -> None:
        self.seat, self.name = seat, seat.name
        self.seconds = {"begin": 0.0, "move": 0.0, "finish": 0.0}

    def _timed(self, call: str, *args: Any) -> Any:
        started = time.perf_counter()
        try:
            return getattr(self.seat, call)(*args)
        finally:
            self.seconds[call] += time.perf_counter() - started

    def begin(self, game: Game, setup: Setup, seat: int) -> Forfeit | None:
        return self._timed("begin", game, setup, seat)

    def move(self, observation: Any, since: list[dict[str, Any]]) -> Answer:
        return self._timed("move", observation, since)

    def finish(self) -> dict[str, Any]:
        return self._timed("finish")


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


def play_all(game: Game, setups: list[Setup], seat: TimedSeat) -> int:
    """Play every setup with `seat` in seat 0 (the reference in seat 1 of a two-player game); the program's moves."""
    moves = 0
    for setup in setups:
        players = [seat] if game.players == 1 else [seat, StrategyPlayer("ref", game.reference_move)]
        record = play(game, setup, players)
        assert record.statuses[0] == "legal", record
        moves += sum(move["player"] == 0 for move in record.moves)
    return moves


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=200, help="seeded games per game and way (default 200)")
    parser.add_argument("--backends", default="local,docker", help="sandbox backends, comma-separated (default local,docker)")
    args = parser.parse_args()
    backends = args.backends.split(",")
    game_limits = GameLimits()
    floor, fork = pipe_round_trip(), fork_floor()
    print(f"floor of a move: a JSON-framed pipe round trip between two processes = {floor * 1e6:.1f} µs (median)")
    print(f"floor of a game: fork, exit and reap a child of a warm interpreter = {fork * 1e3:.2f} ms (median)\n")
    print(f"{'game':<10} {'way':<11} {'moves/s':>8}   {'a move adds':>16} {'bar':>4}   {'a game adds':>18}   "
          f"{'both, spread over moves':>24}")
    missed = []
    sandboxes = {name: get_backend(name, Limits(), workers=1) for name in backends}
    try:
        for name, source in PROGRAMS.items():
            game = get_game(name)
            setups = [game.setup(min(game.levels) + seed % len(game.levels), seed) for seed in range(args.games)]
            held = {backend: sandbox.reserve(Program(program_key(source), source, "Strategy"))
                    for backend, sandbox in sandboxes.items()}
            try:
                seats = {"in-process": TimedSeat(InProcessSeat("program", source)),
                         **{backend: TimedSeat(ProgramSeat("program", worker, game_limits)) for backend, worker in held.items()}}
                for seat in seats.values():
                    play_all(game, setups[:10], seat)  # warm: the program loaded, the first children made
                    seat.seconds = dict.fromkeys(seat.seconds, 0.0)
                moves = 0
                for start in range(0, len(setups), 10):  # the ways take turns, ten games each: the machine's drift is shared
                    moves += sum(play_all(game, setups[start:start + 10], seat) for seat in seats.values()) // len(seats)
            finally:
                for worker in held.values():
                    worker.release()
            own = {way: sum(seat.seconds.values()) for way, seat in seats.items()}
            print(f"{name:<10} {'in-process':<11} {moves / own['in-process']:>8.0f}   (the program's own time: "
                  f"{own['in-process'] / moves * 1e6:.1f} µs a move)")
            for backend in sandboxes:
                seconds = seats[backend].seconds
                added = (own[backend] - own["in-process"]) / moves
                in_process = seats["in-process"].seconds
                per_game = (seconds["begin"] + seconds["finish"] - in_process["begin"] - in_process["finish"]) / len(setups)
                per_move = (seconds["move"] - in_process["move"]) / moves
                if per_move / floor > BARS[backend]:
                    missed.append(f"{name} on {backend}")
                print(f"{name:<10} {backend:<11} {moves / own[backend]:>8.0f}   {per_move * 1e6:>6.0f} µs {per_move / floor:>5.1f}× "
                      f"{BARS[backend]:>3.0f}×   {per_game * 1e3:>5.2f} ms {per_game / fork:>5.1f}× fork   "
                      f"{added * 1e6:>6.0f} µs {added / floor:>5.1f}× ({'within' if added / floor <= BARS[backend] else 'over'} "
                      f"{BARS[backend]:.0f}×)")
            print(f"{'':<10} ({moves / len(setups):.1f} program moves a game; moves/s counts the program's own time; a game "
                  f"adds at least the fork floor, {fork / (moves / len(setups)) / floor:.1f}× the move floor spread over its moves)")
    finally:
        for sandbox in sandboxes.values():
            sandbox.close()
    print("\nbars on a move's round trip " + ("met" if not missed else "missed: " + ", ".join(missed)))
    raise SystemExit(1 if missed else 0)


if __name__ == "__main__":
    main()
