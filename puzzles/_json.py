"""Strict JSON reading (duplicate keys, NaN) and canonical JSON writing; standard library only."""

from __future__ import annotations

import json
from typing import Any


class StrictJSONError(ValueError):
    """Text that is not strict JSON: a syntax error, or NaN/Infinity."""


def _reject_constant(name: str) -> Any:
    raise StrictJSONError(f"{name} is not valid JSON")


def loads_strict(text: str | bytes) -> tuple[Any, list[str]]:
    """Parse JSON, returning the value and a JSON Pointer (RFC 6901) to every repeated object key.

    json.loads silently keeps the last of repeated keys; an answer that says two things must fail.

    Raises:
        StrictJSONError: the text is not JSON, or holds NaN/Infinity.
    """
    repeated: list[tuple[dict[str, Any], str]] = []  # keeps each object alive, so ids stay unique

    def pairs_hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        obj: dict[str, Any] = {}
        for key, value in pairs:
            if key in obj:
                repeated.append((obj, key))
            obj[key] = value
        return obj

    try:
        value = json.loads(text, object_pairs_hook=pairs_hook, parse_constant=_reject_constant)
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as exc:
        raise StrictJSONError(str(exc)) from exc
    if not repeated:
        return value, []
    pointers = _object_pointers(value)
    return value, [f"{pointers.get(id(obj), '(overwritten)')}/{_escape(key)}" for obj, key in repeated]


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def _object_pointers(value: Any) -> dict[int, str]:
    """JSON Pointer of every object inside `value`, by id."""
    pointers: dict[int, str] = {}
    stack: list[tuple[Any, str]] = [(value, "")]
    while stack:
        item, pointer = stack.pop()
        if isinstance(item, dict):
            pointers[id(item)] = pointer
            stack.extend((child, f"{pointer}/{_escape(key)}") for key, child in item.items())
        elif isinstance(item, list):
            stack.extend((child, f"{pointer}/{index}") for index, child in enumerate(item))
    return pointers


def dumps_canonical(value: Any) -> str:
    """Compact JSON with sorted keys: the same bytes in every process, used for ids and hashes."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
