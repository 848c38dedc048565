"""Content keys: what identifies a sample, a program and an execution, in any process and on any machine.

Same inputs, same key, so a re-run finds finished work and changed inputs get new keys. The key formats
are part of the stored data: changing one orphans every stored result. Imports the standard library only.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import asdict
from pathlib import Path
from typing import Any

from .types import Limits, Sampling


def content_key(*parts: Any) -> str:
    """sha256 of the canonical JSON of `parts`."""
    return hashlib.sha256(json.dumps(parts, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def sample_key(model: str, base_url: str, prompt_text: str, sampling: Sampling, sample: int, *, served: str | None = None,
               request: dict[str, Any] | None = None) -> str:
    """Same model, endpoint, prompt, sampling parameters, index and extra request fields: the same request.

    `model` is the run's label for the model; `served`, the name sent to the server, counts only where it differs,
    and the request fields only when there are some, so a plain run's keys are those of earlier versions."""
    extra = {**({"served": served} if served not in (None, model) else {}), **({"request": request} if request else {})}
    return content_key("sample", model, base_url, prompt_text, asdict(sampling), sample, *([extra] if extra else []))


def folder_key(folder: Path) -> str:
    """The content of a folder of templates (every `*.j2` file under it, by its path inside): a game's replies depend on
    the templates its prompts are rendered from, which the match's key holds by this."""
    files = sorted((path.relative_to(folder).as_posix(), hashlib.sha256(path.read_bytes()).hexdigest())
                   for path in folder.rglob("*.j2") if path.is_file())
    return content_key("templates", files)


def request_key(conversation: str, messages: list[dict[str, Any]], seed: int) -> str:
    """One request of a conversation, as sent: `conversation` is who asks (a sample's key, `sample_key`; a game seat's,
    its entrant's identity: model, endpoint, served name, request fields, sampling, sample index), `messages` the whole
    conversation so far (a format retry and a game turn carry the replies before them), `seed` its own seed (a game turn's
    moves on). The same key is the same request: what the response cache and a batch's custom_id are keyed by."""
    return content_key("request", conversation, messages, seed)


def first_of_each(items: Iterable[tuple[str, str]]) -> tuple[list[str], dict[str, tuple[str, ...]]]:
    """(id, content) pairs → the ids of the first item of each content, in order, and for each kept id the ids of the
    later items with the same content: one instance is planned and counted once, however many seeds drew it."""
    first: dict[str, str] = {}
    alike: dict[str, list[str]] = {}
    for item_id, content in items:
        kept = first.setdefault(content, item_id)
        if kept != item_id:
            alike.setdefault(kept, []).append(item_id)
    return list(first.values()), {kept: tuple(ids) for kept, ids in alike.items()}


def secret_fingerprint(secret: str) -> str:
    """What a report may show of a games' secret, so two runs can be seen to share one: its hash's first 12 digits
    ("none" for games played unsalted)."""
    return hashlib.sha256(secret.encode()).hexdigest()[:12] if secret else "none"


def program_key(source: str) -> str:
    return content_key("program", source)


def execution_key(program: str, instance_id: str, instance_meta: Mapping[str, Any], limits: Limits) -> str:
    """Same program, instance, puzzle version (the instance's `meta`, as its generator made it) and limits: the same
    execution, whichever sample asked for it. The one place the key is made: the modes store under it, the store's
    readers find an execution by it."""
    return content_key("execution", program, instance_id, instance_meta.get("version"), _fields(limits))


@functools.cache
def _fields(limits: Limits) -> dict[str, Any]:  # asdict is slow, and one run has one Limits
    return asdict(limits)
