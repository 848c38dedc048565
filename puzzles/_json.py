"""Strict JSON reading (duplicate keys, NaN) and canonical JSON writing; standard library only."""

from __future__ import annotations

import json
import math
import sys
from typing import Any


class StrictJSONError(ValueError):
    """Text that is not strict JSON: a syntax error, NaN/Infinity, or a number or nesting beyond this parser."""


def _reject_constant(name: str) -> Any:
    raise StrictJSONError(f"{name} is not valid JSON")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):  # 1e400: valid syntax, but it can only be read as Infinity, which JSON has not
        shown = text if len(text) <= 40 else text[:39] + "…"
        raise StrictJSONError(f"the number {shown} is out of range for a double")
    return value


def _bounded_int(text: str) -> int:
    digits = len(text.lstrip("-"))
    limit = sys.get_int_max_str_digits()
    if limit and digits > limit:
        raise StrictJSONError(f"an integer of {digits} digits is longer than this parser reads ({limit} digits)")
    return int(text)


def loads_strict(text: str | bytes) -> tuple[Any, list[str]]:
    """Parse JSON, returning the value and a JSON Pointer (RFC 6901) to every repeated object key.

    json.loads silently keeps the last of repeated keys; an answer that says two things must fail.
    Numbers must be representable (RFC 8259 §9 lets a parser limit them): an integer longer than
    Python's int-to-string limit (sys.get_int_max_str_digits, 4300 by default) and a float that
    overflows to infinity (1e400) are refused like the NaN and Infinity tokens. Nesting deeper than
    the interpreter's recursion limit is refused too, as is any text that is not str or bytes, or
    bytes that are not UTF-8/16/32.

    Raises:
        StrictJSONError: the text is not JSON, or holds NaN/Infinity or such numbers or nesting.
    """
    if not isinstance(text, (str, bytes, bytearray)):
        raise StrictJSONError(f"JSON text must be str or bytes, not {type(text).__name__}")
    repeated: list[tuple[dict[str, Any], str]] = []  # keeps each object alive, so ids stay unique

    def pairs_hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        obj: dict[str, Any] = {}
        for key, value in pairs:
            if key in obj:
                repeated.append((obj, key))
            obj[key] = value
        return obj

    def parse(parse_int: Any) -> Any:
        try:
            return json.loads(
                text, object_pairs_hook=pairs_hook, parse_constant=_reject_constant, parse_float=_finite_float, parse_int=parse_int
            )
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise StrictJSONError(str(exc)) from exc
        except RecursionError as exc:
            raise StrictJSONError("the text nests arrays and objects deeper than this parser reads") from exc

    try:
        value = parse(None)  # the C fast path for integers
    except StrictJSONError:
        raise
    except ValueError:  # an integer past the int-to-string limit: parse again to say which
        repeated.clear()
        value = parse(_bounded_int)
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
