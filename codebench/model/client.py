"""The chat-completions client for any OpenAI-compatible server: one request per sample, bounded retries.

The only codebench module that imports `openai`. The SDK's own retries are off (`max_retries=0`): this
module is the one retry layer, so it can stop at once on an exhausted quota, honour `Retry-After: 0`, and
tell per-sample failures (Completion.error) from run-ending ones (ModelError).
"""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any
from urllib.parse import urlsplit

import openai

from ..errors import ModelError
from ..types import Completion
from .presets import Endpoint

INITIAL_DELAY_S, MAX_DELAY_S, MAX_RETRY_AFTER_S = 0.5, 8.0, 60.0
RESUME = "then re-run the same command (finished samples are kept)"
MESSAGE_CHARS = 300
REASONING_FIELDS = ("reasoning_content", "reasoning")  # where servers put a reasoning model's thinking: vLLM, DeepSeek; OpenRouter


class ModelClient:
    """Sends chat requests to one endpoint, at most `max_connections` at a time, retrying 408/409/429/5xx,
    timeouts and connection errors up to `max_retries` times with capped exponential backoff."""

    def __init__(self, endpoint: Endpoint, *, timeout_s: float = 120.0, max_retries: int = 4, max_connections: int = 8) -> None:
        if timeout_s <= 0 or max_retries < 0 or max_connections < 1:
            raise ValueError("timeout_s must be positive, max_retries non-negative and max_connections at least 1")
        self.endpoint = endpoint
        self._timeout_s, self._max_retries = float(timeout_s), max_retries
        self._slots = asyncio.Semaphore(max_connections)
        self._client = openai.AsyncOpenAI(api_key=endpoint.api_key, base_url=endpoint.base_url, max_retries=0,
                                          timeout=openai.Timeout(float(timeout_s), connect=min(10.0, float(timeout_s))))
        # OpenAI's own API refuses max_tokens for newer models; other servers may not know max_completion_tokens.
        self._tokens_field = "max_completion_tokens" if urlsplit(endpoint.base_url).hostname == "api.openai.com" else "max_tokens"

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
            options[self._tokens_field] = max_tokens
        if self.endpoint.request:
            options["extra_body"] = self.endpoint.request  # the SDK merges these into the JSON body
        async with self._slots:
            for attempt in range(self._max_retries + 1):
                last = attempt == self._max_retries
                started = time.perf_counter()
                try:
                    response = await self._client.chat.completions.create(**options)
                except openai.APIStatusError as exc:
                    problem = f"HTTP {exc.status_code}: {_message(exc)}"
                    _raise_if_fatal(exc, problem, self.endpoint)
                    if last or not _retryable(exc.status_code):
                        return _failed(problem + _after(attempt))
                    delay = _delay(attempt, exc.response.headers.get("retry-after"))
                except openai.APITimeoutError:
                    if last:
                        return _failed(f"no answer within {self._timeout_s:g} s{_after(attempt)}")
                    delay = _delay(attempt, None)
                except openai.APIConnectionError as exc:
                    if last:
                        raise ModelError(f"cannot reach {self.endpoint.base_url} ({exc.__cause__ or exc}){_after(attempt)}: "
                                              f"start the server or fix --base-url, {RESUME}") from None
                    delay = _delay(attempt, None)
                except (openai.APIError, ValueError, TypeError) as exc:  # a body the SDK cannot decode
                    return _failed(f"malformed response: {type(exc).__name__}: {str(exc)[:MESSAGE_CHARS]}")
                else:
                    return _completion(response, time.perf_counter() - started)
                await asyncio.sleep(delay)
        raise AssertionError("unreachable: the last attempt returns or raises")

    async def aclose(self) -> None:
        """Close the HTTP connections."""
        await self._client.close()


def _message(exc: openai.APIStatusError) -> str:
    body = exc.body
    text = body.get("message") if isinstance(body, dict) else None
    return str(text or exc.message)[:MESSAGE_CHARS]


def _raise_if_fatal(exc: openai.APIStatusError, problem: str, endpoint: Endpoint) -> None:
    body = exc.body if isinstance(exc.body, dict) else {}
    where, model = endpoint.base_url, endpoint.model
    if exc.status_code == 401:
        fix = "set the variable named by --api-key-env (OPENAI_API_KEY for the openai preset) to a valid key"
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


def _completion(response: Any, latency_s: float) -> Completion:
    """A Completion from whatever came back; a body without choices or text becomes an error, never an exception."""
    server_model = getattr(response, "model", None)
    server_model = server_model if isinstance(server_model, str) else None
    usage = getattr(response, "usage", None)
    prompt_tokens, completion_tokens = (_count(getattr(usage, name, None)) for name in ("prompt_tokens", "completion_tokens"))
    choices = getattr(response, "choices", None)
    if not isinstance(choices, list) or not choices:
        kind = "a non-JSON body" if isinstance(response, str) else "no choices"
        return Completion("", None, False, prompt_tokens, completion_tokens, latency_s, server_model, f"malformed response: {kind}")
    finish_reason = getattr(choices[0], "finish_reason", None)
    finish_reason = finish_reason if isinstance(finish_reason, str) else None
    message = getattr(choices[0], "message", None)
    text = getattr(message, "content", None)
    error = None if isinstance(text, str) else f"empty response: the message has no text content (finish_reason {finish_reason})"
    reasoning = next((value for name in REASONING_FIELDS if isinstance(value := getattr(message, name, None), str)), None)
    reasoning_tokens = _count(getattr(getattr(usage, "completion_tokens_details", None), "reasoning_tokens", None))
    return Completion(text if isinstance(text, str) else "", finish_reason, finish_reason == "length", prompt_tokens,
                      completion_tokens, latency_s, server_model, error, reasoning, reasoning_tokens)


def _count(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
