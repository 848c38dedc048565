"""The chat-completions client for any OpenAI-compatible server: one streamed request per sample, bounded retries.

The only codebench module that imports `openai`. The SDK's own retries are off (`max_retries=0`): this module is the
one retry layer, so it can stop at once on an exhausted quota, honour `Retry-After: 0`, and tell per-sample failures
(Completion.error) from run-ending ones (ModelError). Requests stream (`stream: true`, usage in the last chunk), so a
long generation is bounded by silence (the idle timeout, httpx's read timeout) and by a deadline, never by its length;
a server that refuses streaming is asked plainly from then on, and the run is told once.

What it hands on is sane whatever the server sends (`_Reply`): valid text (a lone surrogate becomes U+FFFD), a
reply's text and reasoning each cut at REPLY_KEPT characters with the whole one's length and SHA-256 kept, token
counts that are non-negative integers below MAX_TOKENS or unknown, each change said in `Completion.notes`; a body
nested past the parser's depth is a malformed response; the server's own words (error messages) made harmless.

The Batch API (`--batch`) goes through the same client: `submit_batch` uploads a round's requests as one JSONL file
(`files.create`) and creates a batch of them (`batches.create`, /v1/chat/completions, unstreamed); `batch` reads how
it stands (`batches.retrieve`); `batch_replies` reads its output and error files, each reply through `_Reply` as a
direct one is, marked as a batch's. A batch is tagged (`metadata`) so that a submission whose answer was lost (a
dropped connection, a killed run) is found and adopted instead of created twice.
"""

from __future__ import annotations

import asyncio
import hashlib
import importlib
import json
import random
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from types import SimpleNamespace
from typing import Any, TypeVar

import openai

from ..errors import ModelError
from ..types import Completion, ReplySource, harmless
from .presets import Endpoint, Patience

INITIAL_DELAY_S, MAX_DELAY_S, MAX_RETRY_AFTER_S = 0.5, 8.0, 60.0
CONNECT_TIMEOUT_S = 10.0
RESUME = "then re-run the same command (finished samples are kept)"
MESSAGE_CHARS = 300
REASONING_FIELDS = ("reasoning_content", "reasoning")  # where servers put a reasoning model's thinking (see presets)
DEFAULT_PATIENCE = Patience()
REFUSALS = (400, 422, 501)  # what a server that cannot stream answers `stream: true` with, its message naming it:
ABOUT_STREAMING = re.compile(r"\bstream", re.IGNORECASE)  # stream, streaming, stream_options; not "upstream error"
EVENT_STREAM, JSON_BODY = "text/event-stream", "application/json"
REPLY_KEPT = 4 << 20  # characters of a reply's text, and of its reasoning, kept; a longer one is cut (its digest kept)
MAX_BODY_BYTES = 256 << 20  # a response body read no further: ~1M streamed tokens, 60 times a kept reply sent plainly
MAX_TOKENS = 10**9  # a usage count at or past this (no context holds a billion tokens) is no count at all
SURROGATES = re.compile("[\ud800-\udfff]")
# The HTTP library the SDK is built on (httpx; httpx2 from openai 3): its own transport is the one wrapped.
_http: Any = importlib.import_module(openai.DefaultAsyncHttpxClient.__mro__[1].__module__.partition(".")[0])
BATCH_ENDPOINT = "/v1/chat/completions"
GONE = frozenset({"failed", "expired", "cancelled", "cancelling"})  # a batch that answers no more requests
BATCH_ENDED = frozenset({"completed", "failed", "expired", "cancelled"})  # a batch in any other status is still running
BATCH_TAG = "codebench_batch"  # the metadata field a batch's tag goes in
BATCHES_LOOKED_AT = 100  # the latest batches searched for one already created with a tag
FILE_CONTENT = re.compile(r"/files/[^/]+/content$")  # a file's download: read line by line, each line bounded
T = TypeVar("T")


@dataclass(frozen=True)
class BatchRequest:
    """One request of a batch: its key (the line's custom_id) and what a direct request would send."""

    key: str
    messages: list[dict[str, Any]]
    temperature: float
    max_tokens: int | None
    seed: int


@dataclass(frozen=True)
class BatchState:
    """A batch as the provider reports it: its status, the files its replies are in, and what it said went wrong."""

    id: str
    status: str  # validating, in_progress, finalizing, completed, failed, expired, cancelling, cancelled; or missing
    output_file: str | None
    error_file: str | None
    done: int  # requests answered so far (completed and failed)
    total: int
    problem: str  # the provider's words on the whole batch ("" when none)

    @property
    def ended(self) -> bool:
        return self.status in BATCH_ENDED or self.status == MISSING


MISSING = "missing"  # a stored batch the provider no longer knows (another key, or deleted): its requests are asked anew


class ModelClient:
    """Sends chat requests to one endpoint, at most `max_connections` at a time, retrying 408/409/429/5xx, idle
    timeouts, passed deadlines and dropped connections up to `patience.max_retries` times with capped exponential
    backoff. `on_note` hears, once, that the endpoint refused streaming. `label` is what the run calls the model (its
    `models:` entry), named in the errors that end a run; the model's name when not given."""

    def __init__(self, endpoint: Endpoint, *, patience: Patience = DEFAULT_PATIENCE, max_connections: int = 8,
                 on_note: Callable[[str], None] | None = None, label: str | None = None) -> None:
        if max_connections < 1:
            raise ValueError("max_connections must be at least 1")
        self.endpoint, self.patience, self._on_note = endpoint, patience, on_note
        self.label = label or endpoint.model
        self._streams = True  # until the server refuses a streamed request
        self._slots = asyncio.Semaphore(max_connections)
        idle = patience.idle_timeout  # httpx's read timeout: the longest wait for any byte
        self._client = openai.AsyncOpenAI(api_key=endpoint.api_key, base_url=endpoint.base_url, max_retries=0,
                                          timeout=openai.Timeout(idle, connect=min(CONNECT_TIMEOUT_S, idle)),
                                          http_client=openai.DefaultAsyncHttpxClient(transport=_BoundedTransport()))

    @property
    def base_url(self) -> str:
        return self.endpoint.base_url

    async def complete(self, messages: list[dict[str, str]], *, temperature: float, max_tokens: int | None, seed: int) -> Completion:
        """One completion (n=1, this sample's seed). Never raises for a bad answer: that is Completion.error.

        Raises:
            ModelError: 401, 403, 404, an exhausted quota, or a server unreachable after every retry.
        """
        options = self._body(messages, temperature, max_tokens, seed)
        if self.endpoint.request:
            options["extra_body"] = self.endpoint.request  # the SDK merges these into the JSON body
        retries = self.patience.max_retries
        async with self._slots:
            for attempt in range(retries + 1):
                last, reply = attempt == retries, _Reply(time.perf_counter())
                try:
                    async with asyncio.timeout(self.patience.request_timeout):
                        return await self._attempt(options, reply)
                except openai.APIStatusError as exc:
                    problem = f"HTTP {exc.status_code}: {_message(exc)}"
                    _raise_if_fatal(exc, problem, self.endpoint, self.label)
                    if last or not _retryable(exc.status_code):
                        return _failed(problem + _after(attempt))
                    delay = _delay(attempt, exc.response.headers.get("retry-after"))
                except (openai.APITimeoutError, TimeoutError) as exc:
                    if last:
                        return reply.failed(self._limit(exc) + _after(attempt))
                    delay = _delay(attempt, None)
                except openai.APIConnectionError as exc:
                    if last and not reply.chunks:
                        raise ModelError(f"cannot reach {self.endpoint.base_url} for model {self.label!r} ({_why(exc)})"
                                         f"{_after(attempt)}: start the server or fix its base URL, {RESUME}") from None
                    if last:  # it answered, then dropped the connection: this sample's failure, not a server down
                        return reply.failed(f"the connection dropped ({_why(exc)}){_after(attempt)}")
                    delay = _delay(attempt, None)
                except openai.APIError as exc:  # an error event inside the stream: the server gave up on this reply
                    if last:
                        return reply.failed(f"the server sent an error: {_said(exc.message)}{_after(attempt)}")
                    delay = _delay(attempt, None)
                except _TooLarge as exc:
                    return reply.failed(f"malformed response: {exc}")
                except (ValueError, TypeError, RecursionError) as exc:  # a body or an event the SDK cannot decode, or
                    # one nested deeper than the JSON parser goes (RecursionError): this sample's malformed reply
                    return reply.failed(f"malformed response: {type(exc).__name__}: {_said(exc)}")
                await asyncio.sleep(delay)
        raise AssertionError("unreachable: the last attempt returns or raises")

    def _body(self, messages: list[dict[str, Any]], temperature: float, max_tokens: int | None, seed: int) -> dict[str, Any]:
        """A request's own fields (the endpoint's extra fields apart): one completion, this sample's seed."""
        body: dict[str, Any] = {"model": self.endpoint.model, "messages": messages, "temperature": temperature, "seed": seed,
                                "n": 1}
        if max_tokens is not None:
            body[self.endpoint.tokens_field] = max_tokens
        return body

    async def submit_batch(self, requests: Sequence[BatchRequest], tag: str) -> str:
        """The id of a batch of `requests`: one created now, or the one created with `tag` before (its answer lost).

        Raises:
            ModelError: the endpoint has no Batch API, refuses the key or the file, or cannot be reached.
        """
        found = await self._tagged(tag)
        if found is not None:
            return found
        lines = "".join(json.dumps({"custom_id": request.key, "method": "POST", "url": BATCH_ENDPOINT,
                                    "body": {**self._body(request.messages, request.temperature, request.max_tokens,
                                                          request.seed), **self.endpoint.request}}) + "\n"
                        for request in requests)
        uploaded = await self._batch_call("POST /files", lambda: self._client.files.create(
            file=("codebench-batch.jsonl", lines.encode()), purpose="batch"))
        assert uploaded is not None  # a 404 is no Batch API here, never None
        batch = await self._batch_call("POST /batches", lambda: self._client.batches.create(
            input_file_id=uploaded.id, endpoint=BATCH_ENDPOINT, completion_window="24h", metadata={BATCH_TAG: tag}),
            again=lambda: self._tagged(tag))  # a lost answer may hide a batch created: looked for before asking again
        assert batch is not None
        return batch if isinstance(batch, str) else str(batch.id)

    async def _tagged(self, tag: str) -> str | None:
        """The latest batch created with `tag` that may still answer (not failed, expired or cancelled)."""
        page = await self._batch_call("GET /batches", lambda: self._client.batches.list(limit=BATCHES_LOOKED_AT))
        for batch in getattr(page, "data", None) or ():
            metadata = getattr(batch, "metadata", None)
            if isinstance(metadata, dict) and metadata.get(BATCH_TAG) == tag and batch.status not in GONE:
                return str(batch.id)
        return None

    async def batch(self, batch_id: str) -> BatchState:
        """How the batch stands (status `missing`: the provider does not know it).

        Raises:
            ModelError: the endpoint refuses the key or cannot be reached.
        """
        batch = await self._batch_call("GET /batches/ID", lambda: self._client.batches.retrieve(batch_id), missing=True)
        if batch is None:
            return BatchState(batch_id, MISSING, None, None, 0, 0, "the provider does not know this batch")
        counts = getattr(batch, "request_counts", None)
        errors = getattr(getattr(batch, "errors", None), "data", None) or []
        problem = "; ".join(_said(f"line {getattr(e, 'line', '?')}: {getattr(e, 'message', '')}") for e in errors[:3])
        return BatchState(str(batch.id), str(batch.status), batch.output_file_id, batch.error_file_id,
                          int(getattr(counts, "completed", 0) or 0) + int(getattr(counts, "failed", 0) or 0),
                          int(getattr(counts, "total", 0) or 0), problem)

    async def batch_replies(self, state: BatchState) -> dict[str, Completion]:
        """The replies of an ended batch by request key: its error file's lines (HTTP errors, api_error) under its output
        file's (the replies, sanitised as a direct reply is); a request with neither has none here. A file the provider
        no longer has gives none.

        Raises:
            ModelError: the endpoint refuses the key or cannot be reached.
        """
        replies: dict[str, Completion] = {}
        for file_id in (state.error_file, state.output_file):
            if file_id:
                replies.update(await self._batch_call("GET /files/ID/content", lambda f=file_id: self._file_lines(f),
                                                      missing=True) or {})
        return replies

    async def _file_lines(self, file_id: str) -> dict[str, Completion]:
        """A batch output or error file's replies, read line by line (a line past MAX_BODY_BYTES is skipped)."""
        replies: dict[str, Completion] = {}
        async with self._client.files.with_streaming_response.content(file_id) as response:
            line = bytearray()
            async for part in response.iter_bytes():
                *whole, rest = part.split(b"\n")
                for piece in whole:
                    line += piece
                    if len(line) <= MAX_BODY_BYTES:
                        replies.update(_batch_reply(bytes(line)))
                    line.clear()
                line += rest
                del line[MAX_BODY_BYTES + 1:]  # past the bound it is skipped: keep no more of it
            if 0 < len(line) <= MAX_BODY_BYTES:
                replies.update(_batch_reply(bytes(line)))
        return replies

    async def _batch_call(self, what: str, make: Callable[[], Awaitable[T]], *, missing: bool = False,
                          again: Callable[[], Awaitable[str | None]] | None = None) -> T | str | None:
        """One Batch API call, retried as a chat request is (429/5xx, timeouts, dropped connections); `missing`: a 404
        is None (a batch or file the provider does not know), else the endpoint has no Batch API; `again`: asked before
        each retry, what it finds (a batch the lost attempt created) is the answer.

        Raises:
            ModelError: the endpoint has no Batch API, refuses the key or the call, or cannot be reached.
        """
        retries = self.patience.max_retries
        where = self.endpoint.base_url
        for attempt in range(retries + 1):
            last = attempt == retries
            if attempt and again is not None and (found := await again()) is not None:
                return found
            try:
                async with asyncio.timeout(self.patience.request_timeout):
                    return await make()
            except openai.APIStatusError as exc:
                problem = f"HTTP {exc.status_code}: {_message(exc)}"
                if exc.status_code == 404 and missing:
                    return None
                if exc.status_code in (404, 405):
                    raise ModelError(f"{where} has no Batch API ({what} answered {problem}): drop --batch for model "
                                     f"{self.label!r}") from None
                _raise_if_fatal(exc, problem, self.endpoint, self.label)
                if last or not _retryable(exc.status_code):
                    raise ModelError(f"{where} refused {what} of the Batch API for model {self.label!r} ({problem}"
                                     f"{_after(attempt)}), {RESUME}") from None
                delay = _delay(attempt, exc.response.headers.get("retry-after"))
            except (openai.APITimeoutError, openai.APIConnectionError, TimeoutError) as exc:
                if last:
                    why = _why(exc) if isinstance(exc, openai.APIConnectionError) else self._limit(exc)
                    raise ModelError(f"cannot reach {where} for {what} of the Batch API (model {self.label!r}: {why})"
                                     f"{_after(attempt)}, {RESUME}") from None
                delay = _delay(attempt, None)
            await asyncio.sleep(delay)
        raise AssertionError("unreachable: the last attempt returns or raises")

    async def _attempt(self, options: dict[str, Any], reply: _Reply) -> Completion:
        """One request: streamed, or plain once the endpoint refused streaming. What arrives is kept in `reply`."""
        if self._streams:
            try:
                stream = await self._client.chat.completions.create(**options, stream=True, stream_options={"include_usage": True})
            except openai.APIStatusError as exc:
                if exc.status_code not in REFUSALS or not ABOUT_STREAMING.search(_message(exc)):
                    raise
                self._unstreamed("refused streaming")
            else:
                async with stream:
                    kind = stream.response.headers.get("content-type", "")
                    if not kind.startswith(JSON_BODY):
                        reply.event_stream = kind.startswith(EVENT_STREAM)
                        async for chunk in stream:
                            reply.add_chunk(chunk)
                        return reply.completion()
                self._unstreamed("answered a streamed request with a JSON body")
        reply.add_message(await self._client.chat.completions.create(**options))
        return reply.completion()

    def _unstreamed(self, why: str) -> None:
        """Ask this endpoint plainly from now on; the first request to find out tells the run."""
        if self._streams:
            self._streams = False
            if self._on_note is not None:
                self._on_note(f"note: {self.base_url} {why}; its requests go unstreamed (the idle timeout then covers "
                              "the whole reply)")

    def _limit(self, exc: BaseException) -> str:
        """Which limit a timeout was: httpx's read timeout is the idle one, asyncio's the deadline."""
        if isinstance(exc, openai.APITimeoutError):
            return f"no byte for {self.patience.idle_timeout:g} s (idle timeout)"
        return f"the {self.patience.request_timeout:g} s deadline passed (request timeout)"

    async def aclose(self) -> None:
        """Close the HTTP connections."""
        await self._client.close()


class _TooLarge(openai.OpenAIError):
    """A response body past MAX_BODY_BYTES (an OpenAIError, so the SDK hands it on as it is, never as a lost connection)."""


class _Bounded(_http.AsyncByteStream):  # type: ignore[misc]  (the SDK's HTTP library, found at import)
    """A response body read up to MAX_BODY_BYTES: past it, reading stops (a server cannot fill the harness's memory)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    async def __aiter__(self) -> AsyncIterator[bytes]:
        received = 0
        async for part in self.inner:
            received += len(part)
            if received > MAX_BODY_BYTES:
                raise _TooLarge(f"the body passed {MAX_BODY_BYTES} bytes, read no further")
            yield part

    async def aclose(self) -> None:
        await self.inner.aclose()


class _BoundedTransport(_http.AsyncHTTPTransport):  # type: ignore[misc]
    """The SDK's transport (its connection limits), every response body bounded but a file's download (a batch's
    replies, any number of them: read line by line, each line bounded)."""

    def __init__(self) -> None:
        super().__init__(limits=openai.DEFAULT_CONNECTION_LIMITS)

    async def handle_async_request(self, request: Any) -> Any:
        response = await super().handle_async_request(request)
        if not FILE_CONTENT.search(request.url.path):
            response.stream = _Bounded(response.stream)
        return response


class _Reply:
    """What came back of one attempt, assembled as the plain and the streamed replies both say it: text, reasoning,
    finish reason, usage and the server's model name. Odd types and unknown fields are ignored, never raised on."""

    def __init__(self, started: float) -> None:
        self.started = started
        self.chunks = 0  # stream events received (0 for a plain reply)
        self.event_stream = True  # False: a streamed reply that is not an event stream (an HTML error page, say)
        self.choices = False  # a choice arrived
        self.text: _Text | None = None  # None: no text content at all
        self.reasoning: _Text | None = None
        self.finish_reason: str | None = None
        self.usage: Any = None
        self.server_model: str | None = None
        self.body_kind = "no choices"  # what a reply without choices was

    def add_message(self, response: Any) -> None:
        """A plain (non-streamed) reply: a parsed ChatCompletion, or the text of a body that is not JSON."""
        if isinstance(response, str):
            self.body_kind = "a non-JSON body"
        self._take(response, lambda choice: getattr(choice, "message", None))

    def add_chunk(self, chunk: Any) -> None:
        """One streamed chunk: its deltas extend the text and the reasoning; the last usage and finish reason win."""
        self.chunks += 1
        self._take(chunk, lambda choice: getattr(choice, "delta", None))

    def _take(self, part: Any, content_of: Callable[[Any], Any]) -> None:
        model = getattr(part, "model", None)
        self.server_model = _short(model) if isinstance(model, str) else self.server_model
        usage = getattr(part, "usage", None)
        self.usage = usage if usage is not None else self.usage
        choices = getattr(part, "choices", None)
        if not isinstance(choices, list) or not choices:  # a usage-only last chunk, or a body without choices
            return
        self.choices = True
        finish = getattr(choices[0], "finish_reason", None)
        self.finish_reason = _short(finish) if isinstance(finish, str) else self.finish_reason
        content = content_of(choices[0])
        text = getattr(content, "content", None)
        if isinstance(text, str):
            self.text = self.text or _Text("text")
            self.text.add(text)
        thought = next((value for name in REASONING_FIELDS if isinstance(value := getattr(content, name, None), str)), None)
        if thought is not None:
            self.reasoning = self.reasoning or _Text("reasoning")
            self.reasoning.add(thought)

    def _counts(self, notes: list[str]) -> tuple[int | None, int | None, int | None]:
        """(prompt, completion, reasoning) tokens, as far as the usage says; a count that is none is unknown (noted)."""
        details = getattr(self.usage, "completion_tokens_details", None)
        return (_count("prompt_tokens", getattr(self.usage, "prompt_tokens", None), notes),
                _count("completion_tokens", getattr(self.usage, "completion_tokens", None), notes),
                _count("reasoning_tokens", getattr(details, "reasoning_tokens", None), notes))

    def completion(self) -> Completion:
        """The finished reply; one without choices or text becomes an error, never an exception."""
        latency = time.perf_counter() - self.started
        notes = [note for field in (self.text, self.reasoning) if field is not None for note in field.notes()]
        prompt_tokens, completion_tokens, reasoning_tokens = self._counts(notes)
        if not self.choices:
            kind = self.body_kind if self.event_stream else "a non-JSON body"
            return Completion("", None, False, prompt_tokens, completion_tokens, latency, self.server_model,
                              f"malformed response: {kind}", notes=tuple(notes))
        finish = self.finish_reason
        error = None if self.text is not None else ("empty response: the message has no text content "
                                                     f"(finish_reason {harmless(str(finish))})")
        return Completion(self.text.value() if self.text is not None else "", finish, finish == "length", prompt_tokens,
                          completion_tokens, latency, self.server_model, error,
                          None if self.reasoning is None else self.reasoning.value(), reasoning_tokens, tuple(notes))

    def failed(self, why: str) -> Completion:
        """The attempt failed: a stream cut off keeps what arrived (so it is stored as an error, never as an answer)."""
        if not self.chunks:
            return _failed(why)
        whole = self.completion()
        received = sum(field.chars for field in (self.text, self.reasoning) if field is not None)
        return replace(whole, error=f"stream cut off after {received} characters: {why}")


class _Text:
    """One field of a reply (its text, or its reasoning) as its pieces arrive: made valid text (a lone surrogate, which
    no store or encoder takes, becomes U+FFFD), its first REPLY_KEPT characters kept, the whole one's length and SHA-256
    counted on the way, so a reply of any size costs bounded memory and storage."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.parts: list[str] = []
        self.kept = self.chars = self.replaced = 0
        self.digest = hashlib.sha256()

    def add(self, piece: str) -> None:
        piece, replaced = SURROGATES.subn("\ufffd", piece)
        self.replaced += replaced
        self.chars += len(piece)
        self.digest.update(piece.encode())
        if self.kept < REPLY_KEPT:
            head = piece[: REPLY_KEPT - self.kept]
            self.parts.append(head)
            self.kept += len(head)

    def value(self) -> str:
        return "".join(self.parts)

    def notes(self) -> list[str]:
        """What was changed, said once per change."""
        said = []
        if self.replaced:
            said.append(f"the reply's {self.name} held {self.replaced} lone surrogate(s), each replaced by U+FFFD")
        if self.chars > REPLY_KEPT:
            said.append(f"the reply's {self.name} was cut: {self.chars} characters in all (sha256 {self.digest.hexdigest()}), "
                        f"the first {REPLY_KEPT} kept")
        return said


def _batch_reply(line: bytes) -> dict[str, Completion]:
    """One line of a batch's output or error file as {its request's key: its reply}; a line without a key, none. A reply
    (HTTP 200) is read as a direct plain reply is (`_Reply`); anything else is that request's error."""
    try:
        found = json.loads(line, object_hook=_attributes)
    except (ValueError, RecursionError):
        return {}
    key = getattr(found, "custom_id", None)
    if not isinstance(key, str):
        return {}
    response, error = getattr(found, "response", None), getattr(found, "error", None)
    status = getattr(response, "status_code", None)
    if status == 200:
        reply = _Reply(time.perf_counter())
        reply.add_message(getattr(response, "body", None))
        completion = replace(reply.completion(), latency_s=0.0)  # how long it took is the batch's secret
    else:
        said = getattr(error, "message", None) or getattr(getattr(getattr(response, "body", None), "error", None), "message", None)
        code = f"HTTP {status}" if isinstance(status, int) else "an error"
        completion = _failed(f"the batch answered this request with {code}: {_said(said or 'no message')}")
    return {key: replace(completion, reply_source=ReplySource.BATCH)}


def _attributes(found: dict[str, Any]) -> SimpleNamespace:
    """A JSON object as the SDK's objects are read (attributes); a name Python keeps for itself is left out."""
    return SimpleNamespace(**{name: value for name, value in found.items() if not name.startswith("__")})


def _message(exc: openai.APIStatusError) -> str:
    body = exc.body
    text = body.get("message") if isinstance(body, dict) else None
    return _said(text or exc.message)


def _said(words: object) -> str:
    """The server's (or the network's) own words, as a message may carry them: cut, and harmless on a terminal."""
    return harmless(_short(str(words)))


def _why(exc: openai.APIConnectionError) -> str:
    """What broke a connection: its cause's words, else the cause's kind (a reset says nothing)."""
    cause = exc.__cause__ or exc
    return _said(cause) or type(cause).__name__


def _short(text: str) -> str:
    """A short string the server chose (its model name, a finish reason, a message): valid text, cut to MESSAGE_CHARS."""
    return SURROGATES.sub("\ufffd", text[:MESSAGE_CHARS])


def _raise_if_fatal(exc: openai.APIStatusError, problem: str, endpoint: Endpoint, label: str) -> None:
    """A run-ending refusal, as a ModelError naming the model as the run calls it and the variable its key came from."""
    body = exc.body if isinstance(exc.body, dict) else {}
    where, model = endpoint.base_url, endpoint.model
    key = f", read from {endpoint.key_env}" if endpoint.key_env else ", a placeholder (no key variable)"
    if exc.status_code == 401:
        fix = (f"set {endpoint.key_env} to a valid key" if endpoint.key_env else
               "name the variable that holds a valid key (api_key_env in its models: entry, or --api-key-env VAR)")
        raise ModelError(f"{where} rejected the API key of model {label!r}{key} ({problem}): {fix}, {RESUME}")
    entry = f" (model {label!r})" if label != model else ""
    if exc.status_code == 403:
        raise ModelError(f"{where} refused access to model {model!r}{entry} ({problem}): use a key allowed to call it, {RESUME}")
    if exc.status_code == 404:
        raise ModelError(f"{where} has no model {model!r}{entry} or no chat-completions route ({problem}): check the model's "
                         f"name against GET {where}/models and that its base URL is the API root (usually ending in /v1), "
                         f"{RESUME}")
    if exc.status_code == 429 and "insufficient_quota" in (body.get("code"), body.get("type")):
        raise ModelError(f"the key's quota at {where} (model {label!r}{key}) is exhausted ({problem}): add credit or use "
                         f"another key, {RESUME}")


def _retryable(status: int) -> bool:
    return status in (408, 409, 429) or status >= 500


def _delay(attempt: int, retry_after: str | None) -> float:
    """The server's Retry-After (seconds, 0 included, capped) if it gave one, else capped exponential backoff with jitter."""
    try:
        wanted = float(retry_after) if retry_after is not None else None
    except ValueError:  # an HTTP date: rare from model servers, so back off as usual
        wanted = None
    if wanted is not None and wanted >= 0:
        return min(wanted, MAX_RETRY_AFTER_S)
    return min(MAX_DELAY_S, INITIAL_DELAY_S * 2**attempt) * random.uniform(0.75, 1.0)


def _after(attempt: int) -> str:
    return f" after {attempt + 1} attempts" if attempt else ""


def _failed(error: str) -> Completion:
    return Completion("", None, False, None, None, 0.0, None, error)


def _count(name: str, value: object, notes: list[str]) -> int | None:
    """A usage count: a non-negative integer below MAX_TOKENS (not a bool, float or string), else unknown and noted."""
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < MAX_TOKENS:
        return value
    notes.append(f"usage.{name} {harmless(repr(value)[:40])} is no token count: taken as unknown")
    return None
