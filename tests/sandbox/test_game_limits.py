"""A game's limits bind (issue 26), on the Docker and the local (bubblewrap) backends: its CPU is everything the
player's processes burn, between moves too (the worker cgroup's counter, not the move window); a fractional limit is
exact (the supervisor's own count binds, the whole-second rlimit is only a backstop above it); and each seat's worker
has a CPU share of its own, so an opponent's 40 busy processes cannot make the honest seat run out of time.

The machine is shared: the limits leave wide margins, and nothing here measures speed.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from codebench.games.match import ProgramSeat
from codebench.keys import program_key
from codebench.sandbox import SandboxBackend, _cgroup, get_backend
from codebench.types import GameLimits, Limits, Program
from puzzles.games import GameRecord, Player, Setup, StrategyPlayer, get_game, play

BACKENDS = [pytest.param("docker", marks=pytest.mark.docker), "local"]
CARDNIM, RUBIES = get_game("cardnim"), get_game("rubyrisks")
TOLERANCE_S = 0.05  # how far past a game's limit a player may get before it is stopped (1-2 ms measured here)


@pytest.fixture(scope="module", params=BACKENDS)
def sandbox(request: pytest.FixtureRequest) -> Iterator[SandboxBackend]:
    with get_backend(request.param, Limits(cpu_s=2, memory_mib=256), workers=2) as backend:
        yield backend


def game(sandbox: SandboxBackend, setup: Setup, players: list[tuple[str, str, GameLimits] | Player]) -> GameRecord:
    """Play `setup`: a (name, source, game limits) player in a worker of its own, any other on the host."""
    held = [sandbox.reserve(Program(program_key(player[1]), player[1], "Strategy")) if isinstance(player, tuple) else None
            for player in players]
    try:
        seats = [ProgramSeat(player[0], seat, player[2]) if seat is not None else player for player, seat in zip(players, held)]
        return play(get_game(setup.game), setup, seats)
    finally:
        for seat in held:
            if seat is not None:
                seat.release()


BURNS_BETWEEN_MOVES = '''
import os, signal

class Strategy:
    def __init__(self, setup):
        self.burners = []

    def act(self, observation):
        for pid in self.burners:  # idle while it is asked to move: they burn only between moves
            os.kill(pid, signal.SIGSTOP)
        while len(self.burners) < 4:
            pid = os.fork()
            if pid == 0:
                while True:
                    pass
            self.burners.append(pid)
        for pid in self.burners:
            os.kill(pid, signal.SIGCONT)
        return {"card": min(observation["my_cards"])}
'''


def slow_smallest(game: object, observation: dict, seat: int, rng: object) -> dict:
    """An opponent that thinks for a second a move and keeps the game long."""
    time.sleep(1.0)
    return {"card": min(observation["my_cards"])}


def test_cpu_burnt_between_moves_counts_and_ends_the_game_as_a_timeout(sandbox: SandboxBackend) -> None:
    """Four processes forked at its first move burn only while the opponent thinks; its moves cost next to nothing."""
    burner = ("burner", BURNS_BETWEEN_MOVES, GameLimits(1, 1, 10))
    record = game(sandbox, CARDNIM.setup(1, 0), [burner, StrategyPlayer("slow", slow_smallest)])
    assert (record.statuses, record.details, record.outcome.results) == (("timeout", "legal"), ("game_cpu_limit", ""),
                                                                         ("loss", "win")), record
    charged, windows = record.kept[0]["game_cpu_s"], sum(move["cpu_s"] for move in record.moves if move["player"] == 0)
    assert charged > 1.0 and charged - windows > 0.5, (charged, record.moves)


SPENDS = '''
import time

class Strategy:
    def __init__(self, setup):
        pass

    def act(self, observation):
        end = min(TOTAL, time.process_time() + 0.4)  # 0.4 s a move, TOTAL s in all
        while time.process_time() < end:
            pass
        return {"rubies": 1}
'''


@pytest.mark.parametrize(("total", "status", "detail"), [(2.8, "legal", ""), (3.2, "timeout", "game_cpu_limit")])
def test_a_fractional_game_limit_is_exact(sandbox: SandboxBackend, total: float, status: str, detail: str) -> None:
    """2.9 s for RubyRisks' 15 boxes: 2.8 s spent over seven moves plays the game to its end; 3.2 s is stopped just
    past 2.9 s (the kernel's CPU rlimit, whole seconds, would stop it at 2 s or let it run to 3 s)."""
    record = game(sandbox, RUBIES.setup(3, 0), [("spender", SPENDS.replace("TOTAL", str(total)), GameLimits(2.9, 1, 10))])
    assert (record.statuses, record.details) == ((status,), (detail,)), record
    charged = record.kept[0]["game_cpu_s"]
    if status == "legal":
        assert len(record.moves) == 15 and total <= charged < 2.9, charged
    else:
        assert len(record.moves) == 8 and 2.9 < charged <= 2.9 + TOLERANCE_S, (charged, record.moves)


HONEST = '''
import time

class Strategy:
    def __init__(self, setup):
        pass

    def act(self, observation):
        end = time.process_time() + 0.25
        while time.process_time() < end:
            pass
        return {"card": min(observation["my_cards"])}
'''

HOG = '''
import os, signal

class Strategy:
    def __init__(self, setup):
        self.burners = []

    def act(self, observation):
        for pid in self.burners:  # idle while it moves: its own moves stay within their limit
            os.kill(pid, signal.SIGSTOP)
        while len(self.burners) < 40:
            pid = os.fork()
            if pid == 0:
                os.setsid()  # a session each: no autogroup of the scheduler gathers them
                while True:
                    pass
            self.burners.append(pid)
        for pid in self.burners:
            os.kill(pid, signal.SIGCONT)
        return {"card": min(observation["my_cards"])}
'''


def test_an_honest_seat_keeps_its_time_against_forty_busy_processes(sandbox: SandboxBackend) -> None:
    """Program against program: while the honest seat thinks (0.25 s of CPU a move, 3 s of wall allowed), the other
    seat's 40 processes run flat out. Without a CPU share per worker the honest seat got 2 cores / 41 and timed out."""
    record = game(sandbox, CARDNIM.setup(1, 0), [("honest", HONEST, GameLimits(60, 1, 3)), ("hog", HOG, GameLimits(300, 30, 60))])
    honest = [move["wall_s"] for move in record.moves if move["player"] == 0]
    assert record.statuses == ("legal", "legal") and record.failed is None, record
    assert len(honest) >= 4 and max(honest) < 3, honest
    assert record.kept[1]["game_cpu_s"] > 1.0, record.kept[1]  # the opponent's processes did run meanwhile


def test_every_local_worker_gets_the_same_cpu_weight_v1_with_cpu_and_cpuacct_mounted_as_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """cgroup v1 where cpu and cpuacct are one hierarchy (symlinks to cpu,cpuacct): one folder serves both."""
    for name in ("memory", "pids", "cpu,cpuacct"):
        (tmp_path / name).mkdir()
    for name in ("cpu", "cpuacct"):
        (tmp_path / name).symlink_to("cpu,cpuacct")
    monkeypatch.setattr(_cgroup, "ROOT", tmp_path)
    monkeypatch.setattr(_cgroup, "_own_paths", lambda: {name: "/" for name in ("memory", "cpu", "cpuacct", "pids")})
    made = _cgroup.WorkerCgroup("worker", 1 << 30, 128)
    assert made.folders["cpu"] == made.folders["cpuacct"] and (tmp_path / "cpu,cpuacct" / "worker" / "cpu.shares").read_text() == "1024"
    assert [inside for _, inside in made.binds()] == [str(tmp_path / "memory"), str(tmp_path / "cpuacct")]


def test_every_local_worker_gets_the_same_cpu_weight_v2_enabling_the_cpu_controller(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """cgroup v2 (not on this machine's kernel: the tree is faked): a controller the parent does not yet give its
    children is enabled in its subtree_control, then the worker's cpu.weight is written."""
    (tmp_path / "cgroup.controllers").write_text("cpu memory pids")

    def make(self: _cgroup.WorkerCgroup, folder: Path) -> Path:
        folder.mkdir()
        (folder / "cgroup.controllers").write_text("memory pids")
        return folder

    monkeypatch.setattr(_cgroup, "ROOT", tmp_path)
    monkeypatch.setattr(_cgroup, "_own_paths", lambda: {"": "/"})
    monkeypatch.setattr(_cgroup.WorkerCgroup, "_make", make)
    _cgroup.WorkerCgroup("worker", 1 << 30, 128)
    assert (tmp_path / "cgroup.subtree_control").read_text() == "+cpu"
    assert (tmp_path / "worker" / "cpu.weight").read_text() == "100"
