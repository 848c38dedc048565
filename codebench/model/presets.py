"""Where a model lives: endpoint presets and the resolution of --model/--base-url/--api-key-env/--preset.

Imports only the standard library and codebench's errors (never `openai`), so configuration can be
checked, and a dry run planned, without loading the client.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from ..errors import ModelConfigError

MOCK_PORT = 8089
# preset -> (default base URL, placeholder API key). An empty placeholder means a real key is needed.
PRESETS: dict[str, tuple[str, str]] = {
    "openai": ("https://api.openai.com/v1", ""),
    "vllm": ("http://localhost:8000/v1", "EMPTY"),  # `vllm serve` default port
    "ollama": ("http://localhost:11434/v1", "ollama"),  # Ollama's OpenAI-compatible API
    "llamacpp": ("http://localhost:8080/v1", "sk-no-key-required"),  # llama.cpp `llama-server`
    "mock": (f"http://127.0.0.1:{MOCK_PORT}/v1", "codebench-mock"),  # `codebench mock-server` on its default port
}
KEY_ENV = {"openai": "OPENAI_API_KEY"}  # where a preset's real key is read when --api-key-env is not given
DEFAULT_PRESET = "openai"  # neither --base-url nor --preset: the OpenAI API, like the SDK


@dataclass(frozen=True)
class Endpoint:
    """A model and the server that answers for it, with its credentials resolved (the key never shows in repr)."""

    model: str
    base_url: str
    api_key: str = field(repr=False)
    request: dict[str, Any] = field(default_factory=dict)  # extra request-body fields (reasoning_effort, …)


def resolve_endpoint(model: str, base_url: str | None, api_key_env: str | None, preset: str | None,
                     request: dict[str, Any] | None = None) -> Endpoint:
    """The endpoint the options name: --base-url wins over the preset's URL; the key comes from --api-key-env,
    else the preset's usual variable (OPENAI_API_KEY for openai), else the preset's placeholder.

    Raises:
        ModelConfigError: unknown preset, empty model name, a URL that is not http(s), or a key variable unset.
    """
    if not model or not model.strip():
        raise ModelConfigError("--model is empty: give the model name the server serves (e.g. --model gpt-4o-mini)")
    if preset is not None and preset not in PRESETS:
        raise ModelConfigError(f"--preset {preset!r} is unknown: choose one of {', '.join(PRESETS)}")
    name = preset or (DEFAULT_PRESET if base_url is None else None)
    url = (base_url or PRESETS[name or DEFAULT_PRESET][0]).strip().rstrip("/")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ModelConfigError(f"--base-url {url!r} is not an http(s) URL: give the API root, e.g. http://localhost:8000/v1")
    variable = api_key_env or KEY_ENV.get(name or "")
    if variable:
        key = os.environ.get(variable, "").strip()
        if not key:
            hint = "" if api_key_env else ", or pass --api-key-env VAR naming the variable that holds it"
            raise ModelConfigError(f"environment variable {variable} is not set (or empty): export {variable}=<your API key>{hint}")
    else:  # a local server (or a custom URL) without a key option: any placeholder passes
        key = PRESETS[name][1] if name else "codebench"
    return Endpoint(model=model.strip(), base_url=url, api_key=key, request=dict(request or {}))
