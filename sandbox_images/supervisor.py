"""codebench sandbox supervisor: the trusted process that runs untrusted solver programs.

Standard library only; runs inside a worker container (or, for the `local` backend, in bubblewrap's namespaces).
It reads length-prefixed JSON requests on stdin and writes replies on stdout, or on a unix socket (`--channel`),
a channel no solver process can reach. Each request and each reply is a JSON frame followed by an attachment frame
(often empty): an observation's JSON text on its way to a player, an answer's on its way back, never re-encoded here:

  {"op": "hello"}                                                    → {"ready": true, ...}
  {"op": "load", "source": str, "entry": "solve", "limits": {...}}  → compile once, probe-import once
  {"op": "run", "instance": <JSON>}                                  → one fresh forked process per instance
  {"op": "start", "setup": <JSON>, "game": {...}}                   → a game's player: Strategy(setup) in one child
  {"op": "act"} + the observation's JSON text                      → the player's next move, under the move's budgets
  {"op": "end"}                                                      → the game is over: stop the player, clean up
  {"op": "bye"}                                                      → clean up, {"bye": true}, exit

Every solver process is forked from a warm interpreter that holds the program's code and nothing any run passed
through us (the program's `Forker`), each ahead of its task (a spare, forked while we reply to the host and read its
next request, or while the last instance runs). The child takes fresh stdio pipes, a private result pipe (fd 3) and a
request pipe (fd 4, its task), closes every other descriptor and sets rlimits, then waits as root; with its task it
drops to the solver uid, and only then runs untrusted code. The facts a verdict rests on
(our kills, CPU and wall time, memory kills, output caps) are recorded here, never taken from the
solver; after every run each process of the solver uid is killed and its scratch files removed. A child sees the heap
of the process it was forked from, and ours keeps, freed but not overwritten, what passed through it (a game's output,
an answer, a source): hence the forker, itself forked from a copy of us made before any request (`Zygote`), so that no
program reads another's, or its own earlier game's, in its memory.
"""

from __future__ import annotations

import argparse
import ctypes
import fcntl
import gc
import itertools
import json
import marshal
import math
import os
import resource
import select
import selectors
import signal
import socket
import struct
import sys
import time
import traceback
import types

for _warm in ("bisect", "collections", "copy", "dataclasses", "decimal", "fractions", "functools", "heapq",
              "itertools", "math", "operator", "random", "re", "statistics", "string", "typing"):
    __import__(_warm)  # the program's own imports of these are free in every forked child

_EXIT = os._exit
_LIBC = ctypes.CDLL(None, use_errno=True)  # loaded once: every child calls prctl before it runs the program
HEADER = struct.Struct(">I")
RESULT_FD = 3
REQUEST_FD = 4  # a child reads its task here (marshalled), and a player its observations (JSON): a length-prefixed frame each
EXIT_GRACE_S = 0.1  # a player told its game is over exits in well under a millisecond; one still there is killed
CORES = len(os.sched_getaffinity(0))  # how many CPU seconds the program can burn per second of wall time
SHIELD_ID = 65534  # "nobody": the real uid of our clean-up as the solver (`_as_solver`); no process in the sandbox has it
EXCERPT = 4096  # bytes kept from the head and from the tail of each output stream
SMALL_ATTACHMENT = 1 << 16  # answers up to this size travel in the same write as their reply
MAX_HEADER = 65536  # the child's own result header (clipped fields, escaped as ASCII) is smaller; a larger one was forged
TEXT_FIELDS = {"type": 100, "message": 300, "traceback": 3000}  # what a result header may say, clipped
SHARED_DIRS = ("/dev/shm", "/dev/mqueue")  # writable by any uid, outside the wiped folder
IPC_KINDS = ("shm", "msg", "sem")  # System V objects outlive their creator unless removed
CHILD_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "OPENBLAS_NUM_THREADS": "1",
             "OMP_NUM_THREADS": "1", "PYTHONHASHSEED": "0"}


class Channel:
    """Where the host's requests come from and our replies go: our stdin and stdout, or (`--channel PATH`) a unix
    socket the host listens on, bound into the sandbox where only root can reach it: no container engine in between."""

    incoming = sys.stdin.buffer
    outgoing = sys.stdout.buffer

    @classmethod
    def dial(cls, path: str) -> None:
        connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        connection.connect(path)
        cls.incoming, cls.outgoing = connection.makefile("rb"), connection.makefile("wb")


def send(message: dict, attachment: bytes | memoryview = b"") -> None:
    """One JSON frame; `attachment` (an answer's raw bytes) follows as a frame of its own, never re-encoded."""
    data = json.dumps({**message, "attachment": len(attachment)}).encode()
    frames = HEADER.pack(len(data)) + data + HEADER.pack(len(attachment))
    if len(attachment) <= SMALL_ATTACHMENT:  # one write, one stream frame for the host to read
        Channel.outgoing.write(frames + attachment)
    else:  # a large answer is written from where it lies, never copied
        Channel.outgoing.write(frames)
        Channel.outgoing.write(attachment)
    Channel.outgoing.flush()


def receive() -> dict | None:
    """One request, its attachment's bytes under "attachment" (None at the channel's end)."""
    frame = _frame(Channel.incoming)
    attachment = None if frame is None else _frame(Channel.incoming)
    return None if attachment is None else {**json.loads(frame), "attachment": attachment}


def _frame(stream) -> bytes | None:
    """One length-prefixed frame from `stream` (None at its end)."""
    size = stream.read(HEADER.size)
    if len(size) < HEADER.size:
        return None
    return stream.read(HEADER.unpack(size)[0])


class Capture:
    """A stream's byte count with its head and tail kept, so floods cost bounded memory."""

    def __init__(self) -> None:
        self.total = 0
        self.head = b""
        self.tail = b""

    def add(self, data: bytes) -> None:
        self.total += len(data)
        if len(self.head) < EXCERPT:
            room = EXCERPT - len(self.head)
            self.head, data = self.head + data[:room], data[room:]
        self.tail = (self.tail + data)[-EXCERPT:]

    def text(self) -> str:
        gap = self.total - len(self.head) - len(self.tail)
        middle = f"\n[… {gap} bytes not kept …]\n".encode() if gap > 0 else b""
        return (self.head + middle + self.tail).decode("utf-8", "backslashreplace")


class Child:
    """Our record of one forked child: its pipes, its output, the frames it wrote, and (a game's player) its game.

    A child is forked ahead of its task (a spare, made while the host reads our last reply or the last instance runs):
    it enters the sandbox, then waits as root for one task frame on REQUEST_FD (a source to probe, an instance to
    solve, or a game's setup to play) and only then runs the program. The task is ours, marshalled: a child's first
    JSON decode copies some 80 µs of the decoder's pages, which an instance's child need never pay. Its selector lives
    as long as it does: a move costs no new epoll.
    """

    TICK = os.sysconf("SC_CLK_TCK")

    def __init__(self, pid: int, pidfd: int, fds: dict, request: int) -> None:
        self.pid, self.pidfd, self.fds, self.request = pid, pidfd, fds, request
        self.selector = selectors.DefaultSelector()
        for name, fd in fds.items():
            self.selector.register(fd, selectors.EVENT_READ, name)
        self.selector.register(self.pidfd, selectors.EVENT_READ, "exit")
        self.pending = b""  # frame bytes not yet taken by the request pipe
        self.writing = False  # the request pipe is watched for room while bytes are pending
        self.captures = {"stdout": Capture(), "stderr": Capture()}
        self.result = bytearray()
        self.closed: set = set()  # streams at end of file
        self.status: dict | None = None  # set once the child is reaped
        self.game: dict = {}  # a player's budgets: game_cpu_s, move_cpu_s, move_wall_s
        self.base: float | None = None  # the solver's CPU counted in the cgroup as its game began (None: no cgroup)
        self.ooms = 0  # the cgroup's memory kills as its game began: any more by its stop were of its processes
        self.game_cpu = 0.0

    def send(self, payload: bytes) -> None:
        """Queue one frame for the child and write what its pipe takes now; `write` goes on as it takes more."""
        self.pending += HEADER.pack(len(payload)) + payload
        self.write()

    def write(self) -> None:
        try:
            self.pending = self.pending[os.write(self.request, self.pending):]
        except BlockingIOError:
            pass
        except BrokenPipeError:  # it stopped reading (SIGPIPE is ignored): it has exited, or the budgets stop it
            self.pending = b""
        if self.pending and not self.writing:
            self.selector.register(self.request, selectors.EVENT_WRITE, "request")
        elif self.writing and not self.pending:
            self.selector.unregister(self.request)
        self.writing = bool(self.pending)

    def frame(self) -> bytearray | None:
        """The first whole frame the player wrote, taken out of the buffer (None: not yet)."""
        if len(self.result) < HEADER.size:
            return None
        size = HEADER.unpack(self.result[:HEADER.size])[0]
        if len(self.result) < HEADER.size + size:
            return None
        frame = self.result[HEADER.size:HEADER.size + size]
        del self.result[:HEADER.size + size]
        return frame

    def cpu(self) -> float:
        """The child's CPU seconds and its reaped children's, from /proc (0 once it is gone)."""
        try:
            with open(f"/proc/{self.pid}/stat", "rb") as handle:
                fields = handle.read().rpartition(b")")[2].split()
            return sum(int(value) for value in fields[11:15]) / self.TICK
        except (OSError, ValueError, IndexError):
            return 0.0

    def drain(self, take) -> None:
        """Keep what the child's pipes already hold (never wait for an end of file a grandchild may hold open)."""
        for name, fd in self.fds.items():
            for _ in range(64):
                data = None if name in self.closed else _read(fd)
                if not data or take(name, data, self.captures, self.result):
                    break

    def let_go(self, grace_s: float) -> bool:
        """Tell the child it is not needed (its request pipe closed: our loop in it exits) and wait up to `grace_s` for
        it to go; False when it is still there (its program kept it), for the caller to kill."""
        os.close(self.request)
        self.request = -1
        return bool(select.select([self.pidfd], [], [], grace_s)[0])

    def close(self) -> None:
        self.selector.close()
        for fd in (*self.fds.values(), self.request, self.pidfd):
            _quietly(os.close, fd)


class Reserve:
    """Memory kept for us in the cgroup we share with the program, held by a child of ours the kernel kills before us.

    A program can fill the worker with what outlives its processes (tmpfs and shared memory files, System V segments,
    inodes). The kernel then kills its processes (oom_score_adj 1000), which frees only their own few pages, and our
    next allocation would leave it nothing to kill but us. So a child holds SIZE of touched memory at oom_score_adj
    SCORE: killed after every process of the program, before us (0), out of the program's reach (it is root's). Its
    death is the room we need to reply and clean up (a fork to kill and wipe costs about 1.5 MiB); it is started again
    once the slate is proven clean. SIZE comes out of what a worker's limit adds to the program's for us (96 MiB, of
    which we use about 22). Without a cgroup and a solver uid (the unsafe-local backend) no memory is shared: no holder.
    """

    SIZE = 16 << 20
    SCORE = 500  # badness adds SCORE/1000 of the worker's limit: a holder outweighs us, never a process of the program

    def __init__(self, wanted: bool) -> None:
        self.wanted = wanted
        self.pidfd: int | None = None

    def hold(self) -> None:
        """Start the holder, unless it is alive."""
        if not self.wanted or (self.pidfd is not None and not select.select([self.pidfd], [], [], 0)[0]):
            return
        if self.pidfd is not None:
            os.close(self.pidfd)
        pid = os.fork()
        if pid == 0:
            try:
                os.closerange(0, os.sysconf("SC_OPEN_MAX"))
                _oom_score(self.SCORE)
                _prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG: gone with us
                held = b"\1" * self.SIZE  # touched: charged to the cgroup
                while held:
                    signal.pause()
            finally:
                os._exit(0)
        self.pidfd = os.pidfd_open(pid)


class Peer:
    """A helper process of ours we speak to in messages, one each way (SOCK_SEQPACKET), descriptors alongside."""

    def __init__(self, pid: int, channel: socket.socket) -> None:
        self.pid, self.socket, self.pidfd = pid, channel, os.pidfd_open(pid)

    @staticmethod
    def start(serve) -> "tuple[int, socket.socket]":
        """Fork a helper that runs `serve(its end of a new socket pair)` and ends with us; (its pid, our end)."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        pid = os.fork()
        if pid == 0:
            try:
                ours.close()
                _prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG: gone with its parent, and what it forked with it
                serve(theirs)
            finally:
                _EXIT(0)
        theirs.close()
        return pid, ours

    def ask(self, message: bytes, fds: list[int] | None = None) -> bytes:
        self.send(message, fds)
        return self.reply()[0]

    def send(self, message: bytes, fds: list[int] | None = None) -> None:
        if fds:
            socket.send_fds(self.socket, [message], fds)
        else:
            self.socket.send(message)

    def reply(self) -> tuple[bytes, list[int]]:
        """Its next message, and the descriptor that came with it, if one did."""
        message, fds, _, _ = socket.recv_fds(self.socket, 65536, 1)
        if not message:
            raise RuntimeError(f"helper {self.pid} has gone")  # our crash: the host rebuilds the worker
        return message, fds

    def stop(self) -> None:
        """Close its socket (its loop ends there) and wait until it has gone."""
        self.socket.close()
        select.select([self.pidfd], [], [], 1.0)
        os.close(self.pidfd)


class Zygote(Peer):
    """A copy of this supervisor forked at its start, before any request, that forks each program's `Forker`: a process
    forked from us later would hold in its heap what earlier runs passed through us. Its one message: `forker` with the
    forker's end of a socket pair → the forker's pid. It reaps the forkers that have ended."""

    def __init__(self, supervisor: "Supervisor") -> None:
        super().__init__(*self.start(supervisor.serve_forkers))

    def forker(self, program: dict) -> "Forker":
        """A forker for `program` (source, entry, limits), sent to it in a memory file: a source has no size limit."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        pid = int(self.ask(b"forker", [theirs.fileno()]))
        theirs.close()
        forker = Forker(pid, ours)
        held = os.memfd_create("codebench-program")
        try:
            with open(held, "wb", closefd=False) as handle:
                handle.write(json.dumps(program).encode())
            os.lseek(held, 0, os.SEEK_SET)
            forker.ask(b"program", [held])
        finally:
            os.close(held)
        return forker


class Forker(Peer):
    """The process every child of one program is forked from, and the children's parent.

    A child sees the heap of the process it was forked from, and ours keeps what passed through it, freed but not
    overwritten: a game's observations and its player's output, an instance's answer. Forked from us, the next game's
    player could read the last one's in its own memory: a channel from game to game, or from program to program. So
    each program gets this process, forked from the `Zygote` as it loads: it holds the program (and numpy, warm, for a
    program that names it), compiles it once the probe has, forks children onto the pipe ends we send it, and reaps
    each as it exits; nothing of a run ever passes through it. Messages: `program` (+ a memory file) → {}, `fork` (+
    four descriptors) → pid, `compile` → a syntax error or {}; and, unasked, `ended` + how a child ended, so that we
    learn of an exit as the forker does, not by asking once we have.
    """

    def __init__(self, pid: int, channel: socket.socket) -> None:
        super().__init__(pid, channel)
        self.ordered = False  # a fork asked for, its pid not yet read
        self.ended: dict[int, dict] = {}  # how children ended, told before we asked

    def order(self, fds: list[int]) -> None:
        """Ask for a child on `fds`; it is forked meanwhile, and `forked` gives its pid."""
        assert not self.ordered
        self.send(b"fork", fds)
        self.ordered = True

    def forked(self) -> tuple[int, int]:
        """The child ordered: its pid, and a pidfd the forker opened as it forked (ours to close), which stays valid
        however soon the child exits and is reaped."""
        self.ordered = False
        pid, fds = self.reply()
        return int(pid), fds[0]

    def ask(self, message: bytes, fds: list[int] | None = None) -> bytes:
        assert not self.ordered  # replies come in order: the child ordered is taken first
        return super().ask(message, fds)

    def reply(self) -> tuple[bytes, list[int]]:
        """The reply to our last message; the exits told meanwhile are kept."""
        while (told := self.told()) is None:
            pass
        return told

    def told(self) -> tuple[bytes, list[int]] | None:
        """The forker's next message: a reply (a fork's comes with the child's pidfd), or None for an exit (kept in
        `ended`)."""
        message, fds = super().reply()
        if not message.startswith(b"ended "):
            return message, fds
        ended = json.loads(message[len(b"ended "):])
        self.ended[ended.pop("pid")] = ended
        return None

    def reap(self, pid: int) -> dict:
        """How the child ended, once it has: exit_code, signal, cpu_s (its own and its reaped children's), peak_mib."""
        assert not self.ordered  # replies come in order: the child ordered is taken first
        while pid not in self.ended:
            self.told()
        return self.ended.pop(pid)

    def compile(self) -> dict:
        return json.loads(self.ask(b"compile"))


class Supervisor:
    """Runs one program's instances, or plays its strategy in games; `solver` is the (uid, gid) children drop to."""

    def __init__(self, solver: tuple[int, int] | None, scratch: str, wipe: str, cgroup: str | None) -> None:
        self.solver = solver
        self.scratch = scratch
        self.wipe = wipe
        self.cgroup = cgroup
        self.cpu_usage = _CgroupFile(cgroup, ("cpuacct/cpuacct.usage", "cpu.stat"))
        self.memory_events = _CgroupFile(cgroup, ("memory.events", "memory/memory.oom_control", "memory.oom_control"))
        self.code = None  # the program, compiled: in the forker (and the children it forks) only
        self.source = ""  # the program: in the forker only
        self.null, self.child_files = -1, ()  # /dev/null and the children's stdio, result and request files: in the forker only
        self.entry = "solve"
        self.loaded = False
        self.zygote: Zygote | None = None  # started by `main` once we are warm
        self.forker: Forker | None = None
        self.limits: dict = {}
        self.player: Child | None = None
        self.spare: Child | None = None
        self.ordered: dict | None = None  # the spare's pipes while the forker forks it
        self.slate_clean = False  # proven at the last clean: a spare is forked only onto a clean slate
        self.reserve = Reserve(cgroup is not None and solver is not None)
        self.reserve.hold()

    # -- requests ------------------------------------------------------------------------------
    def load(self, request: dict) -> tuple[dict, bytes | memoryview]:
        """Compile and import the program in a child first (under its limits: a compile that recurses, or eats
        memory, fails there as the program's own); only a program that compiled there is compiled here. A session
        serves one program after another: what the last one left (a game not ended, the spare made with its code) is
        stopped first, and its slate proven clean, or the load is refused (the host then rebuilds the worker)."""
        self.end_player()
        if not self.clean()["clean"]:
            return {"error": "the last program's slate cannot be proven clean"}, b""
        if self.forker is not None:
            self.discard_spare()  # the forker's child, with its program
            self.forker.stop()
        self.limits, self.loaded = request["limits"], False
        self.forker = self.zygote.forker({name: request[name] for name in ("source", "entry", "limits")})
        facts, body = self.execute({"source": request["source"]})
        if facts["result"].get("kind") != "syntax_error" and not facts["killed"] and not facts["oom"]:
            failure = self.forker.compile()  # it compiled in the child; still, never the forker's crash
            facts["result"] = failure or facts["result"]
            self.loaded = not failure
        return {"facts": facts}, body

    def serve_forkers(self, channel: socket.socket) -> None:
        """The zygote's loop (`Zygote`), until its socket ends."""
        while True:
            message, fds, _, _ = socket.recv_fds(channel, 64, 1)
            if not message:
                return
            _reap_orphans()  # the forkers that have ended
            pid = os.fork()
            if pid == 0:
                channel.close()
                _prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG: gone with the zygote
                self.serve_forks(socket.socket(fileno=fds[0]))
                _EXIT(0)
            os.close(fds[0])
            channel.send(str(pid).encode())

    def serve_forks(self, channel: socket.socket) -> None:
        """A forker's loop (`Forker`), until its socket ends: each child reaped as it exits, and how it ended told."""
        channel = self.lay_out_descriptors(channel)
        children: dict[int, int] = {}  # a child's pidfd → its pid
        while True:
            ready = select.select([channel, *children], [], [])[0]
            for pidfd in set(ready) & children.keys():
                channel.send(b"ended " + _ended(children.pop(pidfd)))
                os.close(pidfd)
            if channel not in ready:
                continue
            message, fds, _, _ = socket.recv_fds(channel, 64, 4)
            if not message:
                return
            passed: list[int] = []  # descriptors that go with the reply
            if message == b"program":  # the first: what its children run
                with open(fds[0], "rb") as handle:
                    program = json.loads(handle.read())
                self.source, self.entry, self.limits = program["source"], program["entry"], program["limits"]
                self.restrict_inherited()
                if "numpy" in self.source:
                    _warm_numpy()
                reply = b"{}"
            elif message == b"fork":
                pid = os.fork()
                if pid == 0:
                    self.child_main(fds)
                for fd in fds:
                    os.close(fd)
                pidfd = os.pidfd_open(pid)  # opened before we can have reaped it: it is this child's, however soon it ends
                children[pidfd] = pid
                reply, passed = str(pid).encode(), [pidfd]  # the supervisor gets its own copy
            else:  # compile
                try:
                    self.code = compile(self.source, "solver.py", "exec", dont_inherit=True)
                    _settle()  # what the compile freed
                    reply = b"{}"
                except BaseException as exc:  # noqa: B036
                    reply = json.dumps(compile_failure(exc)).encode()
            if passed:
                socket.send_fds(channel, [reply], passed)
            else:
                channel.send(reply)

    def run(self, request: dict) -> tuple[dict, bytes | memoryview]:
        if not self.loaded:
            return {"error": "no program loaded"}, b""
        facts, body = self.execute({"instance": request["instance"]})
        return {"facts": facts}, body

    def prepare(self) -> None:
        """Order the next task's child (the spare), so that it has been forked and has entered the sandbox when its task
        comes: between requests, while the host reads our reply, and (with a solver uid) as soon as an instance's child
        has its task. It waits as root and takes the solver's identity with its task (`become_solver`): the program
        running beside it cannot signal, trace or count it. Never after a clean-up that failed (the host rebuilds the
        worker), and never beside a game's player (its budgets count all the worker's CPU but ours). Measured on 2 CPUs:
        forked during a game (its CPU and the forker's subtracted from the player's), it cost the game's first move the
        0.8 ms it saved the next start; forked at a game's end, it slowed the player's exit (a game 0.3 ms faster on
        the local backend, 0.2 ms slower on Docker)."""
        if self.spare is None and self.ordered is None and self.player is None and self.loaded and self.slate_clean:
            self.ordered = self.order_child()

    # -- a game: one long-lived player child ---------------------------------------------------
    def start(self, request: dict) -> tuple[dict, bytes | memoryview]:
        """The game's player: a child imports the program and builds `Strategy(setup)`, then answers one observation
        per `act`. Its game CPU is the cgroup's count from the setup sent on (`player_cpu`), its CPU rlimit (whole
        seconds) only a backstop; each move's CPU and wall time are measured and capped here."""
        if not self.loaded:
            return {"error": "no program loaded"}, b""
        self.end_player()
        player = self.take_child()
        player.game = game = request["game"]  # game_cpu_s, move_cpu_s, move_wall_s
        player.base, player.ooms = self.solver_cpu(), self.oom_kills()
        self.player = player
        # only a backstop, well above the budget: the kernel's tick-sampled CPU, which RLIMIT_CPU counts in whole seconds,
        # ran up to 13% ahead of the exact count the budget binds (`player_cpu`) for a syscall-heavy loop on a busy machine
        return self.exchange(marshal.dumps({"setup": request["setup"], "cpu_s": math.ceil(1.5 * game["game_cpu_s"]) + 1}))

    def act(self, request: dict) -> tuple[dict, bytes | memoryview]:
        """The player's next move; a player already stopped (it exited as it answered) gives what it wrote before, then
        its exit: its own failure, never ours."""
        if self.player is None:
            return {"error": "no player in a game"}, b""
        return self.exchange(request["attachment"])

    def end(self, request: dict) -> tuple[dict, bytes | memoryview]:
        """The game is over: the player and all it started are stopped, its output excerpts given, the slate cleaned."""
        return {"facts": {"result": {"kind": "ended"}, **self.end_player(), **self.timed_clean()}}, b""

    def exchange(self, payload: bytes) -> tuple[dict, bytes | memoryview]:
        """Send the player one frame and watch it until it answers one frame, exits or breaks a budget. The facts are
        this move's: its CPU and wall time, and the game's CPU so far (`player_cpu`: what the player burnt between moves
        counts, and a player already over the game's budget gets no next move); a player that stopped also gets its exit
        status."""
        player, limits = self.player, self.player.game
        started, before = time.monotonic(), self.player_cpu(player)
        killed = "game_cpu_limit" if before > limits["game_cpu_s"] else None
        exited = player.status is not None
        if killed is None and not exited:
            player.send(payload)
        frame = None
        game_cpu = before
        while frame is None and killed is None and not exited:
            remaining = started + limits["move_wall_s"] - time.monotonic()
            if remaining <= 0:
                killed = "wall_limit"
                break
            left = min(limits["move_cpu_s"] - (game_cpu - before), limits["game_cpu_s"] - game_cpu)
            exited, killed = self.pump(player, min(remaining, 0.1, max(0.005, left / CORES)))  # sooner as a budget nears
            frame = player.frame()
            game_cpu = self.player_cpu(player)
            if game_cpu - before > limits["move_cpu_s"]:
                killed = killed or "cpu_limit"
            elif game_cpu > limits["game_cpu_s"]:
                killed = killed or "game_cpu_limit"
        if frame is None:  # it exited or was stopped: what it wrote before still counts (else the count is fresh)
            player.drain(self.take)
            frame = player.frame()
            game_cpu = self.player_cpu(player)
        header, body = parse_result(frame, self.limits["answer_bytes"]) if frame is not None else ({"kind": "none"}, b"")
        facts = {"result": header, "killed": killed, "cpu_s": round(game_cpu - before, 4), "game_cpu_s": round(game_cpu, 4),
                 "wall_s": round(time.monotonic() - started, 4)}
        if killed or exited or header["kind"] not in ("ready", "answer"):  # the player is done: the game ends for it
            facts.update(self.stop_player())
        return {"facts": facts}, body

    def pump(self, child: Child, timeout: float) -> tuple[bool, str | None]:
        """Wait up to `timeout` for the child: write what its request pipe takes, keep what it wrote. Returns whether it
        has exited, and the kill reason when an output crossed its cap."""
        exited, killed = False, None
        for key, _ in child.selector.select(timeout):
            if key.data == "exit":
                exited = True
            elif key.data == "request":
                child.write()
            else:
                data = _read(key.fd)
                if data == b"":
                    child.selector.unregister(key.fd)
                    child.closed.add(key.data)
                elif data:
                    killed = self.take(key.data, data, child.captures, child.result) or killed
        return exited, killed

    def stop_player(self, grace_s: float = 0.0) -> dict:
        """Stop the player and all it started; its exit status and whether the kernel killed any of its processes for
        memory (read before our kill), kept for the next call. With `grace_s`, the player is first told the game is over
        (its request pipe closed: our loop in it exits), and killed only if it is not gone by then."""
        player = self.player
        if player.status is None:
            oom = self.oom_kills() > player.ooms
            if not (grace_s and player.let_go(grace_s)):
                self.kill_solver()
            ended = self.reap(player.pid)
            player.status = {"exit_code": ended["exit_code"], "signal": ended["signal"], "peak_mib": ended["peak_mib"], "oom": oom}
        return dict(player.status)

    def end_player(self) -> dict:
        """Stop the player if there is one, close its pipes, and give its status and the game's output excerpts. What it
        left running is killed by the clean-up that follows."""
        player = self.player
        if player is None:
            return {}
        self.player_cpu(player)  # the game's CPU to its end (what it left running included), counted before it stops
        facts = self.stop_player(grace_s=EXIT_GRACE_S)
        player.drain(self.take)
        player.close()
        self.player = None
        captures = player.captures
        return {**facts, "game_cpu_s": round(player.game_cpu, 4),
                "stdout": captures["stdout"].text(), "stdout_bytes": captures["stdout"].total,
                "stderr": captures["stderr"].text(), "stderr_bytes": captures["stderr"].total}

    # -- children ------------------------------------------------------------------------------
    def order_child(self) -> dict:
        """Have the forker fork a child that enters the sandbox and waits for its task (`child_main`); our pipe ends:
        stdout, stderr and result to read, request to write."""
        pipes = {name: os.pipe() for name in ("stdout", "stderr", "result", "request")}
        theirs = [pipes["stdout"][1], pipes["stderr"][1], pipes["result"][1], pipes["request"][0]]
        self.forker.order(theirs)
        for fd in theirs:
            os.close(fd)
        ours = {name: ends[1] if name == "request" else ends[0] for name, ends in pipes.items()}
        for fd in ours.values():
            os.set_blocking(fd, False)
        return ours

    def child_of(self, ours: dict) -> Child:
        """The child ordered with our pipe ends `ours`, once forked."""
        request = ours.pop("request")
        return Child(*self.forker.forked(), ours, request)

    def take_child(self) -> Child:
        """The spare, if it is alive and waiting; else a child forked now."""
        spare, self.spare = self.arrived(), None
        if spare is not None and not select.select([spare.pidfd], [], [], 0)[0]:
            return spare
        if spare is not None:  # gone before its task (the sandbox would not take it): reaped, and one forked anew
            self.reap(spare.pid)
            spare.close()
        return self.child_of(self.order_child())

    def arrived(self) -> Child | None:
        """The spare, the one ordered included (the forker's replies come in order: read before it is asked more)."""
        if self.ordered is not None:
            self.spare, self.ordered = self.child_of(self.ordered), None
        return self.spare

    def discard_spare(self) -> None:
        """Kill the spare: it has run only our code, as root, so no grace is owed."""
        spare, self.spare = self.arrived(), None
        if spare is None:
            return
        try:
            signal.pidfd_send_signal(spare.pidfd, signal.SIGKILL)
        except ProcessLookupError:  # already gone (the kernel may kill it for the program's memory) and reaped
            pass
        self.reap(spare.pid)
        spare.close()

    def reap(self, pid: int) -> dict:
        """How a child of the forker ended (`Forker.reap`), once a spare ordered meanwhile is taken in."""
        self.arrived()
        return self.forker.reap(pid)

    def execute(self, task: dict) -> tuple[dict, bytes | memoryview]:
        """Hand a child `task` (a source to compile and import, or an instance to solve) and watch it to its exit;
        returns the facts and the answer's bytes."""
        child = self.take_child()
        oom_before, cpu_before = self.oom_kills(), self.cgroup_cpu()
        started = time.monotonic()
        child.send(marshal.dumps({**task, "cpu_s": int(self.limits["cpu_s"])}))
        if self.solver is not None:  # without one, the spare would be the program's to reach, and the clean-up's to kill
            self.prepare()  # the next task's child, forked while this one runs
        facts, body = self.watch(child, started, cpu_before)
        facts["oom"] = self.oom_kills() > oom_before
        return {**facts, **self.timed_clean()}, body

    def lay_out_descriptors(self, channel: socket.socket) -> socket.socket:
        """In a forker, once: the descriptors its children start from. 0-4 stay open (our stdio, then a pipe's ends on
        RESULT_FD and REQUEST_FD), so the pipe ends a child is forked onto, and /dev/null, come above them: the child
        moves each onto its number in any order (`enter`). Its text stdio and its buffered result and request files are
        made here, on our stdio and that pipe (made in each child, they cost it some 0.3 ms and 60 µs of copied pages);
        in a child they sit on its own descriptors, by number. Returns the channel, moved above them."""
        moved = socket.socket(fileno=fcntl.fcntl(channel.fileno(), fcntl.F_DUPFD, 64))
        channel.close()
        ends = os.pipe()
        lifted = [fcntl.fcntl(fd, fcntl.F_DUPFD, 64) for fd in ends]  # neither end is overwritten as the other is moved
        for fd, target in zip(lifted, (REQUEST_FD, RESULT_FD)):
            os.dup2(fd, target)  # over what our supervisor had there (its channel, a cgroup file): none of ours
        for fd in {*ends, *lifted} - {REQUEST_FD, RESULT_FD}:
            os.close(fd)
        self.null = os.open(os.devnull, os.O_RDONLY)
        self.child_files = (open(0, closefd=False), open(1, "w", closefd=False), open(2, "w", closefd=False),
                            open(RESULT_FD, "wb", closefd=False), open(REQUEST_FD, "rb", closefd=False))
        return moved

    def child_main(self, pipes: list[int]) -> None:
        """In the forked child: enter the sandbox, wait for the task, then run untrusted code. Never returns."""
        self.enter(pipes)
        stdin, stdout, stderr, result, requests = self.child_files
        sys.stdin, sys.stdout, sys.stderr = stdin, stdout, stderr
        try:
            task = marshal.loads(_frame(requests))
            resource.setrlimit(resource.RLIMIT_CPU, (task["cpu_s"], task["cpu_s"] + 1))  # lowered: hard = soft + 1
            self.become_solver()
        except BaseException:  # noqa: B036 — no task (its pipe closed), or the sandbox not set up: no result frame
            _EXIT(0)
        if "setup" in task:
            self.play(task["setup"], stdout, stderr, result, requests)
        else:
            self.solve(task, stdout, stderr, result)

    def solve(self, task: dict, stdout, stderr, result) -> None:
        """Compile `task`'s source (a load's probe) or solve its instance with the loaded program. Never returns."""
        header: dict = {"kind": "answer"}
        body = b""
        if "source" in task:
            try:
                self.code = compile(task["source"], "solver.py", "exec", dont_inherit=True)
            except BaseException as exc:  # noqa: B036 — SyntaxError, NUL bytes, RecursionError, MemoryError: all the program's
                header = compile_failure(exc)
        try:
            if header["kind"] != "answer":
                raise _Reported
            entry = self.import_program()
            if not callable(entry):
                header = {"kind": "no_code", "message": f"the program defines no callable {self.entry}()"}
            elif "instance" not in task:
                header = {"kind": "loaded"}
            else:
                answer = entry(task["instance"])
                try:
                    body = json.dumps(answer, allow_nan=False).encode()
                except (TypeError, ValueError, RecursionError) as exc:
                    header = {"kind": "not_json", "type": type(answer).__name__[:100], "message": _text(exc)}
        except _Reported:
            pass
        except BaseException as exc:  # noqa: B036 — every way the program can fail is a verdict
            header = {"kind": "exception", "type": type(exc).__name__[:100], "message": _text(exc), "traceback": _traceback()}
        _flush(stdout, stderr)
        try:
            result.write(json.dumps(header).encode() + b"\n" + body)
            result.flush()
        finally:
            _EXIT(0)  # bound at start-up: the program may have replaced os._exit

    def play(self, setup, stdout, stderr, result, requests) -> None:
        """Build the strategy, then answer observations, a frame each. Never returns."""
        header, body = {"kind": "ready"}, b""
        try:
            entry = self.import_program()
            if not callable(entry):
                header = {"kind": "no_code", "message": f"the program defines no callable {self.entry}"}
                raise _Reported
            strategy = entry(setup)
            while True:
                _flush(stdout, stderr)
                _reply(result, header, body)
                observation = _frame(requests)
                if observation is None:  # the game is over
                    _EXIT(0)
                move = strategy.act(json.loads(observation))
                try:
                    header, body = {"kind": "answer"}, json.dumps(move, allow_nan=False).encode()
                except (TypeError, ValueError, RecursionError) as exc:
                    header, body = {"kind": "not_json", "type": type(move).__name__[:100], "message": _text(exc)}, b""
                    raise _Reported from None
        except _Reported:
            pass
        except BaseException as exc:  # noqa: B036 — every way the program can fail is a verdict
            header, body = {"kind": "exception", "type": type(exc).__name__[:100], "message": _text(exc),
                            "traceback": _traceback()}, b""
        _flush(stdout, stderr)
        try:
            _reply(result, header, body)
        finally:
            _EXIT(0)

    def enter(self, pipes: list[int]) -> None:
        """Enter the sandbox, still root: fresh stdio, result and request pipes (`pipes`: the ends for stdout, stderr, the
        result and the request), no other descriptor, the rlimits of its own (its forker set those it inherits). The
        sandbox not set up means no result frame: reported as no_result."""
        try:
            os.setsid()
            for target, fd in enumerate((self.null, *pipes)):  # 0 null, 1 stdout, 2 stderr, RESULT_FD, REQUEST_FD
                os.dup2(fd, target)  # every source is above every target (`lay_out_descriptors`): none is overwritten
            os.closerange(REQUEST_FD + 1, os.sysconf("SC_OPEN_MAX"))
            self.restrict()
        except BaseException:  # noqa: B036
            os._exit(70)

    def import_program(self):
        """Run the compiled program as the module `__solver__` (importable by name: pickle finds its functions) and
        return its entry point (None when it defines none)."""
        module = types.ModuleType("__solver__")
        sys.modules[module.__name__] = module
        namespace = module.__dict__
        namespace["__builtins__"] = __builtins__
        exec(self.code, namespace)
        return namespace.get(self.entry)

    def restrict_inherited(self) -> None:
        """In a forker, once: the limits its children inherit (hard = soft, so the solver cannot raise them), none of
        which binds the forker (root forks past RLIMIT_NPROC; it writes no file and holds a dozen descriptors)."""
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        resource.setrlimit(resource.RLIMIT_FSIZE, (self.limits["file_bytes"],) * 2)
        resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))
        if self.solver is not None:
            resource.setrlimit(resource.RLIMIT_NPROC, (self.limits["processes"],) * 2)
        os.umask(0o077)
        _prctl(38, 1)  # PR_SET_NO_NEW_PRIVS

    def restrict(self) -> None:
        """In a child: what fork does not pass on, or would bind its forker. The CPU rlimit comes with the task; the
        environment is the supervisor's own, set once at its start (`CHILD_ENV`)."""
        if self.limits.get("address_space_bytes"):
            resource.setrlimit(resource.RLIMIT_AS, (self.limits["address_space_bytes"],) * 2)
        _oom_score(1000)  # the solver dies first, never us
        _prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG: die with the forker

    def become_solver(self) -> None:
        """The solver's identity and folder, taken with the task: until then the child waits as root (`prepare`), and the
        scratch folder it enters is the one the last clean-up made."""
        if self.solver is not None:
            uid, gid = self.solver
            os.setgroups([])
            os.setgid(gid)
            os.setuid(uid)
            _prctl(1, signal.SIGKILL)  # the new identity cleared PR_SET_PDEATHSIG
        os.chdir(self.scratch)

    # -- watching ------------------------------------------------------------------------------
    def watch(self, child: Child, started: float, cpu_before: float | None) -> tuple[dict, bytes | memoryview]:
        """Feed the child its task and drain its pipes under the caps until it exits or we kill it."""
        limits = self.limits
        deadline = started + limits["wall_s"]
        exited, killed = False, None
        while not exited and killed is None:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                killed = "wall_limit"
                break
            exited, killed = self.pump(child, min(remaining, 0.1))
            used = self.cgroup_cpu()
            if cpu_before is not None and used is not None and used - cpu_before > limits["cpu_s"] + 0.5:
                killed = killed or "cpu_limit"  # CPU of every process the program started, not just the child
        if killed:
            self.kill_solver()
        child.drain(self.take)
        ended = self.reap(child.pid)  # exit_code, signal, cpu_s, peak_mib
        child.close()
        header, body = parse_result(child.result, limits["answer_bytes"])
        captures = child.captures
        return {
            "result": header,
            "killed": killed,
            **ended,
            "wall_s": round(time.monotonic() - started, 4),
            "stdout": captures["stdout"].text(), "stdout_bytes": captures["stdout"].total,
            "stderr": captures["stderr"].text(), "stderr_bytes": captures["stderr"].total,
        }, body

    def take(self, stream: str, data: bytes, captures: dict, result: bytearray) -> str | None:
        """Keep a chunk of output; returns the kill reason when it crosses that stream's cap."""
        if stream == "result":
            result.extend(data[: self.limits["answer_bytes"] + 1 - len(result)])
            return "answer_limit" if len(result) > self.limits["answer_bytes"] else None
        captures[stream].add(data)
        return f"output_limit:{stream}" if captures[stream].total > self.limits["output_bytes"] else None

    # -- cleaning ------------------------------------------------------------------------------
    def kill_solver(self) -> None:
        if self.solver is None:
            _kill_descendants(self.ours())
        else:
            _as_solver(self.solver, _kill_all_of_my_uid)

    def ours(self) -> tuple[int, ...]:
        """Our own processes among our descendants (the zygote, the forker), which no clean-up kills."""
        return tuple(peer.pid for peer in (self.zygote, self.forker) if peer is not None)

    def timed_clean(self) -> dict:
        """`clean`, with the seconds it took (`clean_s`)."""
        started = time.monotonic()
        return {**self.clean(), "clean_s": round(time.monotonic() - started, 6)}

    def clean(self) -> dict:
        """Kill every process the program left and reset every place it could write, then prove the slate clean:
        `clean` False means something survived the reset, and the host recycles the worker instead of reusing it. A
        spare waiting as root stays: it is none of the solver's processes or files. Without a solver uid every child of
        ours counts, so the spare is killed first."""
        if self.solver is None:
            self.discard_spare()
        count = (lambda: _count_uid(self.solver[0])) if self.solver else (lambda: len(_descendants(self.ours())))
        left = count()
        if left == 0 and self.slate_is_clean():
            self.reserve.hold()
            self.slate_clean = True
            return {"leftovers": 0, "survivors": 0, "clean": True}  # the common case costs no extra fork
        if self.solver is None:
            _kill_descendants(self.ours())
            _empty(self.wipe)
        else:
            _as_solver(self.solver, self.reset_as_solver)
        _reap_orphans()
        survivors = count()
        self.slate_clean = clean = survivors == 0 and self.slate_is_clean()
        if clean:
            self.reserve.hold()
        return {"leftovers": left, "survivors": survivors, "clean": clean}

    def slate_is_clean(self) -> bool:
        """True when the wiped folder holds nothing but an empty scratch folder and, with a solver uid, no
        shared memory, message queue or System V IPC object is left (anything unreadable counts as dirty)."""
        try:
            inside = _first_names(self.wipe, 2)
            files = (inside == [] or inside == [os.path.basename(self.scratch)]) and _first_names(self.scratch, 1) == []
            shared = [] if self.solver is None else [name for folder in SHARED_DIRS if os.path.isdir(folder)
                                                     for name in _first_names(folder, 1)]
        except OSError:
            return False
        return files and not shared and (self.solver is None or not any(_ipc_ids(kind, self.solver[0]) for kind in IPC_KINDS))

    def reset_as_solver(self) -> None:
        _kill_all_of_my_uid()
        _empty(self.wipe)
        _remove_shared()
        os.makedirs(self.scratch, exist_ok=True)

    # -- cgroup facts --------------------------------------------------------------------------
    def oom_kills(self) -> int:
        """The cgroup's count of memory kills (0 without a cgroup)."""
        text = self.memory_events.read()
        return next((int(line.split()[1]) for line in (text or b"").splitlines() if line.startswith(b"oom_kill ")), 0)

    def player_cpu(self, player: Child) -> float:
        """The game's CPU so far: the solver CPU the cgroup counted since its game began, so every process it started
        counts, between moves and after exiting too (without a cgroup: the player's own and its reaped children's).
        Frozen once the player is stopped: our kill's CPU is not its."""
        if player.status is None:
            counted = self.solver_cpu()
            spent = counted - player.base if counted is not None and player.base is not None else player.cpu()
            player.game_cpu = max(player.game_cpu, spent)
        return player.game_cpu

    def solver_cpu(self) -> float | None:
        """The cgroup's CPU seconds less this supervisor's own (it shares the cgroup): what the solver burnt."""
        group = self.cgroup_cpu()
        if group is None:
            return None
        own = resource.getrusage(resource.RUSAGE_SELF)
        return group - own.ru_utime - own.ru_stime

    def cgroup_cpu(self) -> float | None:
        """The cgroup's CPU seconds (v1 cpuacct.usage in nanoseconds, or v2 cpu.stat's usage_usec); None without one."""
        text = self.cpu_usage.read()
        if text is None:
            return None
        try:
            if self.cpu_usage.name.endswith("cpuacct.usage"):
                return int(text) / 1e9
            return next(int(line.split()[1]) / 1e6 for line in text.splitlines() if line.startswith(b"usage_usec "))
        except (ValueError, IndexError, StopIteration):
            return None


class _CgroupFile:
    """A cgroup counter file (the first of `names` there is) kept open: a read is a pread, not an open."""

    def __init__(self, cgroup: str | None, names: tuple[str, ...]) -> None:
        self.fd: int | None = None
        self.name = ""
        for name in names if cgroup is not None else ():
            try:
                self.fd, self.name = os.open(os.path.join(cgroup, name), os.O_RDONLY), name
                break
            except OSError:
                continue

    def read(self) -> bytes | None:
        if self.fd is None:
            return None
        try:
            return os.pread(self.fd, 4096, 0)
        except OSError:
            return None


def _flush(*streams) -> None:
    for stream in streams:  # ours: the program may have closed fd 1 or replaced sys.stdout
        try:
            stream.flush()
        except BaseException:  # noqa: B036 — lost output never costs the answer
            pass


def _ended(pid: int) -> bytes:
    """Reap our child `pid` (it has exited): how it ended, as `Forker.reap` gives it."""
    _, status, usage = os.wait4(pid, 0)
    return json.dumps({"pid": pid, "exit_code": os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
                       "signal": os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
                       "cpu_s": round(usage.ru_utime + usage.ru_stime, 4),
                       "peak_mib": round(usage.ru_maxrss / 1024, 1)}).encode()


def _reply(result, header: dict, body: bytes) -> None:
    """A player's frame on its result pipe: length, then a header line and the move's JSON text."""
    data = json.dumps(header).encode() + b"\n" + body
    result.write(HEADER.pack(len(data)) + data)
    result.flush()


def _read(fd: int) -> bytes | None:
    """One read: the bytes, b"" at end of file, None when nothing is waiting."""
    try:
        return os.read(fd, 1 << 16)
    except BlockingIOError:
        return None


def parse_result(data: bytearray, limit: int) -> tuple[dict, bytes | memoryview]:
    """The child's result frame, (header, answer bytes): a JSON header line, then the answer's JSON text.

    Total over whatever the program wrote to fd 3 instead: the header is size-checked before it is parsed,
    its parse cannot recurse out, and only the known fields, as clipped strings, pass on.
    """
    if not data:
        return {"kind": "none"}, b""
    if len(data) > limit:
        return {"kind": "too_large", "bytes": len(data)}, b""
    end = data.find(b"\n", 0, MAX_HEADER + 1)
    if end < 0:
        return {"kind": "garbled"}, b""
    try:
        parsed = json.loads(bytes(data[:end]))
    except (ValueError, RecursionError):
        return {"kind": "garbled"}, b""
    if not isinstance(parsed, dict) or parsed.get("kind") not in ("answer", "loaded", "ready", "no_code", "not_json",
                                                                  "exception", "syntax_error"):
        return {"kind": "garbled"}, b""
    header = {"kind": parsed["kind"]}
    header.update((name, parsed[name][:size]) for name, size in TEXT_FIELDS.items() if isinstance(parsed.get(name), str))
    return header, memoryview(data)[end + 1:] if header["kind"] == "answer" else b""  # no copy of a large answer


def compile_failure(exc: BaseException) -> dict:
    """Any exception compile() raised, as the program's syntax error."""
    where = f" (line {exc.lineno})" if isinstance(exc, SyntaxError) else ""
    detail = exc.msg if isinstance(exc, SyntaxError) else _text(exc) or "the source cannot be compiled"
    return {"kind": "syntax_error", "type": type(exc).__name__, "message": f"{type(exc).__name__}: {detail}{where}"[:300]}


class _Reported(Exception):
    """The child's header is already decided (a compile failure): skip running the program."""


def _text(exc: BaseException) -> str:
    """str(exc), clipped; a program's exception may make str() raise, or return a huge string."""
    try:
        return str(exc)[:300]
    except BaseException:  # noqa: B036
        return "(the exception cannot be shown)"


def _traceback() -> str:
    try:
        return traceback.format_exc()[-3000:]
    except BaseException:  # noqa: B036 — a program's frames may break formatting
        return ""


def _warm_numpy() -> None:
    """Import numpy in the forker of a program that names it: its children then import it for free. Only then: a process
    holding numpy forks a third slower (its pages double), and most programs never use it. A program that imports it
    without naming it (a computed name) pays the import in each child."""
    if "numpy" not in sys.modules:
        try:
            import numpy  # noqa: F401  (the image ships it; the local backend binds the host's)
        except ImportError:
            return
        _settle()  # as at start-up


def _settle() -> None:
    """Make the warm heap cheap to fork: collected, then frozen (never collected again, so a child's collections leave
    its pages shared, not copied), and what was freed meanwhile (compiling this file leaves about 2 MiB) given back to
    the kernel: each child's fork copies, and its exit unmaps, the page table of all we hold."""
    gc.collect()
    gc.freeze()
    _LIBC.malloc_trim(0)


def _oom_score(value: int) -> None:
    """Set this process's oom_score_adj: bytes straight to the file, no text layer built in a fresh child."""
    fd = os.open("/proc/self/oom_score_adj", os.O_WRONLY)
    try:
        os.write(fd, str(value).encode())
    finally:
        os.close(fd)


def _prctl(option: int, value: int) -> None:
    _LIBC.prctl(option, value, 0, 0, 0)


def _as_solver(solver: tuple[int, int], action) -> None:
    """Run `action` in a child with the solver's uid as its effective one: kill(-1) there reaches exactly its
    processes. Its real and saved uid are SHIELD_ID's, which no process of the solver can signal (a sender's uid must
    be its target's real or saved one): a program's process left running cannot stop it halfway. Should the worker's
    memory run out meanwhile, the kernel kills that child before us."""
    pid = os.fork()
    if pid == 0:
        try:
            _oom_score(1000)
            os.setgroups([])
            os.setresgid(SHIELD_ID, solver[1], SHIELD_ID)
            os.setresuid(SHIELD_ID, solver[0], SHIELD_ID)
            action()
        finally:
            os._exit(0)
    os.waitpid(pid, 0)


def _kill_all_of_my_uid() -> None:
    """kill(-1) until no live process of this uid is left (a fork bomb may refill between sweeps)."""
    me = os.getpid()
    for _ in range(200):
        try:
            os.kill(-1, signal.SIGKILL)
        except ProcessLookupError:
            return
        if not any(pid != me and owner == os.geteuid() and state != "Z" for pid, _, owner, state in _processes()):
            return
        time.sleep(0.001)


def _processes() -> list[tuple[int, int, int, str]]:
    """(pid, ppid, uid, state) of every live process: one stat and one short read each."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                uid = os.stat(f"/proc/{entry}").st_uid
                with open(f"/proc/{entry}/stat", "rb") as handle:
                    fields = handle.read().rpartition(b")")[2].split()
                found.append((int(entry), int(fields[1]), uid, fields[0].decode()))
            except (OSError, IndexError, ValueError):
                continue
    return found


def _count_uid(uid: int) -> int:
    """How many live processes `uid` owns: only theirs are read past the owner (most of the sandbox's are root's)."""
    count = 0
    for entry in os.listdir("/proc"):
        try:
            if entry.isdigit() and os.stat(f"/proc/{entry}").st_uid == uid:
                with open(f"/proc/{entry}/stat", "rb") as handle:
                    count += handle.read().rpartition(b")")[2].split()[0] != b"Z"
        except (OSError, IndexError):
            continue
    return count


def _descendants(ours: tuple[int, ...]) -> list[int]:
    """Our live descendants but `ours` (the forker: its children, the program's, are among them)."""
    children: dict[int, list[int]] = {}
    for pid, ppid, _, state in _processes():
        if state != "Z":
            children.setdefault(ppid, []).append(pid)
    found, stack = [], [os.getpid()]
    while stack:
        for child in children.get(stack.pop(), []):
            if child not in ours:
                found.append(child)
            stack.append(child)
    return found


def _kill_descendants(ours: tuple[int, ...]) -> None:
    for _ in range(100):
        pids = _descendants(ours)
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        _reap_orphans()


def _reap_orphans() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _ipc_ids(kind: str, uid: int) -> list[int]:
    """Ids of the System V `kind` objects (shm, msg, sem) that `uid` owns."""
    try:
        with open(f"/proc/sysvipc/{kind}") as handle:
            header, *rows = [line.split() for line in handle]
        owner = header.index("uid")
        return [int(row[1]) for row in rows if int(row[owner]) == uid]
    except (OSError, ValueError, IndexError):
        return []


def _remove_shared() -> None:
    """As the solver: delete its POSIX shared memory and message queues and its System V objects."""
    for folder in SHARED_DIRS:
        _empty(folder)
    for kind, control in zip(IPC_KINDS, (_LIBC.shmctl, _LIBC.msgctl, _LIBC.semctl)):
        for ident in _ipc_ids(kind, os.geteuid()):
            control(ident, 0, 0)  # IPC_RMID is 0: shmctl/msgctl(id, IPC_RMID, NULL), semctl(id, 0, IPC_RMID)


def _empty(top: str) -> None:
    """Remove everything in `top` this uid owns, however deep or locked: no recursion and no long paths.

    Each folder is made ours to list (u+rwx), its files are unlinked and its sub-folders moved up into `top`, to be
    emptied in turn; then it is removed. Nothing of the program runs meanwhile (its processes are dead).
    """
    moved = (f".codebench-empty-{os.getpid()}-{number}" for number in itertools.count())
    queue: list[str | None] = [None]  # None: `top` itself; else a folder directly in it
    while queue:
        name = queue.pop()
        here = top if name is None else os.path.join(top, name)
        if name is not None:
            _quietly(lambda path: os.chmod(path, 0o700), here)
        try:
            entries = os.scandir(here)
        except OSError:
            continue  # left for the check that follows
        with entries:  # read as it is emptied: a folder of a million names costs no list
            for entry in entries:
                try:
                    folder = entry.is_dir(follow_symlinks=False)
                except OSError:
                    continue
                if not folder:
                    _quietly(os.unlink, entry.path)
                elif name is None:
                    queue.append(entry.name)
                else:
                    target = next(moved)
                    try:
                        os.chmod(entry.path, 0o700)  # moving a folder rewrites its "..": it must be writable
                        os.rename(entry.path, os.path.join(top, target))
                        queue.append(target)
                    except OSError:
                        pass
        if name is not None:
            _quietly(os.rmdir, here)


def _first_names(folder: str, count: int) -> list[str]:
    """Up to `count` names in `folder`: enough to tell it empty, in bounded memory however many it holds."""
    with os.scandir(folder) as entries:
        return [entry.name for entry in itertools.islice(entries, count)]


def _quietly(action, path: str) -> None:
    try:
        action(path)
    except OSError:
        pass


def main() -> None:
    parser = argparse.ArgumentParser(description="codebench sandbox supervisor (trusted; speaks framed JSON on stdio)")
    parser.add_argument("--solver-uid", type=int)
    parser.add_argument("--solver-gid", type=int)
    parser.add_argument("--scratch", default="/tmp/work", help="the solver's working folder")
    parser.add_argument("--wipe", default="/tmp", help="folder emptied of the solver's files after each run")
    parser.add_argument("--cgroup", help="cgroup folder for OOM and CPU counters (e.g. /sys/fs/cgroup)")
    parser.add_argument("--channel", help="a unix socket to speak on instead of stdin and stdout")
    args = parser.parse_args()
    if args.channel:
        Channel.dial(args.channel)
    solver = (args.solver_uid, args.solver_gid if args.solver_gid is not None else args.solver_uid) if args.solver_uid is not None else None
    if solver is None:
        _prctl(36, 1)  # PR_SET_CHILD_SUBREAPER: orphans of the program become ours to kill
    os.environ.clear()  # every child's environment, set once: a fork inherits it
    os.environ.update(CHILD_ENV, HOME=args.scratch, TMPDIR=args.scratch)
    supervisor = Supervisor(solver, args.scratch, args.wipe, args.cgroup)
    if solver is None:
        os.makedirs(args.scratch, exist_ok=True)
    else:
        _as_solver(solver, supervisor.reset_as_solver)
    _settle()
    supervisor.zygote = Zygote(supervisor)  # before any request: nothing of a run has passed through us yet
    hello = {"ready": True, "pid": os.getpid(), "python": sys.version.split()[0]}
    while (request := receive()) is not None:  # the host speaks first, so no reply races its stream setup
        if request.get("op") == "bye":
            break
        handler = {"hello": lambda _: (hello, b""), "load": supervisor.load, "run": supervisor.run, "start": supervisor.start,
                   "act": supervisor.act, "end": supervisor.end}.get(request.get("op"))
        send(*(handler(request) if handler else ({"error": f"unknown op {request.get('op')!r}"}, b"")))
        supervisor.prepare()
    # leave nothing of the solver behind, then say whether that is proven: the next session shares this uid
    supervisor.end_player()
    supervisor.discard_spare()
    send({"bye": True, **supervisor.clean()})


if __name__ == "__main__":
    main()  # SIGPIPE stays ignored (Python's default): a write to a player that has gone raises, and is its failure
