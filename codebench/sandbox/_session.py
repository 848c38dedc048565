"""The host side of one supervisor session: length-prefixed JSON frames over a byte transport, each followed by an
attachment frame (an observation's JSON text to a player, an answer's back), which the supervisor never re-encodes.

Transports: a local subprocess's pipes, or a unix socket a supervisor in a container dials back on. A broken or garbled session raises
SessionBroken; the backend then recycles its worker and the instance is retried, never lost.
"""

from __future__ import annotations

import json
import os
import selectors
import socket
import struct
import subprocess
import time
from collections.abc import Callable
from typing import Any, Protocol

from ..types import Facts, GameLimits, Limits, ResultKind

HEADER = struct.Struct(">I")
MAX_FRAME = 512 << 20  # a reply holds at most the answer cap plus excerpts; anything larger is garbage
READY_TIMEOUT_S = 30.0
BYE_TIMEOUT_S = 10.0


class SessionBroken(Exception):
    """The supervisor went away, timed out or spoke garbage."""


class Transport(Protocol):
    def send(self, data: bytes) -> None: ...
    def recv_exact(self, size: int, deadline: float) -> bytes: ...
    def close(self) -> None: ...


class PipeTransport:
    """A supervisor started as a local subprocess, talking over its stdin and stdout."""

    def __init__(self, argv: list[str], env: dict[str, str] | None = None,
                 preexec_fn: Callable[[], None] | None = None) -> None:
        self.process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                        env=env, start_new_session=True, preexec_fn=preexec_fn)
        assert self.process.stdin is not None and self.process.stdout is not None
        self.stdin, self.stdout = self.process.stdin, self.process.stdout.fileno()
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.stdout, selectors.EVENT_READ)
        self.buffer = bytearray()

    def send(self, data: bytes) -> None:
        try:
            self.stdin.write(data)
            self.stdin.flush()
        except (BrokenPipeError, OSError) as exc:
            raise SessionBroken(f"supervisor stdin closed: {exc}") from None

    def recv_exact(self, size: int, deadline: float) -> bytes:
        while len(self.buffer) < size:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not self.selector.select(remaining):
                raise SessionBroken("supervisor did not answer in time")
            chunk = os.read(self.stdout, 1 << 20)
            if not chunk:
                raise SessionBroken(f"supervisor exited (status {self.process.poll()})")
            self.buffer += chunk
        data = bytes(self.buffer[:size])
        del self.buffer[:size]
        return data

    def close(self) -> None:
        self.selector.close()
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                try:
                    stream.close()
                except OSError:  # stdin's last flush, to a supervisor that has gone: stdout is still closed
                    pass
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


class SocketTransport:
    """A supervisor that dialled back over a unix socket (`--channel`): frames go straight to it, through no engine."""

    def __init__(self, connection: socket.socket) -> None:
        self.connection = connection
        self.buffer = bytearray()

    def send(self, data: bytes) -> None:
        try:
            self.connection.sendall(data)
        except OSError as exc:
            raise SessionBroken(f"supervisor channel closed: {exc}") from None

    def recv_exact(self, size: int, deadline: float) -> bytes:
        while len(self.buffer) < size:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise SessionBroken("supervisor did not answer in time")
            self.connection.settimeout(remaining)
            try:
                chunk = self.connection.recv(1 << 20)
            except TimeoutError:
                raise SessionBroken("supervisor did not answer in time") from None
            except OSError as exc:
                raise SessionBroken(f"supervisor channel failed: {exc}") from None
            if not chunk:
                raise SessionBroken("supervisor exited")
            self.buffer += chunk
        data = bytes(self.buffer[:size])
        del self.buffer[:size]
        return data

    def close(self) -> None:
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.connection.close()


class Session:
    """One supervisor: load a program once, then run instances one by one."""

    def __init__(self, transport: Transport) -> None:
        self.transport = transport
        try:
            self._send({"op": "hello"})
            hello, _ = self._receive(time.monotonic() + READY_TIMEOUT_S)
            if not hello.get("ready"):
                raise SessionBroken(f"unexpected greeting {hello!r}")
        except SessionBroken:
            transport.close()
            raise

    def load(self, source: str, entry: str, limits: Limits, enforced: dict[str, Any]) -> Facts:
        """Compile and probe-import the program; `enforced` is what the supervisor applies to each child."""
        return self._request("load", {"op": "load", "source": source, "entry": entry, "limits": enforced}, limits.wall_limit_s)

    def run(self, instance: dict[str, Any], limits: Limits) -> Facts:
        return self._request("run", {"op": "run", "instance": instance}, limits.wall_limit_s)

    # a game: the loaded program's Strategy plays in one child, a move per observation
    def start(self, setup: dict[str, Any], game: GameLimits) -> Facts:
        """Build `Strategy(setup)` in a fresh player child (kind `ready` when it stands)."""
        return self._request("start", {"op": "start", "setup": setup, "game": game.for_supervisor()}, game.move_wall_limit_s)

    def act(self, observation: Any, game: GameLimits) -> Facts:
        """The player's move for `observation` (kind `answer`, its JSON text under `answer`), or how it failed."""
        return self._request("move", {"op": "act"}, game.move_wall_limit_s, json.dumps(observation).encode())

    def end(self) -> Facts:
        """Stop the player and clean the slate: its exit, the game's output excerpts, what was left."""
        return self._request("end", {"op": "end"}, 0.0)

    def close(self) -> bool:
        """Wait until the supervisor has killed and wiped what the program left; True when it proved the slate
        clean (the next session shares its uid), False when the worker must be rebuilt first."""
        try:
            self._send({"op": "bye"})
            reply, _ = self._receive(time.monotonic() + BYE_TIMEOUT_S)
            return reply.get("clean") is True
        except SessionBroken:
            return False  # already gone: nothing proved
        finally:
            self.transport.close()

    def _send(self, message: dict[str, Any], attachment: bytes = b"") -> None:
        data = json.dumps(message).encode()
        self.transport.send(HEADER.pack(len(data)) + data + HEADER.pack(len(attachment)) + attachment)

    def _request(self, phase: str, message: dict[str, Any], wall_s: float, attachment: bytes = b"") -> Facts:
        self._send(message, attachment)
        reply, answer = self._receive(time.monotonic() + wall_s + 15.0)  # backstop above the supervisor's own
        if not isinstance(reply.get("facts"), dict) or not isinstance(reply["facts"].get("result"), dict):
            raise SessionBroken(f"supervisor error: {str(reply.get('error', reply))[:300]!r}")
        facts = reply["facts"]
        if facts["result"].get("kind") == ResultKind.ANSWER:  # the bytes as the program wrote them: the validator decodes
            facts = {**facts, "result": {**facts["result"], "answer": answer}}
        return Facts.from_supervisor(phase, facts)

    def _receive(self, deadline: float) -> tuple[dict[str, Any], bytes]:
        """One reply and its attachment (an answer's bytes, often empty)."""
        reply = self._frame(deadline)
        try:
            reply_object = json.loads(reply)
        except ValueError as exc:
            raise SessionBroken(f"garbled frame: {exc}") from None
        if not isinstance(reply_object, dict):
            raise SessionBroken("frame is not an object")
        attachment = self._frame(deadline)
        if len(attachment) != reply_object.get("attachment"):
            raise SessionBroken("the attachment does not match its announced size")
        return reply_object, attachment

    def _frame(self, deadline: float) -> bytes:
        (size,) = HEADER.unpack(self.transport.recv_exact(HEADER.size, deadline))
        if size > MAX_FRAME:
            raise SessionBroken(f"frame of {size} bytes")
        return self.transport.recv_exact(size, deadline)
