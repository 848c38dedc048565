"""A built-in OpenAI-compatible chat-completions server on loopback, for the tests and the demo.

It reads the puzzle from a `codebench-puzzle: NAME` line of the prompt and answers as a model of the chosen
behaviour would (`mock_behaviors`). The request's `model` picks the behaviour when it names one, a collapse
`collapse-M-S` included (else the server default; a malformed collapse name is refused); the models in FAULTS make
the server misbehave instead. Latency, 429 and 500 answers can be injected. A request with `stream: true` is
answered as OpenAI's API streams (server-sent `chat.completion.chunk` events, the reasoning in its own deltas, usage
in a last chunk without choices when `stream_options.include_usage` asks, then `data: [DONE]`), or refused, or
answered plainly, as the `streaming` setting says; a stall can be injected mid-stream. `thinker` plays `reasoning`,
its reasoning sent over a thinking time that can grow with the prompt.

It serves OpenAI's Batch API too: `POST /v1/files` (a JSONL file of requests, multipart as the SDK sends it), `POST
/v1/batches` (endpoint /v1/chat/completions; the file's lines checked as OpenAI checks them: a failed batch says which),
`GET /v1/batches` and `/v1/batches/ID`, `POST /v1/batches/ID/cancel`, `GET /v1/files/ID/content`. A batch stays
`in_progress` for `batch_delay_s`, then each line is answered as the same request sent alone would be (its reply in the
output file, a refusal in the error file). `GET /mock/stats` counts what was asked: chat completions (`hits`, injected
failures included), batches created, files uploaded.
Imports the standard library (http.server), the errors, the presets' vocabulary and the behaviours.
"""

from __future__ import annotations

import email.parser
import email.policy
import json
import math
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from ..errors import InputError
from .mock_behaviors import BEHAVIORS, COLLAPSE_FORM, FAULTS, collapse_choice, collapse_of, is_behavior, mixed_choice, reply
from .presets import THINK_TAGS

MAX_LATENCY_S = 3600.0  # a slower mock is a typo, not a test
THINKER = "thinker"  # plays `reasoning`, its reasoning paced over the thinking time (streamed, or before a plain answer)
STREAMING = ("on", "reject", "ignore")  # a streamed request: answered as a stream, refused with 400, or answered plainly
PIECE_CHARS = 64  # a streamed reply's text and (unpaced) reasoning go out in pieces this long
BATCH_ENDPOINT = "/v1/chat/completions"  # the one endpoint a batch may name (the mock serves chat only)


@dataclass(frozen=True)
class _Config:
    behavior: str
    latency_s: float
    fail_429_every: int
    fail_500_every: int
    seed: int
    api_key: str | None
    log: Callable[[str], None] | None
    think_s: float  # the thinker's thinking time: this much …
    think_per_kchar_s: float  # … plus this much per 1000 prompt characters
    chunk_interval_s: float  # the thinker sends a reasoning chunk this often
    stall_s: float  # a streamed reply pauses this long …
    stall_after: int  # … after this many chunks
    streaming: str  # one of STREAMING
    reasoning_field: str  # where reasoning goes: a message/delta field, THINK_TAGS (in the content), or "" (left out)
    batch_delay_s: float  # a batch stays in_progress this long


@dataclass(frozen=True)
class _Said:
    """A reply to send, plainly or streamed: `reasoning` as (pause before it, piece), the thinker's pieces paced."""

    model: str
    text: str | None  # None: the `empty` fault's null content
    reasoning: tuple[tuple[float, str], ...]
    finish: str
    usage: dict[str, Any]
    choices: bool  # False: the `malformed` fault (no choices)

    def placed(self, field: str) -> tuple[str | None, str | None]:
        """(content, reasoning field value) of the whole reply, the reasoning placed as `field` says."""
        reasoning = "".join(piece for _, piece in self.reasoning) if self.reasoning else None
        if field == THINK_TAGS and reasoning is not None:
            return f"{THINK_TAGS}{reasoning}</think>\n\n{self.text or ''}", None
        return self.text, reasoning if field else None


def _error(message: str, kind: str, code: str | None) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


NOT_AN_OBJECT = _error("the body is not a JSON object", "invalid_request_error", None)


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
        self.last_request: dict[str, Any] | None = None
        self.files: dict[str, tuple[dict[str, Any], bytes]] = {}  # id -> (its file object, its content)
        self.batches: dict[str, dict[str, Any]] = {}  # id -> its batch object, as served
        self.batch_lines: dict[str, list[Any]] = {}  # id -> its input file's lines, parsed (until it is answered)
        self.batch_due: dict[str, float] = {}  # id -> when it is answered (time.time())
        self.batches_created = 0
        super().__init__(("127.0.0.1", port), _Handler)

    def stats(self) -> dict[str, int]:
        with self.lock:
            return {"chat_completions": self.hits, "batches_created": self.batches_created, "files": len(self.files)}

    def add_file(self, name: str, purpose: str, content: bytes) -> dict[str, Any]:
        with self.lock:
            found = {"id": f"file-mock-{len(self.files) + 1}", "object": "file", "bytes": len(content),
                     "created_at": int(time.time()), "filename": name, "purpose": purpose, "status": "processed"}
            self.files[found["id"]] = (found, content)
        return found

    def create_batch(self, request: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """A new batch of the input file's requests, in progress (or failed: the first problem its lines have)."""
        with self.lock:
            self.batches_created += 1
            batch_id = f"batch_mock_{self.batches_created}"
        found = self.files.get(str(request.get("input_file_id")))
        if found is None:
            return 400, _error(f"no file {request.get('input_file_id')!r}", "invalid_request_error", "invalid_file")
        if request.get("endpoint") != BATCH_ENDPOINT or request.get("completion_window") != "24h":
            return 400, _error(f"the mock batches endpoint {BATCH_ENDPOINT} over completion_window 24h only",
                               "invalid_request_error", None)
        lines, problem = _batch_lines(found[1])
        now = int(time.time())
        batch = {"id": batch_id, "object": "batch", "endpoint": BATCH_ENDPOINT, "errors": None,
                 "input_file_id": request["input_file_id"], "completion_window": "24h", "status": "in_progress",
                 "output_file_id": None, "error_file_id": None, "created_at": now, "in_progress_at": now,
                 "expires_at": now + 86400, "request_counts": {"total": len(lines), "completed": 0, "failed": 0},
                 "metadata": request.get("metadata")}
        if problem is not None:
            batch.update(status="failed", failed_at=now, errors={"object": "list", "data": [problem]})
        with self.lock:
            self.batches[batch_id], self.batch_lines[batch_id] = batch, lines
            self.batch_due[batch_id] = time.time() + self.config.batch_delay_s
        return 200, batch

    def batch(self, batch_id: str, cancel: bool = False) -> dict[str, Any] | None:
        """The batch as it stands now (a copy): answered once its delay has passed (or cancelled, unanswered)."""
        with self.lock:
            batch = self.batches.get(batch_id)
            if batch is None or batch["status"] != "in_progress":
                return None if batch is None else dict(batch)
            if cancel:
                batch.update(status="cancelled", cancelled_at=int(time.time()))
                return dict(batch)
            if time.time() < self.batch_due[batch_id]:
                return dict(batch)
            batch.update(status="finalizing", finalizing_at=int(time.time()))  # answered by this caller alone
            lines = self.batch_lines.pop(batch_id)
        output, errors = [], []
        for line in lines:
            said = _answer(line["body"], self.config)
            if isinstance(said, _Said):
                head = {"id": f"chatcmpl-{batch_id}-{len(output)}", "created": int(time.time()), "model": said.model}
                output.append({"id": f"batch_req_{len(output)}", "custom_id": line["custom_id"], "error": None,
                               "response": {"status_code": 200, "body": _body(said, head, self.config.reasoning_field)}})
            else:
                status, body = said
                errors.append({"id": f"batch_req_e{len(errors)}", "custom_id": line["custom_id"], "error": None,
                               "response": {"status_code": status, "body": body if isinstance(body, dict) else
                                            {"error": {"message": body.decode(errors="replace")}}}})
        files = {name: self.add_file(f"{batch_id}_{name}.jsonl", f"batch_{name}",
                                     "".join(json.dumps(entry) + "\n" for entry in entries).encode())["id"]
                 for name, entries in (("output", output), ("error", errors)) if entries}
        with self.lock:
            batch.update(status="completed", completed_at=int(time.time()), output_file_id=files.get("output"),
                         error_file_id=files.get("error"),
                         request_counts={"total": len(lines), "completed": len(output), "failed": len(errors)})
            return dict(batch)

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

    def _send(self, status: int, body: dict[str, Any] | bytes, headers: dict[str, str] | None = None,
              kind: str = "text/html") -> None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", kind if isinstance(body, bytes) else "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _stream(self, events: Iterator[tuple[float, dict[str, Any] | str]]) -> None:
        """Server-sent events, each after its pause, in HTTP/1.1 chunks (a cut stream is then visibly incomplete)."""
        config = self.server.config
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for sent, (pause, event) in enumerate(events):
            time.sleep(pause + (config.stall_s if sent == config.stall_after else 0.0))
            data = f"data: {event if isinstance(event, str) else json.dumps(event)}\n\n".encode()
            self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.write(b"0\r\n\r\n")

    def _refused(self) -> bool:
        """Answered 401 when the server wants a key and the request has another."""
        key = self.server.config.api_key
        if key is not None and self.headers.get("Authorization") != f"Bearer {key}":
            self._send(401, _error("Incorrect API key provided.", "invalid_request_error", "invalid_api_key"))
            return True
        return False

    def do_GET(self) -> None:
        path = self.path.split("?")[0].rstrip("/")
        parts = path.split("/")
        if path == "/v1/models":
            names = (*BEHAVIORS, THINKER, *FAULTS)
            return self._send(200, {"object": "list", "data": [{"id": n, "object": "model", "owned_by": "codebench"}
                                                               for n in names]})
        if path == "/mock/stats":
            return self._send(200, self.server.stats())
        if self._refused():
            return None
        if path == "/v1/batches":
            with self.server.lock:
                found = sorted(self.server.batches, key=lambda batch_id: -self.server.batches[batch_id]["created_at"])
            data = [self.server.batch(batch_id) for batch_id in found]
            return self._send(200, {"object": "list", "data": data, "has_more": False})
        if len(parts) == 4 and parts[:3] == ["", "v1", "batches"] and (batch := self.server.batch(parts[3])) is not None:
            return self._send(200, batch)
        if len(parts) in (4, 5) and parts[:3] == ["", "v1", "files"] and parts[3] in self.server.files:
            file, content = self.server.files[parts[3]]
            if len(parts) == 4:
                return self._send(200, file)
            if parts[4] == "content":
                return self._send(200, content, {}, "application/octet-stream")
        return self._send(404, _error(f"no route GET {self.path}", "invalid_request_error", "unknown_url"))

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        path = self.path.split("?")[0].rstrip("/")
        if path in ("/v1/files", "/v1/batches") or (path.startswith("/v1/batches/") and path.endswith("/cancel")):
            return None if self._refused() else self._batch_api(path, raw)
        if path != "/v1/chat/completions":
            return self._send(404, _error(f"no route POST {self.path}", "invalid_request_error", "unknown_url"))
        config = self.server.config
        with self.server.lock:
            self.server.hits += 1
            hit = self.server.hits
        if self._refused():
            return None
        if config.fail_429_every and hit % config.fail_429_every == 0:
            return self._send(429, _error("Rate limit reached (injected).", "requests", "rate_limit_exceeded"), {"Retry-After": "0"})
        if config.fail_500_every and hit % config.fail_500_every == 0:
            return self._send(500, _error("The server had an error (injected).", "server_error", None))
        time.sleep(config.latency_s)
        request = _json_object(raw)
        if request is None:
            return self._send(400, NOT_AN_OBJECT)
        self.server.last_request = request
        said = _answer(request, config)
        if not isinstance(said, _Said):
            return self._send(*said)
        head = {"id": f"chatcmpl-mock-{hit}", "created": int(time.time()), "model": said.model,
                "system_fingerprint": f"codebench-mock-{config.seed}"}
        if request.get("stream") and config.streaming == "on":
            options = request.get("stream_options")
            return self._stream(_events(said, head, config.reasoning_field, isinstance(options, dict)
                                        and options.get("include_usage") is True))
        time.sleep(sum(pause for pause, _ in said.reasoning))  # the thinker thinks before a plain answer too
        self._send(200, _body(said, head, config.reasoning_field))

    def _batch_api(self, path: str, raw: bytes) -> None:
        """POST /v1/files (multipart: purpose, file), /v1/batches (JSON), /v1/batches/ID/cancel."""
        if path == "/v1/files":
            fields = _form(self.headers.get("Content-Type", ""), raw)
            if fields is None or "file" not in fields or fields.get("purpose", (None, b""))[1] != b"batch":
                return self._send(400, _error("upload a file with purpose batch (multipart/form-data)", "invalid_request_error",
                                              None))
            return self._send(200, self.server.add_file(fields["file"][0] or "upload.jsonl", "batch", fields["file"][1]))
        if path == "/v1/batches":
            request = _json_object(raw)
            if request is None:
                return self._send(400, NOT_AN_OBJECT)
            return self._send(*self.server.create_batch(request))
        batch = self.server.batch(path.split("/")[3], cancel=True)
        if batch is None:
            return self._send(404, _error(f"no batch {path.split('/')[3]!r}", "invalid_request_error", None))
        return self._send(200, batch)


def _answer(request: dict[str, Any], config: _Config) -> tuple[int, dict[str, Any] | bytes] | _Said:
    """The reply to a parsed chat-completions request, or the status and body of a refusal or a fault."""
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
               else "streaming is not supported" if request.get("stream") and config.streaming == "reject"
               else "temperature must be a number in [0, 2]" if not (isinstance(request.get("temperature", 1), (int, float))
                                                                      and 0 <= request.get("temperature", 1) <= 2)
               else "max_tokens must be a positive integer" if tokens is not None and not (isinstance(tokens, int) and tokens > 0)
               else None)
    if problem is not None:
        return 400, _error(problem, "invalid_request_error", None)
    assert isinstance(messages, list)
    prompt = "\n".join(_text(m.get("content")) for m in messages if isinstance(m, dict))
    reminded = any(isinstance(m, dict) and m.get("role") == "assistant" for m in messages)
    last_user = next((_text(m.get("content")) for m in reversed(messages) if isinstance(m, dict) and m.get("role") == "user"), None)
    try:
        behavior = model if model == THINKER or is_behavior(model) else config.behavior
        if behavior == "mixed":
            behavior = mixed_choice(config.seed, request.get("seed"), messages)
        elif collapse_of(behavior) is not None:
            behavior = collapse_choice(behavior, config.seed, request.get("seed"), messages)
        said = reply("reasoning" if behavior == THINKER else behavior, prompt, reminded, last_user)
    except ValueError as exc:
        return 400, _error(str(exc), "invalid_request_error", None)
    effort = request.get("reasoning_effort")
    if said.reasoning is not None and isinstance(effort, str):  # as a reasoning server does, it thinks as hard as asked
        said = said._replace(reasoning=f"(reasoning_effort {effort}) {said.reasoning}")
    reasoning = tuple((0.0, piece) for piece in _pieces(said.reasoning or ""))
    if behavior == THINKER:
        think_s = config.think_s + config.think_per_kchar_s * len(prompt) / 1000
        steps = max(1, math.ceil(round(think_s / config.chunk_interval_s, 6)))  # 0.2 / 0.05 is 4, not 4.000…1
        reasoning = (*((think_s / steps, f"Step {k} of {steps}: checking the rules once more.\n") for k in range(1, steps + 1)),
                     *reasoning)
    text: str | None = said.text
    finish = said.finish or "stop"
    if tokens is not None and len(text) > 4 * tokens:
        text, finish = text[: 4 * tokens], "length"
    thought = sum(len(piece) for _, piece in reasoning)
    usage: dict[str, Any] = {"prompt_tokens": (len(prompt) + 3) // 4, "completion_tokens": (len(text) + 3) // 4}
    if reasoning:
        usage["completion_tokens"] += (thought + 3) // 4
        usage["completion_tokens_details"] = {"reasoning_tokens": (thought + 3) // 4}
    usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
    return _Said(model, None if model == "empty" else text, reasoning, finish, usage, model != "malformed")


def _json_object(raw: bytes) -> dict[str, Any] | None:
    """A request body's JSON object; None when it is not JSON or not an object."""
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _form(kind: str, raw: bytes) -> dict[str, tuple[str | None, bytes]] | None:
    """A multipart/form-data body's fields: name -> (file name, content); None: not such a body."""
    if not kind.startswith("multipart/form-data"):
        return None
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(f"Content-Type: {kind}\r\n\r\n".encode() + raw)
    if not message.is_multipart():
        return None
    fields = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        if isinstance(name, str):
            content = part.get_payload(decode=True)
            fields[name] = (part.get_filename(), content if isinstance(content, bytes) else b"")
    return fields


def _batch_lines(content: bytes) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """A batch input file's requests, and the first problem OpenAI would fail the batch for (None: none)."""
    lines: list[dict[str, Any]] = []
    models: set[str] = set()
    ids: set[str] = set()

    def problem(number: int, message: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        return lines, {"code": "invalid_request", "message": message, "param": None, "line": number}

    for number, text in enumerate(content.decode(errors="replace").splitlines(), start=1):
        try:
            line = json.loads(text)
        except ValueError:
            return problem(number, "the line is not JSON")
        if not isinstance(line, dict) or not isinstance(line.get("custom_id"), str) or not isinstance(line.get("body"), dict):
            return problem(number, "a line needs a custom_id and a body")
        if line.get("method") != "POST" or line.get("url") != BATCH_ENDPOINT:
            return problem(number, f"a line must POST to {BATCH_ENDPOINT}")
        if line["custom_id"] in ids:
            return problem(number, f"custom_id {line['custom_id']!r} is not unique")
        ids.add(line["custom_id"])
        models.add(str(line["body"].get("model")))
        if len(models) > 1:
            return problem(number, "every request of a batch must name the same model")
        if line["body"].get("stream"):
            return problem(number, "a batch request cannot stream")
        lines.append(line)
    return (lines, None) if lines else problem(0, "the file holds no request")


def _pieces(text: str) -> list[str]:
    return [text[start:start + PIECE_CHARS] for start in range(0, len(text), PIECE_CHARS)]


def _body(said: _Said, head: dict[str, Any], field: str) -> dict[str, Any]:
    """The plain (non-streamed) answer."""
    body: dict[str, Any] = {**head, "object": "chat.completion", "usage": said.usage}
    if said.choices:
        content, reasoning = said.placed(field)
        message: dict[str, Any] = {"role": "assistant", "content": content}
        if reasoning is not None:
            message[field] = reasoning
        body["choices"] = [{"index": 0, "message": message, "finish_reason": said.finish, "logprobs": None}]
    return body


def _events(said: _Said, head: dict[str, Any], field: str, usage: bool) -> Iterator[tuple[float, dict[str, Any] | str]]:
    """The streamed answer, as OpenAI's API sends it: (pause before it, event)."""
    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
        return {**head, "object": "chat.completion.chunk", **({"choices": [choice]} if said.choices else {})}

    yield 0.0, chunk({"role": "assistant", "content": "" if said.text is not None else None})
    tags = field == THINK_TAGS and bool(said.reasoning)
    if tags:
        yield 0.0, chunk({"content": THINK_TAGS})
    silent = 0.0  # a server that returns no reasoning sends nothing while it thinks
    for pause, piece in said.reasoning:
        if field:
            yield pause, chunk({"content" if tags else field: piece})
        else:
            silent += pause
    if said.text is not None:
        yield from ((silent if k == 0 else 0.0, chunk({"content": piece}))
                    for k, piece in enumerate(_pieces(("</think>\n\n" if tags else "") + said.text)))
        silent = 0.0
    yield silent, chunk({}, said.finish)
    if usage:
        yield 0.0, {**head, "object": "chat.completion.chunk", "choices": [], "usage": said.usage}
    yield 0.0, "[DONE]"


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

    @property
    def batches_created(self) -> int:
        """Batches created so far (each `POST /v1/batches`, a failed one included)."""
        return self._server.batches_created

    @property
    def last_request(self) -> dict[str, Any] | None:
        """The body of the last chat-completion request that parsed (for checking a request's shape)."""
        return self._server.last_request

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
                      log: Callable[[str], None] | None = None, think_s: float = 10.0, think_per_kchar_s: float = 0.0,
                      chunk_interval_s: float = 0.5, stall_s: float = 0.0, stall_after: int = 1, streaming: str = "on",
                      reasoning_field: str = "reasoning_content", batch_delay_s: float = 1.0) -> MockServer:
    """Serve on 127.0.0.1:`port` (0: a free port) from a background thread; `log` gets one line per request.

    The thinker thinks `think_s` plus `think_per_kchar_s` per 1000 prompt characters, a reasoning chunk every
    `chunk_interval_s`; a streamed reply pauses `stall_s` after `stall_after` chunks; `streaming` is one of STREAMING;
    `reasoning_field` names the field reasoning goes in, or is THINK_TAGS (inside the content) or "" (left out); a batch
    is answered `batch_delay_s` after it was created.

    Raises:
        InputError: an unknown behaviour, a setting out of range, or a port that cannot be bound.
    """
    try:
        known = behavior == THINKER or is_behavior(behavior)
    except ValueError as exc:
        raise InputError(str(exc)) from None
    if not known:
        raise InputError(f"behaviour {behavior!r} is unknown: choose one of {', '.join((*BEHAVIORS, THINKER))}, "
                         f"or {COLLAPSE_FORM}")
    seconds = f"give seconds from 0 to {MAX_LATENCY_S:g}"
    for option, value, ok, expected in (
            ("--port", port, 0 <= port <= 65535, "give 0-65535 (0 picks a free one)"),
            ("--latency", latency_s, _seconds(latency_s), seconds),
            ("--fail-429-every", fail_429_every, fail_429_every >= 0, "give a period k >= 1, or 0 for never"),
            ("--fail-500-every", fail_500_every, fail_500_every >= 0, "give a period k >= 1, or 0 for never"),
            ("--think", think_s, _seconds(think_s), seconds),
            ("--think-per-kchar", think_per_kchar_s, _seconds(think_per_kchar_s), seconds),
            ("--chunk-interval", chunk_interval_s, _seconds(chunk_interval_s) and chunk_interval_s >= 0.001,
             f"give seconds from 0.001 to {MAX_LATENCY_S:g}"),
            ("--stall", stall_s, _seconds(stall_s), seconds),
            ("--batch-delay", batch_delay_s, _seconds(batch_delay_s), seconds),
            ("--stall-after", stall_after, stall_after >= 0, "give a number of chunks, 0 or more"),
            ("--streaming", streaming, streaming in STREAMING, f"choose {', '.join(STREAMING)}"),
            ("--reasoning-field", reasoning_field, reasoning_field in (THINK_TAGS, "") or reasoning_field.isidentifier(),
             f"give a field name (reasoning_content, reasoning, …), {THINK_TAGS} for inside the content, or '' for none")):
        if not ok:
            raise InputError(f"{option} {value}: {expected}")
    config = _Config(behavior=behavior, latency_s=latency_s, fail_429_every=fail_429_every, fail_500_every=fail_500_every,
                     seed=seed, api_key=api_key, log=log, think_s=think_s, think_per_kchar_s=think_per_kchar_s,
                     chunk_interval_s=chunk_interval_s, stall_s=stall_s, stall_after=stall_after, streaming=streaming,
                     reasoning_field=reasoning_field, batch_delay_s=batch_delay_s)
    try:
        server = _HTTPServer(port, config)
    except OSError as exc:
        raise InputError(f"cannot listen on 127.0.0.1:{port}: {exc.strerror}; pick another --port (0 picks a free one)") from None
    # close() waits up to one poll interval for the serving loop to notice
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), name="codebench-mock-server", daemon=True)
    thread.start()
    return MockServer(f"http://127.0.0.1:{server.server_address[1]}/v1", server, thread)


def _seconds(value: float) -> bool:
    return math.isfinite(value) and 0 <= value <= MAX_LATENCY_S
