"""Ways a program might void the games it is losing (issue 26), on the Docker and the local (bubblewrap) backends: it
answers and then exits or is killed, puts /dev/null over its request descriptor or closes every descriptor, dies of
SIGXCPU between moves, ignores SIGTERM and SIGPIPE and stops reading, fills the worker with memfds, shared memory, System
V segments and tmpfs files (between moves, or from an orphan while the supervisor cleans up), forks a bomb, or exhausts
its descriptors. Each game ends as that program's loss with its own status, never void (no sandbox_error, no infra
error at the game's end), and the same worker then plays a whole game as if nothing had happened.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterator

import pytest

from codebench.games.match import ProgramSeat, void
from codebench.keys import program_key
from codebench.sandbox import SandboxBackend, get_backend
from codebench.types import GameLimits, Limits, Program
from puzzles.games import GameRecord, StrategyPlayer, get_game, play

BACKENDS = [pytest.param("docker", marks=pytest.mark.docker), "local"]
GAME_LIMITS = GameLimits(game_cpu_s=4, move_cpu_s=2, move_wall_s=4)  # generous: two shared cores
CARDNIM = get_game("cardnim")
LEVEL, SEED = 1, 0  # four moves for this player against the reference: its misbehaviour is seen at its second

PLAYER = '''
import ctypes, json, os, struct, time


def answered(move):
    """The move's frame, written on the result descriptor now (as the player's loop would once act returns)."""
    data = b'{"kind": "answer"}\\n' + json.dumps(move).encode()
    os.write(3, struct.pack(">I", len(data)) + data)


def fill(folder):
    """Files of 1 MiB in `folder` until its tmpfs is full."""
    chunk = b"x" * (1 << 20)
    try:
        for number in range(1 << 20):
            with open(os.path.join(folder, f"hoard-{os.getpid()}-{number}"), "wb") as handle:
                handle.write(chunk)
    except OSError:
        pass


def hoard():
    """Memory no process maps: tmpfs files, System V segments (touched, detached, left), then memfds, until killed."""
    fill("/dev/shm")
    fill("/tmp")
    libc = ctypes.CDLL(None, use_errno=True)
    libc.shmat.restype = ctypes.c_void_p
    size = 32 << 20
    while (ident := libc.shmget(0, ctypes.c_size_t(size), 0o1600)) >= 0:
        address = libc.shmat(ident, None, 0)
        if address in (None, ctypes.c_void_p(-1).value):
            break
        ctypes.memset(address, 1, size)
        libc.shmdt(ctypes.c_void_p(address))
    chunk = b"x" * (1 << 20)
    held = []
    while True:
        fd = os.memfd_create("hoard")
        for _ in range(8):
            os.write(fd, chunk)
        held.append(fd)


class Strategy:
    def __init__(self, setup):
        self.moves = 0

    def act(self, observation):
        move = {"card": max(card for card in observation["my_cards"] if card <= observation["stones"])}
        self.moves += 1
        if self.moves == 1:
            MISBEHAVE
        return move
'''

MISBEHAVIOURS = {  # name: (what it does in its first move, before returning it; its status and its detail, or the ones it may get)
    "exits once it has answered": ("answered(move); os._exit(0)", "runtime_error", "no_result:exit_0"),
    "is killed once it has answered": ("answered(move); os.kill(os.getpid(), 9)", "runtime_error", "signal:SIGKILL"),
    "puts /dev/null over its request descriptor": ("os.dup2(os.open(os.devnull, os.O_RDONLY), 4)", "runtime_error",
                                                   "no_result:exit_0"),
    "closes all its descriptors": ("answered(move); os.closerange(0, 1 << 16)", "runtime_error", "no_result:exit_0"),
    "dies of SIGXCPU between moves": ("""
        import resource
        answered(move)
        resource.setrlimit(resource.RLIMIT_CPU, (1, resource.getrlimit(resource.RLIMIT_CPU)[1]))
        while True:
            pass""", "timeout", "game_cpu_limit"),
    "ignores SIGTERM and SIGPIPE and stops reading": ("""
        import signal
        for number in (signal.SIGTERM, signal.SIGPIPE, signal.SIGHUP, signal.SIGINT):
            signal.signal(number, signal.SIG_IGN)
        answered(move)
        os.close(4)
        time.sleep(1000)""", "timeout", "wall_limit"),
    "hoards memfds between moves": ("""
        answered(move)
        held = []
        while True:
            held.append(os.memfd_create("hoard"))
            os.write(held[-1], b"x" * (8 << 20))""", "runtime_error", "oom"),
    "fills shared memory, System V and tmpfs between moves": ("answered(move); hoard()", "runtime_error", "oom"),
    "floods tmpfs with empty folders between moves": ("""
        answered(move)
        for number in range(1 << 30):
            os.mkdir(f"/tmp/{number}")""", "runtime_error", "oom"),
    "fills the worker from an orphan as the supervisor cleans up": ("""
        import atexit, sys
        atexit.register(hoard)  # never run: a player ends by os._exit or SIGKILL
        Strategy.__del__ = lambda self: hoard()
        parent = os.getpid()
        if os.fork() == 0:
            while os.getppid() == parent:
                time.sleep(0.001)
            hoard()
        answered(move)
        sys.exit(0)""", "runtime_error", ("exception:SystemExit", "oom")),
    "forks a bomb between moves": ("""
        answered(move)
        while True:
            try:
                os.fork()
            except OSError:
                pass""", ("timeout", "runtime_error"), ("cpu_limit", "game_cpu_limit", "wall_limit", "oom")),  # whichever a
    # loaded host trips first: a budget, or the worker's memory filled with the bomb's processes (1 run in 15 here)
    "exhausts its descriptors": ("""
        self.pipes = []  # and plays on, and loses
        try:
            while True:
                self.pipes.append(os.pipe())
                os.write(self.pipes[-1][1], b"x" * 65536)
        except OSError:
            pass""", "legal", ""),
}


def player(misbehave: str) -> str:
    """The player's source, `misbehave` run in its first move."""
    return PLAYER.replace("MISBEHAVE", textwrap.indent(textwrap.dedent(misbehave).strip(), " " * 12).lstrip())


@pytest.fixture(scope="module", params=BACKENDS)
def sandbox(request: pytest.FixtureRequest) -> Iterator[SandboxBackend]:
    """One worker: the game after each misbehaviour is played on the same worker."""
    with get_backend(request.param, Limits(cpu_s=2, memory_mib=256), workers=1) as backend:
        yield backend


def against_reference(sandbox: SandboxBackend, source: str) -> GameRecord:
    held = sandbox.reserve(Program(program_key(source), source, "Strategy"))
    try:
        return play(CARDNIM, CARDNIM.setup(LEVEL, SEED), [ProgramSeat("program", held, GAME_LIMITS),
                                                          StrategyPlayer("ref", CARDNIM.reference_move)])
    finally:
        held.release()


@pytest.mark.parametrize("name", MISBEHAVIOURS)
def test_a_program_that_breaks_itself_between_moves_loses_and_the_worker_plays_on(sandbox: SandboxBackend, name: str) -> None:
    misbehave, status, detail = MISBEHAVIOURS[name]
    statuses, details = (value if isinstance(value, tuple) else (value,) for value in (status, detail))
    record = against_reference(sandbox, player(misbehave))
    assert not void(record) and "infra_error" not in record.kept[0], record
    assert record.statuses[0] in statuses and record.outcome.results == ("loss", "win"), record
    assert record.details[0] in details, record
    if "legal" not in statuses:  # its failure is seen at its next move, or with the move it answered if it was that quick
        assert [move["player"] for move in record.moves].count(0) in (1, 2), record.moves
    after = against_reference(sandbox, player("pass"))
    assert after.statuses == ("legal", "legal") and not void(after), after
