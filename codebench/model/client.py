"""The chat-completions client for any OpenAI-compatible server: one streamed request per sample, bounded retries.

The only codebench module that imports `openai`. The SDK's own retries are off (`max_retries=0`): this module is the
one retry layer, so it can stop at once on an exhausted quota, honour `Retry-After: 0`, and tell per-sample failures
(Completion.error) from run-ending ones (ModelError). Requests stream (`stream: true`, usage in the last chunk), so a
long generation is bounded by silence (the idle timeout, httpx's read timeout) and by a deadline, never by its length;
a server that refuses streaming is asked plainly from then on, and the run is told once.
"""

from __future__ import annotations

import asyncio
import random
import re
import time
from collections.abc import Callable
from typing import Any

import openai

from ..errors import ModelError
from ..types import Completion
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


class ModelClient:
    """Sends chat requests to one endpoint, at most `max_connections` at a time, retrying 408/409/429/5xx, idle
    timeouts, passed deadlines and dropped connections up to `patience.max_retries` times with capped exponential
    backoff. `on_note` hears, once, that the endpoint refused streaming."""

    def __init__(self, endpoint: Endpoint, *, patience: Patience = DEFAULT_PATIENCE, max_connections: int = 8,
                 on_note: Callable[[str], None] | None = None) -> None:
        if max_connections < 1:
            raise ValueError("max_connections must be at least 1")
        self.endpoint, self.patience, self._on_note = endpoint, patience, on_note
        self._streams = True  # until the server refuses a streamed request
        self._slots = asyncio.Semaphore(max_connections)
        idle = patience.idle_timeout  # httpx's read timeout: the longest wait for any byte
        self._client = openai.AsyncOpenAI(api_key=endpoint.api_key, base_url=endpoint.base_url, max_retries=0,
                                          timeout=openai.Timeout(idle, connect=min(CONNECT_TIMEOUT_S, idle)))

    @property
    def base_url(self) -> str:
        return self.endpoint.base_url

    async def complete(self, messages: list[dict[str, str]], *, temperature: float, max_tokens: int | None, seed: int) -> Completion:
        """One completion (n=1, this sample's seed). Never raises for a bad answer: that is Completion.error.

        Raises:
            ModelError: 401, 403, 404, an exhausted quota, or a server unreachable after every retry.
        """
        options: dict[str, Any] = {"model": self.endpoint.model, "messages": messages, "temperature": temperature, "seed": seed, "n": 1}
        if max_tokens is not None:
            options[self.endpoint.tokens_field] = max_tokens
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
                    _raise_if_fatal(exc, problem, self.endpoint)
                    if last or not _retryable(exc.status_code):
                        return _failed(problem + _after(attempt))
                    delay = _delay(attempt, exc.response.headers.get("retry-after"))
                except (openai.APITimeoutError, TimeoutError) as exc:
                    if last:
                        return reply.failed(self._limit(exc) + _after(attempt))
                    delay = _delay(attempt, None)
                except openai.APIConnectionError as exc:
                    if last and not reply.chunks:
                        raise ModelError(f"cannot reach {self.endpoint.base_url} ({exc.__cause__ or exc}){_after(attempt)}: "
                                         f"start the server or fix --base-url, {RESUME}") from None
                    if last:  # it answered, then dropped the connection: this sample's failure, not a server down
                        return reply.failed(f"the connection dropped ({exc.__cause__ or exc}){_after(attempt)}")
                    delay = _delay(attempt, None)
                except openai.APIError as exc:  # an error event inside the stream: the server gave up on this reply
                    if last:
                        return reply.failed(f"the server sent an error: {str(exc.message)[:MESSAGE_CHARS]}{_after(attempt)}")
                    delay = _delay(attempt, None)
                except (ValueError, TypeError) as exc:  # a body or an event the SDK cannot decode
                    return reply.failed(f"malformed response: {type(exc).__name__}: {str(exc)[:MESSAGE_CHARS]}")
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


class _Reply:
    """What came back of one attempt, assembled as the plain and the streamed replies both say it: text, reasoning,
    finish reason, usage and the server's model name. Odd types and unknown fields are ignored, never raised on."""

    def __init__(self, started: float) -> None:
        self.started = started
        self.chunks = 0  # stream events received (0 for a plain reply)
        self.event_stream = True  # False: a streamed reply that is not an event stream (an HTML error page, say)
        self.choices = False  # a choice arrived
        self.text: list[str] | None = None  # None: no text content at all
        self.reasoning: list[str] | None = None
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
        self.server_model = model if isinstance(model, str) else self.server_model
        usage = getattr(part, "usage", None)
        self.usage = usage if usage is not None else self.usage
        choices = getattr(part, "choices", None)
        if not isinstance(choices, list) or not choices:  # a usage-only last chunk, or a body without choices
            return
        self.choices = True
        finish = getattr(choices[0], "finish_reason", None)
        self.finish_reason = finish if isinstance(finish, str) else self.finish_reason
        content = content_of(choices[0])
        text = getattr(content, "content", None)
        if isinstance(text, str):
            self.text = [*(self.text or []), text]
        thought = next((value for name in REASONING_FIELDS if isinstance(value := getattr(content, name, None), str)), None)
        if thought is not None:
            self.reasoning = [*(self.reasoning or []), thought]

    def _counts(self) -> tuple[int | None, int | None, int | None]:
        """(prompt, completion, reasoning) tokens, as far as the usage says."""
        details = getattr(self.usage, "completion_tokens_details", None)
        return (_count(getattr(self.usage, "prompt_tokens", None)), _count(getattr(self.usage, "completion_tokens", None)),
                _count(getattr(details, "reasoning_tokens", None)))

    def completion(self) -> Completion:
        """The finished reply; one without choices or text becomes an error, never an exception."""
        latency = time.perf_counter() - self.started
        prompt_tokens, completion_tokens, reasoning_tokens = self._counts()
        if not self.choices:
            kind = self.body_kind if self.event_stream else "a non-JSON body"
            return Completion("", None, False, prompt_tokens, completion_tokens, latency, self.server_model, f"malformed response: {kind}")
        finish = self.finish_reason
        error = None if self.text is not None else f"empty response: the message has no text content (finish_reason {finish})"
        return Completion("".join(self.text or ()), finish, finish == "length", prompt_tokens, completion_tokens, latency,
                          self.server_model, error, None if self.reasoning is None else "".join(self.reasoning), reasoning_tokens)

    def failed(self, why: str) -> Completion:
        """The attempt failed: a stream cut off keeps what arrived (so it is stored as an error, never as an answer)."""
        if not self.chunks:
            return _failed(why)
        whole = self.completion()
        received = len(whole.text) + len(whole.reasoning or "")
        return Completion(whole.text, whole.finish_reason, whole.truncated, whole.prompt_tokens, whole.completion_tokens,
                          whole.latency_s, whole.server_model, f"stream cut off after {received} characters: {why}",
                          whole.reasoning, whole.reasoning_tokens)


def _message(exc: openai.APIStatusError) -> str:
    body = exc.body
    text = body.get("message") if isinstance(body, dict) else None
    return str(text or exc.message)[:MESSAGE_CHARS]


def _raise_if_fatal(exc: openai.APIStatusError, problem: str, endpoint: Endpoint) -> None:
    body = exc.body if isinstance(exc.body, dict) else {}
    where, model = endpoint.base_url, endpoint.model
    if exc.status_code == 401:
        fix = (f"set {endpoint.key_env} to a valid key" if endpoint.key_env else
               "pass --api-key-env VAR naming the variable that holds a valid key")
        raise ModelError(f"{where} rejected the API key ({problem}): {fix}, {RESUME}")
    if exc.status_code == 403:
        raise ModelError(f"{where} refused access to model {model!r} ({problem}): use a key allowed to call it, {RESUME}")
    if exc.status_code == 404:
        raise ModelError(f"{where} has no model {model!r} or no chat-completions route ({problem}): check --model against "
                         f"GET {where}/models and that --base-url is the API root (usually ending in /v1), {RESUME}")
    if exc.status_code == 429 and "insufficient_quota" in (body.get("code"), body.get("type")):
        raise ModelError(f"the key's quota at {where} is exhausted ({problem}): add credit or use another key, {RESUME}")


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


def _count(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
