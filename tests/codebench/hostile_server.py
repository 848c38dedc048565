"""A hostile OpenAI-compatible chat-completions server for the tests: one scenario per kind of reply that once crashed,
stalled or poisoned a run, chosen by the request's `model`.

A streamed request (`stream: true`) is answered as server-sent chunks (`codebench.model.mock_server`'s protocol:
content and reasoning deltas, usage in a last chunk, `data: [DONE]`); a model named `<scenario>-plain` answers a
streamed request with a JSON body instead, so the client asks that endpoint plainly from then on. Bodies are written
with `json.dumps`, so a lone surrogate goes out as the `\\ud800` escape a real server would send.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

ESCAPES = "\x1b[2J\x1b]0;owned\x07\x1b]8;;http://evil.example\x1b\\link\x1b]8;;\x1b\\\x9b6n\u202e"  # clear, retitle, OSC 8, C1 CSI 6n, RLO
ANSWER = "```python\ndef solve(instance):\n    return {}\n```\n\n```json\n{}\n```\n"  # a program for code mode, a JSON answer last
DEEP = 100_000
HUGE = 5 << 20  # characters: past the client's cap on a reply's text and reasoning
USUAL = {"prompt_tokens": 100, "completion_tokens": 50}

# scenario -> (content, reasoning, usage); a reply whose text holds no answer makes instruction mode retry its format
REPLIES: dict[str, tuple[str | None, str | None, dict[str, Any]]] = {
    "surrogate": (f"a lone \ud800 surrogate\n{ANSWER}", "thinking \udfff alone", USUAL),
    "surrogate_noanswer": ("no answer, a lone \ud800 surrogate", "\udbff", USUAL),
    "tokens_huge": (ANSWER, None, {"prompt_tokens": 2**63, "completion_tokens": 2**64 + 5,
                                   "completion_tokens_details": {"reasoning_tokens": 10**30}}),
    "tokens_negative": (ANSWER, None, {"prompt_tokens": -6_000_000, "completion_tokens": -1}),
    "tokens_odd": (ANSWER, None, {"prompt_tokens": "12", "completion_tokens": 1.5,
                                  "completion_tokens_details": {"reasoning_tokens": [7]}}),
    "backticks": ("`" * 1_000_000, None, USUAL),
    "huge": ("x" * HUGE + ANSWER, "y" * HUGE, USUAL),
    "escapes": (f"{ESCAPES}\x00\n{ANSWER}", ESCAPES, USUAL),  # with a NUL; the reply names its model with them too
    "many_chunks": (ANSWER * 500, None, USUAL),  # streamed one character a chunk: 32,500 chunks
    "deep_field": (ANSWER, None, USUAL),  # beside it an unknown field nested as deep as the parser goes
    "finish_escapes": (None, None, USUAL),  # no text at all, and a finish reason full of escape sequences
}
FINISH = {"finish_escapes": f"stop{ESCAPES}"}
SERVER_MODEL = {"escapes": f"model{ESCAPES}\udc00"}
DEEP_BODY = '{"id": "x", "choices": ' + "[" * DEEP + "]" * DEEP + "}"
# scenario -> (HTTP status, error body): each ends the run with one error line
FATAL: dict[str, tuple[int, dict[str, Any]]] = {
    "fatal_401": (401, {"error": {"message": f"bad key {ESCAPES}", "type": "invalid_request_error", "code": "invalid_api_key"}}),
    "fatal_404": (404, {"error": {"message": f"no such model {ESCAPES}", "type": "invalid_request_error", "code": None}}),
    "fatal_quota": (429, {"error": {"message": f"quota {ESCAPES}", "type": "insufficient_quota", "code": "insufficient_quota"}}),
}
SCENARIOS = (*REPLIES, "deep")
UNUSABLE = ("finish_escapes", "deep")  # no usable reply: each an api_error
PIECES = {"many_chunks": 1}  # characters per streamed delta; others 1 << 16
NEAR_LIMIT = 900  # nesting the parser still decodes


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def do_POST(self) -> None:
        request = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
        model = str(request.get("model", ""))
        scenario = model.removesuffix("-plain")
        if scenario in FATAL:
            status, body = FATAL[scenario]
            return self._send(status, "application/json", json.dumps(body).encode())
        streamed = bool(request.get("stream")) and not model.endswith("-plain")
        if scenario == "deep":
            body = f"data: {DEEP_BODY}\n\n" if streamed else DEEP_BODY
            return self._send(200, "text/event-stream" if streamed else "application/json", body.encode())
        content, reasoning, usage = REPLIES[scenario]
        named = SERVER_MODEL.get(scenario, model)
        extra = {"extra": json.loads("[" * NEAR_LIMIT + "]" * NEAR_LIMIT)} if scenario == "deep_field" else {}
        if not streamed:
            message = {"role": "assistant", "content": content, "reasoning_content": reasoning, **extra}
            return self._send(200, "application/json", json.dumps(
                {"id": "x", "object": "chat.completion", "model": named, "usage": usage,
                 "choices": [{"index": 0, "message": message, "finish_reason": FINISH.get(scenario, "stop")}]}).encode())
        chunks = _chunks(named, content, reasoning, usage, PIECES.get(scenario, 1 << 16), extra, FINISH.get(scenario, "stop"))
        self._send(200, "text/event-stream", b"".join(f"data: {json.dumps(chunk)}\n\n".encode() for chunk in chunks)
                   + b"data: [DONE]\n\n")

    def _send(self, status: int, kind: str, body: bytes) -> None:
        self.send_response(status)
        self.send_header("content-type", kind)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def _chunks(model: str, content: str | None, reasoning: str | None, usage: dict[str, Any], piece: int,
            extra: dict[str, Any], finish: str) -> Iterator[dict[str, Any]]:
    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {"id": "x", "object": "chat.completion.chunk", "model": model,
                "choices": [{"index": 0, "delta": {**delta, **extra}, "finish_reason": finish}]}

    for start in range(0, len(reasoning or ""), piece):
        yield chunk({"reasoning_content": (reasoning or "")[start : start + piece]})
    for start in range(0, len(content or ""), piece):
        yield chunk({"content": (content or "")[start : start + piece]})
    yield chunk({}, finish)
    yield {"id": "x", "object": "chat.completion.chunk", "model": model, "choices": [], "usage": usage}


class QuietServer(ThreadingHTTPServer):
    """A threaded server that prints nothing when a client hangs up mid-reply (what these tests' clients do)."""

    daemon_threads = True
    request_queue_size = 256  # a run's many models connect at once

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass


@contextmanager
def serving(server: QuietServer) -> Iterator[str]:
    """`server` (bound to a loopback port) served for the block: yields its API root (…/v1)."""
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@contextmanager
def hostile_server() -> Iterator[str]:
    """The hostile server on a free loopback port, for the block: yields its API root (…/v1)."""
    with serving(QuietServer(("127.0.0.1", 0), _Handler)) as url:
        yield url
