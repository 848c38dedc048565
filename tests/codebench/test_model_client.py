"""ModelClient through real HTTP (the real `openai` SDK) against the mock server, and endpoint resolution.
Streaming, timeouts and presets have their own file (test_streaming.py)."""

from __future__ import annotations

import asyncio
import socket
import time
from typing import Any

import pytest

from codebench.errors import ModelConfigError, ModelError
from codebench.model.client import DEFAULT_PATIENCE, ModelClient
from codebench.model.mock_server import MockServer, start_mock_server
from codebench.model.presets import MOCK_PORT, PRESETS, Endpoint, Patience, resolve_endpoint
from codebench.oracles import oracle_source
from codebench.types import Completion

PROMPT = "codebench-puzzle: hanoi\n\nWrite solve(instance)."
MESSAGES = [{"role": "system", "content": "You write Python."}, {"role": "user", "content": PROMPT}]


def ask(url: str, model: str = "oracle", *, key: str = "k", max_tokens: int | None = None, seed: int = 0,
        patience: Patience = DEFAULT_PATIENCE, **endpoint: Any) -> Completion:
    async def go() -> Completion:
        client = ModelClient(Endpoint(model, url, key, **endpoint), patience=patience)
        try:
            return await client.complete(MESSAGES, temperature=0.0, max_tokens=max_tokens, seed=seed)
        finally:
            await client.aclose()

    return asyncio.run(go())


@pytest.fixture
def server() -> Any:
    with start_mock_server() as running:
        yield running


def test_a_completion_carries_text_usage_finish_reason_latency_and_server_model(server: MockServer) -> None:
    completion = ask(server.url)
    assert completion.error is None
    assert f"```python\n{oracle_source('hanoi')}```" in completion.text
    assert (completion.finish_reason, completion.truncated, completion.server_model) == ("stop", False, "oracle")
    prompt_chars = len("You write Python.") + 1 + len(PROMPT)  # the mock joins the messages with a newline
    assert completion.prompt_tokens == (prompt_chars + 3) // 4
    assert completion.completion_tokens == (len(completion.text) + 3) // 4
    assert 0 < completion.latency_s < 5
    assert server.hits == 1


def test_finish_reason_length_is_flagged_truncated(server: MockServer) -> None:
    completion = ask(server.url, max_tokens=10)
    assert (completion.finish_reason, completion.truncated, completion.error) == ("length", True, None)
    assert completion.text == f"Here is a program that solves any hanoi instance.\n\n```python\n{oracle_source('hanoi')}"[:40]
    assert completion.completion_tokens == 10


@pytest.mark.parametrize("failure", ["fail_429_every", "fail_500_every"])
def test_429_and_500_are_retried_then_succeed(failure: str) -> None:
    with start_mock_server(**{failure: 2}) as server:  # the 2nd request fails, its retry (the 3rd) succeeds
        first, second = ask(server.url), ask(server.url)
        assert server.hits == 3
    assert first.error is None and second.error is None
    assert first.text == second.text


def test_retries_are_bounded_and_the_sample_records_an_error() -> None:
    with start_mock_server(fail_429_every=1) as server:
        completion = ask(server.url, patience=Patience(max_retries=2))
        assert server.hits == 3
    assert completion.error == "HTTP 429: Rate limit reached (injected). after 3 attempts"
    assert (completion.text, completion.truncated) == ("", False)


def test_a_bad_request_is_a_sample_error_and_not_retried(server: MockServer) -> None:
    async def go() -> Completion:
        client = ModelClient(Endpoint("oracle", server.url, "k"))
        try:
            return await client.complete([{"role": "user", "content": "no puzzle marker here"}], temperature=0.0, max_tokens=None, seed=0)
        finally:
            await client.aclose()

    completion = asyncio.run(go())
    assert completion.error is not None and completion.error.startswith("HTTP 400: behaviour oracle needs a prompt line")
    assert server.hits == 1


def test_a_wrong_key_ends_the_run_with_a_fix() -> None:
    with start_mock_server(api_key="right") as server:
        with pytest.raises(ModelError, match=r"rejected the API key of model 'oracle', a placeholder \(no key variable\) "
                                             r"\(HTTP 401: Incorrect API key provided\.\): name the variable that holds a valid key "
                                             r"\(api_key_env in its models: entry, or --api-key-env VAR\)"):
            ask(server.url, key="wrong")
        with pytest.raises(ModelError, match=r"rejected the API key of model 'oracle', read from GROQ_API_KEY \(HTTP 401: .*\): "
                                             r"set GROQ_API_KEY to a valid key"):
            ask(server.url, key="wrong", preset=PRESETS["groq"], key_env="GROQ_API_KEY")
        assert server.hits == 2  # not retried
        assert ask(server.url, key="right").error is None


@pytest.mark.parametrize(("model", "message"), [
    ("missing", r"has no model 'missing' or no chat-completions route \(HTTP 404: .*\): check the model's name against GET http"),
    ("quota", r"quota at .* is exhausted \(HTTP 429: You exceeded your current quota.*\): add credit or use another key"),
])
def test_unknown_models_and_exhausted_quota_end_the_run_without_retrying(server: MockServer, model: str, message: str) -> None:
    with pytest.raises(ModelError, match=message):
        ask(server.url, model)
    assert server.hits == 1


@pytest.mark.parametrize(("model", "error"), [
    ("malformed", "malformed response: no choices"),
    ("empty", "empty response: the message has no text content (finish_reason stop)"),
    ("not_json", "malformed response: a non-JSON body"),
])
def test_malformed_and_empty_bodies_become_sample_errors(server: MockServer, model: str, error: str) -> None:
    completion = ask(server.url, model)
    assert (completion.error, completion.text, completion.truncated) == (error, "", False)
    assert server.hits == 1


def test_a_slow_server_times_out_per_sample() -> None:
    with start_mock_server(latency_s=0.5) as server:
        completion = ask(server.url, patience=Patience(idle_timeout=0.1, max_retries=1))
        assert server.hits == 2
    assert completion.error == "no byte for 0.1 s (idle timeout) after 2 attempts"


def test_an_unreachable_server_ends_the_run() -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(ModelError, match=rf"cannot reach http://127.0.0.1:{port}/v1 for model 'oracle' .* after 2 attempts: start"):
        ask(f"http://127.0.0.1:{port}/v1", patience=Patience(max_retries=1))


def test_requests_overlap_up_to_max_connections_and_no_further() -> None:
    latency, count, slots = 0.2, 16, 8

    async def go() -> tuple[float, list[Completion]]:
        client = ModelClient(Endpoint("oracle", server.url, "k"), max_connections=slots)
        try:
            started = time.perf_counter()
            done = await asyncio.gather(*(client.complete(MESSAGES, temperature=1.0, max_tokens=None, seed=s) for s in range(count)))
            return time.perf_counter() - started, done
        finally:
            await client.aclose()

    with start_mock_server(latency_s=latency) as server:
        elapsed, completions = asyncio.run(go())
    assert all(c.error is None for c in completions)
    # At least two waves (never more than 8 at once), and far below one-by-one: the 1.2x speed bar itself is
    # measured in benchmarks/run.py, since a shared machine makes a tight timing assertion flaky.
    assert latency * count / slots <= elapsed < latency * count / 2


def test_resolve_endpoint_presets_overrides_and_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("MY_KEY", "sk-test")
    ollama, vllm, groq = PRESETS["ollama"], PRESETS["vllm"], PRESETS["groq"]
    assert resolve_endpoint("llama3", None, None, "ollama") == Endpoint("llama3", "http://localhost:11434/v1", "ollama", preset=ollama)
    assert resolve_endpoint("m", "http://10.0.0.5:8000/v1/", None, "vllm") == Endpoint("m", "http://10.0.0.5:8000/v1", "EMPTY",
                                                                                         preset=vllm)
    assert resolve_endpoint("m", "http://h:1/v1", "MY_KEY", None) == Endpoint("m", "http://h:1/v1", "sk-test", key_env="MY_KEY")
    assert resolve_endpoint("oracle", None, None, "mock").base_url == f"http://127.0.0.1:{MOCK_PORT}/v1"
    assert set(PRESETS) == {"openai", "vllm", "sglang", "ollama", "llamacpp", "lmstudio", "openrouter", "together", "deepseek",
                            "groq", "anthropic", "gemini", "mock"}
    with pytest.raises(ModelConfigError, match="environment variable OPENAI_API_KEY is not set .*--api-key-env VAR"):
        resolve_endpoint("gpt-4o-mini", None, None, None)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-real")
    openai = resolve_endpoint("gpt-4o-mini", None, None, None)
    assert openai == Endpoint("gpt-4o-mini", "https://api.openai.com/v1", "sk-real", preset=PRESETS["openai"], key_env="OPENAI_API_KEY")
    assert "sk-real" not in repr(openai) and openai.tokens_field == "max_completion_tokens"
    # a --base-url at a hosted provider's host takes its request shape (its key still comes from --api-key-env)
    hosted = resolve_endpoint("m", "https://api.groq.com/openai/v1", "MY_KEY", None)
    assert (hosted.preset, hosted.key_env, hosted.api_key) == (groq, "MY_KEY", "sk-test")
    assert resolve_endpoint("m", "http://localhost:8000/v1", None, None).preset is None  # a local port names no server
    with pytest.raises(ModelConfigError, match="environment variable UNSET_KEY is not set"):
        resolve_endpoint("m", None, "UNSET_KEY", "vllm")
    with pytest.raises(ModelConfigError, match="--preset 'lmstudios' is unknown: choose one of openai, vllm, sglang"):
        resolve_endpoint("m", None, None, "lmstudios")
    with pytest.raises(ModelConfigError, match="environment variable GROQ_API_KEY is not set"):
        resolve_endpoint("m", None, None, "groq")
    with pytest.raises(ModelConfigError, match="is not an http"):
        resolve_endpoint("m", "localhost:8000/v1", None, None)
    with pytest.raises(ModelConfigError, match="--model is empty"):
        resolve_endpoint(" ", None, None, "mock")
