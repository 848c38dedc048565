"""A built-in OpenAI-compatible chat-completions server on loopback, for the tests and the demo.

It reads the puzzle from a `codebench-puzzle: NAME` line of the prompt and answers as a model of the chosen
behaviour would (`mock_behaviors`). The request's `model` picks the behaviour when it names one (else the
server default); the models in FAULTS make the server misbehave instead. Latency, 429 and 500 answers can be
injected. Imports the standard library (http.server), the errors and the behaviours.
"""

from __future__ import annotations

import json
import math
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from ..errors import InputError
from .mock_behaviors import BEHAVIORS, FAULTS, mixed_choice, reply

MAX_LATENCY_S = 3600.0  # a slower mock is a typo, not a test


@dataclass(frozen=True)
class _Config:
    behavior: str
    latency_s: float
    fail_429_every: int
    fail_500_every: int
    seed: int
    api_key: str | None
    log: Callable[[str], None] | None


def _error(message: str, kind: str, code: str | None) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


def _text(content: object) -> str:
    """A message's text: a string, or the text parts of a content list."""
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict) and isinstance(part.get("text"), str))
    return content if isinstance(content, str) else ""


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # a burst of connections must not overflow the listen backlog (SYN retries cost 1 s)

    def __init__(self, port: int, config: _Config) -> None:
        self.config, self.hits, self.lock = config, 0, threading.Lock()
        super().__init__(("127.0.0.1", port), _Handler)

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):  # a client that gave up is not news
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    server: _HTTPServer
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out in two writes: Nagle plus delayed ACK would add 40 ms
    timeout = 60  # idle keep-alive connections release their thread

    def log_message(self, format: str, *args: Any) -> None:
        if self.server.config.log is not None:
            self.server.config.log(f"{self.address_string()} {format % args}")

    def _send(self, status: int, body: dict[str, Any] | bytes, headers: dict[str, str] | None = None) -> None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/html" if isinstance(body, bytes) else "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        if self.path.split("?")[0].rstrip("/") != "/v1/models":
            return self._send(404, _error(f"no route GET {self.path}", "invalid_request_error", "unknown_url"))
        names = BEHAVIORS + FAULTS
        self._send(200, {"object": "list", "data": [{"id": n, "object": "model", "owned_by": "codebench"} for n in names]})

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.path.split("?")[0].rstrip("/") != "/v1/chat/completions":
            return self._send(404, _error(f"no route POST {self.path}", "invalid_request_error", "unknown_url"))
        config = self.server.config
        with self.server.lock:
            self.server.hits += 1
            hit = self.server.hits
        if config.api_key is not None and self.headers.get("Authorization") != f"Bearer {config.api_key}":
            return self._send(401, _error("Incorrect API key provided.", "invalid_request_error", "invalid_api_key"))
        if config.fail_429_every and hit % config.fail_429_every == 0:
            return self._send(429, _error("Rate limit reached (injected).", "requests", "rate_limit_exceeded"), {"Retry-After": "0"})
        if config.fail_500_every and hit % config.fail_500_every == 0:
            return self._send(500, _error("The server had an error (injected).", "server_error", None))
        time.sleep(config.latency_s)
        try:
            request = json.loads(raw)
        except ValueError:
            request = None
        if not isinstance(request, dict):
            return self._send(400, _error("the body is not a JSON object", "invalid_request_error", None))
        status, body = _answer(request, config, hit)
        self._send(status, body)


def _answer(request: dict[str, Any], config: _Config, hit: int) -> tuple[int, dict[str, Any] | bytes]:
    """The status and body for a parsed chat-completions request."""
    model = str(request.get("model") or "")
    if model == "missing":
        return 404, _error(f"The model `{model}` does not exist or you do not have access to it.", "invalid_request_error",
                           "model_not_found")
    if model == "quota":
        return 429, _error("You exceeded your current quota, please check your plan and billing details.", "insufficient_quota",
                           "insufficient_quota")
    if model == "not_json":
        return 200, b"<html><body>502 Bad Gateway</body></html>"
    messages, tokens = request.get("messages"), request.get("max_completion_tokens") or request.get("max_tokens")
    problem = ("messages must be a non-empty list" if not isinstance(messages, list) or not messages
               else "the mock answers n=1 only" if request.get("n") not in (None, 1)
               else "the mock does not stream" if request.get("stream")
               else "temperature must be a number in [0, 2]" if not (isinstance(request.get("temperature", 1), (int, float))
                                                                      and 0 <= request.get("temperature", 1) <= 2)
               else "max_tokens must be a positive integer" if tokens is not None and not (isinstance(tokens, int) and tokens > 0)
               else None)
    if problem is not None:
        return 400, _error(problem, "invalid_request_error", None)
    assert isinstance(messages, list)
    prompt = "\n".join(_text(m.get("content")) for m in messages if isinstance(m, dict))
    behavior = model if model in BEHAVIORS else config.behavior
    if behavior == "mixed":
        behavior = mixed_choice(config.seed, request.get("seed"), messages)
    reminded = any(isinstance(m, dict) and m.get("role") == "assistant" for m in messages)
    last_user = next((_text(m.get("content")) for m in reversed(messages) if isinstance(m, dict) and m.get("role") == "user"), None)
    try:
        said = reply(behavior, prompt, reminded, last_user)
    except ValueError as exc:
        return 400, _error(str(exc), "invalid_request_error", None)
    effort = request.get("reasoning_effort")
    if said.reasoning is not None and isinstance(effort, str):  # as a reasoning server does, it thinks as hard as asked
        said = said._replace(reasoning=f"(reasoning_effort {effort}) {said.reasoning}")
    text: str | None = said.text
    finish = said.finish or "stop"
    if tokens is not None and len(text) > 4 * tokens:
        text, finish = text[: 4 * tokens], "length"
    usage: dict[str, Any] = {"prompt_tokens": (len(prompt) + 3) // 4, "completion_tokens": (len(text) + 3) // 4}
    if said.reasoning is not None:
        usage["completion_tokens"] += (len(said.reasoning) + 3) // 4
        usage["completion_tokens_details"] = {"reasoning_tokens": (len(said.reasoning) + 3) // 4}
    usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
    body: dict[str, Any] = {"id": f"chatcmpl-mock-{hit}", "object": "chat.completion", "created": int(time.time()),
                            "model": model, "system_fingerprint": f"codebench-mock-{config.seed}", "usage": usage}
    if model != "malformed":
        text = None if model == "empty" else text
        message: dict[str, Any] = {"role": "assistant", "content": text}
        if said.reasoning is not None:
            message["reasoning_content"] = said.reasoning
        body["choices"] = [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}]
    return 200, body


@dataclass
class MockServer:
    """A running mock server; `url` is its API root (ending in /v1). Close it, or use it as a context manager."""

    url: str
    _server: _HTTPServer = field(repr=False)
    _thread: threading.Thread = field(repr=False)

    @property
    def hits(self) -> int:
        """Chat-completion requests received so far, injected failures included."""
        return self._server.hits

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()

    def __enter__(self) -> MockServer:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def start_mock_server(*, port: int = 0, behavior: str = "oracle", latency_s: float = 0.0, fail_429_every: int = 0,
                      fail_500_every: int = 0, seed: int = 0, api_key: str | None = None,
                      log: Callable[[str], None] | None = None) -> MockServer:
    """Serve on 127.0.0.1:`port` (0: a free port) from a background thread; `log` gets one line per request.

    Raises:
        InputError: an unknown behaviour, a setting out of range, or a port that cannot be bound.
    """
    if behavior not in BEHAVIORS:
        raise InputError(f"behaviour {behavior!r} is unknown: choose one of {', '.join(BEHAVIORS)}")
    for option, value, ok, expected in (
            ("--port", port, 0 <= port <= 65535, "give 0-65535 (0 picks a free one)"),
            ("--latency", latency_s, math.isfinite(latency_s) and 0 <= latency_s <= MAX_LATENCY_S,
             f"give seconds from 0 to {MAX_LATENCY_S:g}"),
            ("--fail-429-every", fail_429_every, fail_429_every >= 0, "give a period k >= 1, or 0 for never"),
            ("--fail-500-every", fail_500_every, fail_500_every >= 0, "give a period k >= 1, or 0 for never")):
        if not ok:
            raise InputError(f"{option} {value}: {expected}")
    try:
        server = _HTTPServer(port, _Config(behavior, latency_s, fail_429_every, fail_500_every, seed, api_key, log))
    except OSError as exc:
        raise InputError(f"cannot listen on 127.0.0.1:{port}: {exc.strerror}; pick another --port (0 picks a free one)") from None
    # close() waits up to one poll interval for the serving loop to notice
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), name="codebench-mock-server", daemon=True)
    thread.start()
    return MockServer(f"http://127.0.0.1:{server.server_address[1]}/v1", server, thread)
