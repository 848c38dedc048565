"""Where a model lives and how long to wait for it: endpoint presets, the resolution of
--model/--base-url/--api-key-env/--preset, and the client's timeouts and retries.

Imports only the standard library and codebench's errors (never `openai`), so configuration can be
checked, and a dry run planned, without loading the client.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from ..errors import ModelConfigError

MOCK_PORT = 8089
THINK_TAGS = "<think>"  # a preset's reasoning place: inside the content, between <think> and </think> (kept there)
MAX_TIMEOUT_S = 86_400.0  # idle timeout or deadline: past a day a typo, not a limit
MAX_RETRIES = 20


@dataclass(frozen=True)
class Preset:
    """An endpoint family: its default API root, the variable its key is read from, where its reasoning comes back
    and the request field the reply-length cap goes in."""

    name: str
    base_url: str
    key_env: str | None  # None: a local server, which checks no key (the placeholder is sent)
    reasoning: tuple[str, ...]  # the message/delta fields or THINK_TAGS, commonest first; () when none comes back
    placeholder_key: str = "codebench"
    tokens_field: str = "max_tokens"


# Sources, checked on the providers' own pages where they say it (the README's preset table repeats this):
# OpenAI keeps reasoning hidden (only usage's reasoning_tokens) and refuses max_tokens for its reasoning models.
# vLLM: `reasoning` since 0.11, `reasoning_content` before (docs.vllm.ai, reasoning outputs), with --reasoning-parser.
# SGLang: port 30000, key "EMPTY" (its quickstart), reasoning parsed out with --reasoning-parser.
# llama.cpp `llama-server`: `reasoning_content` (its default --reasoning-format); Ollama: `reasoning`.
# LM Studio: port 1234; `reasoning_content` (0.3.9, a developer setting), gpt-oss in `reasoning` (0.3.23 changelog).
# OpenRouter: `reasoning` (its reasoning-tokens guide). Together: `reasoning` (docs.together.ai, reasoning), DeepSeek-R1
# on dedicated endpoints in <think> tags. DeepSeek: `reasoning_content` (api-docs.deepseek.com, reasoning model).
# Groq: `reasoning` (gpt-oss, reasoning_format parsed), <think> in the content for qwen3 (its default format raw).
# Anthropic's and Gemini's OpenAI-compatible endpoints return no thinking text (Anthropic: "the OpenAI SDK won't
# return Claude's detailed thought process"; Gemini only with extra_body google.thinking_config.include_thoughts).
PRESETS: dict[str, Preset] = {preset.name: preset for preset in (
    Preset("openai", "https://api.openai.com/v1", "OPENAI_API_KEY", (), tokens_field="max_completion_tokens"),
    Preset("vllm", "http://localhost:8000/v1", None, ("reasoning", "reasoning_content"), "EMPTY"),  # `vllm serve`
    Preset("sglang", "http://localhost:30000/v1", None, ("reasoning_content",), "EMPTY"),  # `sglang.launch_server`
    Preset("ollama", "http://localhost:11434/v1", None, ("reasoning",), "ollama"),
    Preset("llamacpp", "http://localhost:8080/v1", None, ("reasoning_content",), "sk-no-key-required"),  # `llama-server`
    Preset("lmstudio", "http://localhost:1234/v1", None, ("reasoning_content", "reasoning"), "lm-studio"),
    Preset("openrouter", "https://openrouter.ai/api/v1", "OPENROUTER_API_KEY", ("reasoning",)),
    Preset("together", "https://api.together.ai/v1", "TOGETHER_API_KEY", ("reasoning", THINK_TAGS)),
    Preset("deepseek", "https://api.deepseek.com", "DEEPSEEK_API_KEY", ("reasoning_content",)),
    Preset("groq", "https://api.groq.com/openai/v1", "GROQ_API_KEY", ("reasoning", THINK_TAGS)),
    Preset("anthropic", "https://api.anthropic.com/v1", "ANTHROPIC_API_KEY", ()),
    Preset("gemini", "https://generativelanguage.googleapis.com/v1beta/openai", "GEMINI_API_KEY", ()),
    Preset("mock", f"http://127.0.0.1:{MOCK_PORT}/v1", None, ("reasoning_content",), "codebench-mock"),  # `codebench mock-server`
)}
DEFAULT_PRESET = "openai"  # neither --base-url nor --preset: the OpenAI API, like the SDK


@dataclass(frozen=True)
class Endpoint:
    """A model and the server that answers for it, with its credentials resolved (the key never shows in repr).

    `preset` is the family whose request shape it takes (named, or recognised by the host of --base-url; None: the
    common OpenAI-compatible shape); `key_env` the variable the key was read from, if any."""

    model: str
    base_url: str
    api_key: str = field(repr=False)
    request: dict[str, Any] = field(default_factory=dict)  # extra request-body fields (reasoning_effort, …)
    preset: Preset | None = None
    key_env: str | None = None

    @property
    def tokens_field(self) -> str:
        return self.preset.tokens_field if self.preset is not None else "max_tokens"


# 600 s of silence: OpenAI's reasoning models send nothing while they think (minutes on the hardest levels) and a busy
# local server may queue a request before its first byte; a dead server still frees its connection within 10 minutes.
# 3600 s in all: a 30-minute generation (30k tokens at ~17 tokens/s) finishes with room to spare, while a server that
# drips a byte now and then cannot hold a sample for ever. 4 retries: 5 attempts, with capped backoff.
@dataclass(frozen=True)
class Patience:
    """How long one request may take: `idle_timeout` seconds without a byte, `request_timeout` seconds in all, reply
    included (None: no deadline), and how many times a timed-out or failed attempt is retried."""

    idle_timeout: float = 600.0
    request_timeout: float | None = 3600.0
    max_retries: int = 4

    def __post_init__(self) -> None:
        deadline = self.request_timeout
        if not (0 < self.idle_timeout <= MAX_TIMEOUT_S and (deadline is None or 0 < deadline <= MAX_TIMEOUT_S)
                and 0 <= self.max_retries <= MAX_RETRIES):
            raise ValueError(f"timeouts must be in (0, {MAX_TIMEOUT_S:g}] s and max_retries in 0-{MAX_RETRIES}")


def flag(option: str) -> str:
    """An endpoint option named as its command-line flag (--model, --base-url, --api-key-env, --preset)."""
    return "--" + option.replace("_", "-")


def resolve_endpoint(model: str, base_url: str | None, api_key_env: str | None, preset: str | None,
                     request: dict[str, Any] | None = None, name: Callable[[str], str] = flag) -> Endpoint:
    """The endpoint the options name: --base-url wins over the preset's URL; the key comes from --api-key-env,
    else the preset's usual variable (OPENAI_API_KEY for openai), else the preset's placeholder. `name` says how
    the user gave each option (model, base_url, api_key_env, preset): a flag, or a config file's `models:` entry.

    Raises:
        ModelConfigError: unknown preset, empty model name, a URL that is not http(s), or a key variable unset.
    """
    if not model or not model.strip():
        raise ModelConfigError(f"{name('model')} is empty: give the model name the server serves (e.g. --model gpt-4o-mini)")
    if preset is not None and preset not in PRESETS:
        raise ModelConfigError(f"{name('preset')} {preset!r} is unknown: choose one of {', '.join(PRESETS)}")
    named = PRESETS[preset or DEFAULT_PRESET] if preset is not None or base_url is None else None
    url = (base_url or (named.base_url if named is not None else "")).strip().rstrip("/")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ModelConfigError(f"{name('base_url')} {url!r} is not an http(s) URL: give the API root, e.g. "
                               "http://localhost:8000/v1")
    variable = api_key_env or (named.key_env if named is not None else None)
    if variable:
        key = os.environ.get(variable, "").strip()
        if not key:
            given = f"{name('api_key_env')} {variable!r}: " if api_key_env else ""
            hint = "" if api_key_env else f", or name the variable that holds it: {name('api_key_env')} VAR"
            raise ModelConfigError(f"{given}environment variable {variable} is not set (or empty): export "
                                   f"{variable}=<your API key>{hint}")
    else:  # a local server (or a custom URL) without a key option: any placeholder passes
        key = named.placeholder_key if named is not None else "codebench"
    return Endpoint(model=model.strip(), base_url=url, api_key=key, request=dict(request or {}),
                    preset=named or _hosted(parts.hostname), key_env=variable)


def _hosted(host: str | None) -> Preset | None:
    """The hosted preset whose API lives on `host` (a --base-url at api.groq.com takes Groq's request shape)."""
    return next((p for p in PRESETS.values() if p.key_env is not None and urlsplit(p.base_url).hostname == host), None)
