"""Game players in the sandbox (issue 13, code mode): a program's `Strategy` plays move by move in one long-lived child
on the Docker and the local (bubblewrap) backends, the engine and the opponent on the host or in another sandbox.

Every way a player can fail ends its game with the status the sandbox's own records give (an illegal move, the
move's CPU or wall limit, the game's CPU limit, a crash, no Strategy, a syntax error); a snooping player finds
nothing of the engine or of the other player; nothing a player starts outlives its game.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator

import psutil
import pytest

from codebench.games.match import ProgramSeat, void
from codebench.keys import program_key
from codebench.sandbox import HeldWorker, SandboxBackend, get_backend
from codebench.sandbox._docker import LABEL, connect, owner_label
from codebench.types import Facts, GameLimits, Limits, Program
from puzzles.games import GameRecord, StrategyPlayer, get_game, play

from .test_corpus import source as corpus_source
from .test_sessions import MARKS_IN_MEMORY

BACKENDS = [pytest.param("docker", marks=pytest.mark.docker), "local"]
GAME_LIMITS = GameLimits(game_cpu_s=3, move_cpu_s=1, move_wall_s=3)
CARDNIM = get_game("cardnim")

CARDNIM_STRATEGY = '''
class Strategy:
    def __init__(self, setup):
        self.setup = setup
        print("seat", setup["player"], "of", setup["players"], "at", setup["game"], "level", setup["level"], sorted(setup))

    def act(self, observation):
        playable = [card for card in observation["my_cards"] if card <= observation["stones"]]
        MISBEHAVE
        return {"card": max(playable)}
'''


def strategy(misbehave: str = "pass") -> str:
    return CARDNIM_STRATEGY.replace("MISBEHAVE", misbehave)


@pytest.fixture(scope="module", params=BACKENDS)
def sandbox(request: pytest.FixtureRequest) -> Iterator[SandboxBackend]:
    with get_backend(request.param, Limits(cpu_s=2, memory_mib=256), workers=2) as backend:
        yield backend


def against_reference(sandbox: SandboxBackend, source: str, seed: int = 0, level: int = 2, seat: int = 0,
                      game_limits: GameLimits = GAME_LIMITS) -> GameRecord:
    held = sandbox.reserve(Program(program_key(source), source, "Strategy"))
    try:
        seats = [ProgramSeat("program", held, game_limits), StrategyPlayer("ref", CARDNIM.reference_move)]
        return play(CARDNIM, CARDNIM.setup(level, seed), seats if seat == 0 else seats[::-1])
    finally:
        held.release()


def test_a_correct_strategy_plays_whole_games_in_both_seats(sandbox: SandboxBackend) -> None:
    for seed in range(3):
        for seat in (0, 1):
            record = against_reference(sandbox, strategy(), seed, seat=seat)
            assert record.statuses == ("legal", "legal") and record.failed is None, record
            mine = [move for move in record.moves if move["player"] == seat]
            assert mine and all(move["ok"] and set(move["move"]) == {"card"} for move in mine)
            assert sum(record.outcome.scores) == 1.0
            kept = record.kept[seat]
            assert f"seat {seat} of 2 at cardnim level 2 ['game', 'level', 'observation', 'player', 'players']" in kept["stdout"]
            assert "seed" not in kept["stdout"] and kept["game_cpu_s"] >= 0


@pytest.mark.parametrize(("misbehave", "status", "detail"), [
    ("return {'card': 999}", "rule_violation", "illegal_move"),
    ("return {'card': str(max(playable))}", "rule_violation", "bad_value"),
    ("return {1, 2}", "rule_violation", "not_json"),
    ("while True: pass", "timeout", "cpu_limit"),
    ("import time; time.sleep(60)", "timeout", "wall_limit"),
    ("raise KeyError('boom')", "runtime_error", "exception:KeyError"),
    ("import os; os._exit(3)", "runtime_error", "no_result:exit_3"),
    ("import sys\n        while True: sys.stdout.write('x' * 65536)", "runtime_error", "output_limit"),
])
def test_a_failing_move_ends_the_game_as_a_loss_with_its_status(sandbox: SandboxBackend, misbehave: str, status: str,
                                                                detail: str) -> None:
    record = against_reference(sandbox, strategy(misbehave))
    assert (record.statuses, record.details) == ((status, "legal"), (detail, "")), record
    assert record.failed == 0 and record.outcome.results == ("loss", "win") and record.outcome.scores == (0.0, 1.0)
    assert [move["player"] for move in record.moves] == [0] and not void(record)


SLOW_RUBIES = """
import time

class Strategy:
    def __init__(self, setup):
        pass

    def act(self, observation):
        end = time.process_time() + 0.3
        while time.process_time() < end:
            pass
        return {"rubies": 1}
"""


def test_the_games_cpu_limit_is_a_timeout_of_its_own(sandbox: SandboxBackend) -> None:
    """RubyRisks, 13+ boxes: 0.3 s of CPU a move, 1 s the move's limit, 1.2 s the game's, spent by the fifth move."""
    rubies = get_game("rubyrisks")
    held = sandbox.reserve(Program(program_key(SLOW_RUBIES), SLOW_RUBIES, "Strategy"))
    try:
        record = play(rubies, rubies.setup(3, 0), [ProgramSeat("program", held, GameLimits(1.2, 1, 5))])
    finally:
        held.release()
    assert (record.statuses, record.details, record.outcome.scores) == (("timeout",), ("game_cpu_limit",), (0.0,)), record
    assert 1.0 <= record.kept[0]["game_cpu_s"] <= 2.0 and 3 <= len(record.moves) <= 5, record.moves


@pytest.mark.parametrize(("source", "status", "detail"), [
    ("class Strategy(:\n", "syntax_error", "SyntaxError: *"),
    ("def solve(instance):\n    return None\n", "no_code", "entry_point_missing"),
    ("class Strategy:\n    def __init__(self, setup):\n        1 / 0\n", "runtime_error", "exception:ZeroDivisionError"),
    ("class Strategy:\n    def __init__(self, setup):\n        while True: pass\n", "timeout", "cpu_limit"),
    ("class Strategy:\n    def __init__(self, setup):\n        pass\n", "runtime_error", "exception:AttributeError"),  # no act
])
def test_a_program_that_cannot_play_loses_before_its_first_move(sandbox: SandboxBackend, source: str, status: str,
                                                               detail: str) -> None:
    record = against_reference(sandbox, source)
    assert record.statuses[0] == status and record.failed == 0 and record.outcome.results == ("loss", "win"), record
    assert record.details[0].startswith(detail[:-1]) if detail.endswith("*") else record.details[0] == detail


SNOOP = '''
import gc, os, json

def look():
    """Everything this process can find: other processes' environments and command lines, files, live objects."""
    found = {"files": [], "objects": [], "pids": [], "environ": []}  # printed in this order: excerpts keep the head
    for pid in (p for p in os.listdir("/proc") if p.isdigit() and int(p) != os.getpid()):
        found["pids"].append(pid)
        for part in ("environ", "cmdline"):
            try:
                with open(f"/proc/{pid}/{part}", "rb") as handle:
                    found["environ"].append(handle.read(300).decode("latin-1"))
            except OSError:
                pass
    for top in ("/tmp", "/dev/shm", "/var/tmp", "/opt", "/run"):
        for folder, _, names in os.walk(top):
            for name in names:
                try:
                    with open(os.path.join(folder, name), "rb") as handle:
                        found["files"].append(handle.read(4096).decode("latin-1"))
                except OSError:
                    pass
    found["objects"] = [repr(obj)[:200] for obj in gc.get_objects() if isinstance(obj, dict) and ("hands" in obj or "env" in obj)]
    return found

class Strategy:
    def __init__(self, setup):
        self.player = setup["player"]
        with open("/tmp/my-hand", "w") as handle:  # what the other player would look for
            handle.write("SECRET-HAND-" + str(self.player))
        os.environ["SECRET"] = "SECRET-ENV-" + str(self.player)

    def act(self, observation):
        found = look()
        print(json.dumps(found))
        import signal
        for pid in found["pids"]:  # and try to stop everyone else
            try:
                os.kill(int(pid), signal.SIGKILL)
            except OSError:
                pass
        return {"card": max(c for c in observation["my_cards"] if c <= observation["stones"])}
'''


def test_snooping_players_find_nothing_of_the_engine_or_each_other_and_cannot_stop_them(sandbox: SandboxBackend) -> None:
    """Two programs in two sandboxes: each writes a secret at setup, looks for the other's (and for the engine's
    state) before every move, and tries to kill every process it sees; both still play the game to its end."""
    program = Program(program_key(SNOOP), SNOOP, "Strategy")
    first, second = sandbox.reserve(program), sandbox.reserve(program)
    try:
        record = play(CARDNIM, CARDNIM.setup(2, 1), [ProgramSeat("a", first, GAME_LIMITS), ProgramSeat("b", second, GAME_LIMITS)])
    finally:
        first.release()
        second.release()
    assert record.statuses == ("legal", "legal") and record.failed is None and len(record.moves) >= 2, record
    for seat, kept in enumerate(record.kept):
        other = 1 - seat
        assert f"SECRET-HAND-{seat}" in kept["stdout"]  # the search works: it finds its own
        assert f"SECRET-HAND-{other}" not in kept["stdout"] and f"SECRET-ENV-{other}" not in kept["stdout"], kept["stdout"]
        assert '"stones"' not in kept["stdout"] and "cardnim|L2" not in kept["stdout"]  # no engine state, no setup seed


REMEMBER = MARKS_IN_MEMORY + '''
class Strategy:
    def __init__(self, setup):
        mark = "MARK-" + str(hash(str(setup)) % 10**9) + "-END"  # one per game
        print(mark, flush=True)
        found = marks()
        print("own", mark.encode() in found, "others", sorted(m.decode() for m in found - {mark.encode()}))

    def act(self, observation):
        return {"card": max(card for card in observation["my_cards"] if card <= observation["stones"])}
'''


def games_in_a_row(sandbox: SandboxBackend, source: str, games: int = 4) -> list[GameRecord]:
    """`games` games on one held worker, the program in seat 0 against the reference."""
    held = sandbox.reserve(Program(program_key(source), source, "Strategy"))
    try:
        seats = [ProgramSeat("program", held, GAME_LIMITS), StrategyPlayer("ref", CARDNIM.reference_move)]
        return [play(CARDNIM, CARDNIM.setup(2, seed), seats) for seed in range(games)]
    finally:
        held.release()


def test_a_player_finds_nothing_of_its_last_game_in_its_own_memory(sandbox: SandboxBackend) -> None:
    """The clean slate between games reaches into memory: each game's player prints a mark, then looks for marks in its
    own writable memory. It finds its own (the search works) and none of the games before (a player forked from the
    supervisor found them all: the supervisor's heap kept each game's output)."""
    records = games_in_a_row(sandbox, REMEMBER)
    assert [record.kept[0]["stdout"].splitlines()[1] for record in records] == ["own True others []"] * 4, records


STOPS_OUR_CLEAN_UP = '''
import os, signal

class Strategy:
    def __init__(self, setup):
        if os.fork() == 0:  # left running past the game's end: it stops every process forked after it, until killed
            me = os.getpid()
            while True:
                for pid in range(me + 1, me + 64):
                    try:
                        os.kill(pid, signal.SIGSTOP)
                    except OSError:
                        pass

    def act(self, observation):
        return {"card": max(card for card in observation["my_cards"] if card <= observation["stones"])}
'''


def test_what_a_player_leaves_running_cannot_stop_the_clean_up(sandbox: SandboxBackend) -> None:
    """The clean-up after a game kills the solver's processes from a child of ours with the solver's uid. A process
    the player left stops every process forked after it: once it stopped that child halfway (2 of 3 runs here), the
    supervisor waited for it, the session broke at the game's end, and every later game on the worker was void. Its
    real uid is now one no process of the solver can signal: four games in a row play to their ends."""
    records = games_in_a_row(sandbox, STOPS_OUR_CLEAN_UP)
    assert [record.statuses for record in records] == [("legal", "legal")] * 4, [record.details for record in records]
    assert not any("infra_error" in record.kept[0] for record in records), [record.kept[0] for record in records]


def test_a_player_signals_nothing_outside(sandbox: SandboxBackend) -> None:
    """A game's player is the supervisor's child too: at its first move it tries every signal the corpus's
    signal_outside.py tries (the supervisor, the harness, every pid it sees or guesses) and reaches nothing."""
    harness = (os.getpid(), os.getpgrp(), os.getsid(0), os.getppid())
    attacks = corpus_source("signal_outside.py").replace("HARNESS = ()", f"HARNESS = {harness}")
    program = attacks + strategy("reached = attacks()\n        if reached:\n            raise PermissionError('; '.join(reached))")
    received: list[int] = []
    previous = signal.signal(signal.SIGCONT, lambda number, frame: received.append(number))
    try:
        record = against_reference(sandbox, program)
    finally:
        signal.signal(signal.SIGCONT, previous)
    assert record.statuses == ("legal", "legal") and record.failed is None, (record.details, record.kept[0])
    assert received == []


class EndRecorded:
    """A held worker that keeps the facts of the game's end (ProgramSeat keeps only its output excerpts)."""

    def __init__(self, held: HeldWorker) -> None:
        self.held, self.loaded = held, held.loaded
        self.ended: Facts | None = None

    def start(self, setup: dict, game: GameLimits) -> Facts:
        return self.held.start(setup, game)

    def act(self, observation: object, game: GameLimits) -> Facts:
        return self.held.act(observation, game)

    def end(self) -> Facts:
        self.ended = self.held.end()
        return self.ended

    def release(self) -> None:
        self.held.release()


LINGER = strategy("import sys, time\n        sys.modules['__main__']._EXIT = lambda code: time.sleep(1000)")


@pytest.mark.parametrize(("source", "exit_code", "killed_by"), [(strategy(), 0, None), (LINGER, None, signal.SIGKILL)],
                         ids=["leaves", "lingers"])
def test_a_player_told_its_game_is_over_leaves_or_is_killed(sandbox: SandboxBackend, source: str, exit_code: int | None,
                                                             killed_by: int | None) -> None:
    """A game's end closes the player's request pipe and the loop in it exits; one that will not (it replaced the exit
    that loop calls) is killed after the grace. Either way the slate is proven clean and the next game is played."""
    held = EndRecorded(sandbox.reserve(Program(program_key(source), source, "Strategy")))
    try:
        seats = [ProgramSeat("program", held, GAME_LIMITS), StrategyPlayer("ref", CARDNIM.reference_move)]
        record = play(CARDNIM, CARDNIM.setup(2, 0), seats)
    finally:
        held.release()
    assert record.statuses == ("legal", "legal"), record
    assert held.ended is not None and (held.ended.exit_code, held.ended.signal) == (exit_code, killed_by), held.ended
    assert (held.ended.clean, held.ended.survivors, held.ended.infra_error) == (True, 0, None), held.ended
    assert against_reference(sandbox, strategy()).statuses == ("legal", "legal")


def test_a_game_ended_before_its_player_began_leaves_the_next_game_its_player(sandbox: SandboxBackend) -> None:
    """A seat whose game ended before its turn to begin (the other seat forfeited first) is still ended: the worker's
    next game finds its player waiting, as ever (the spare made ahead of it once was killed by that end's clean-up,
    and the supervisor crashed on reaping it: the next game void)."""
    source = strategy()
    held = sandbox.reserve(Program(program_key(source), source, "Strategy"))
    try:
        seats = [ProgramSeat("program", held, GAME_LIMITS), StrategyPlayer("ref", CARDNIM.reference_move)]
        first = play(CARDNIM, CARDNIM.setup(2, 0), seats)  # the spare is made after this game's end
        ended = held.end()  # a game's end with no player begun
        second = play(CARDNIM, CARDNIM.setup(2, 1), seats)
    finally:
        held.release()
    assert (first.statuses, second.statuses) == (("legal", "legal"), ("legal", "legal")), second
    assert (ended.clean, ended.infra_error) == (True, None), ended


OUTLIVE = strategy("import os, time\n        if os.fork() == 0:\n            os.setsid()\n            time.sleep(1000)")


def test_nothing_a_player_starts_outlives_its_game_or_the_sandbox(sandbox: SandboxBackend) -> None:
    record = against_reference(sandbox, OUTLIVE)
    assert record.statuses == ("legal", "legal"), record
    after = against_reference(sandbox, strategy())  # the same workers serve the next game as if nothing happened
    assert after.statuses == ("legal", "legal"), after
    if sandbox.name == "local":
        uids = {worker.uid for worker in sandbox.pool.workers}
        sandbox.close()
        assert not [p.pid for p in psutil.process_iter(["uids"]) if p.info["uids"] and p.info["uids"].real in uids]
        return
    sandbox.close()
    client = connect()
    try:
        assert client.containers.list(all=True, filters={"label": [f"{LABEL}.role", f"{LABEL}.owner={owner_label()}"]}) == []
    finally:
        client.close()

