"""What each stored field must be, checked as the store reads it: the one boundary between a run directory (handed
over by anyone, so maybe hostile) and every reader of it.

A run directory is shared: a report, the HTML page, `compare` or a resume may read one that another person, another
tool or a hostile hand wrote. So nothing past the store trusts a field's type: each column has a check (`FIELDS`,
by column name), JSON columns are parsed with a bounded depth, finite numbers and the shape codebench writes, and a
field that is not what codebench writes raises `Damaged`, which the store turns into one `error:` line naming the
run, the table, the row and the column. Text shown to a reader is made `harmless` by `shown`, which the store applies
to everything its report readers return: once, where the data enters, so no format (table, markdown, CSV, JSON, the
HTML page, the figures, compare and its error lines) can forget it.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Callable
from enum import Enum
from typing import Any

from ..types import ReplySource, Status, harmless

MAX_DEPTH = 64  # JSON codebench writes nests a handful of levels; a deeper value only exhausts its readers
MAX_COUNT = 2**63  # SQLite's integers; a token or step count beyond is not a count
STATUSES = frozenset(str(status) for status in Status)
REPLY_SOURCES = frozenset(str(source) for source in ReplySource)
Check = Callable[[Any], Any]
Shape = Check | dict[str, Any] | list[Any]


class Damaged(ValueError):
    """A stored value is not what codebench writes; the message says what it is instead."""


def _kind(value: Any) -> str:
    """How a wrong value is named in a message, without showing it (it may be anything, of any size)."""
    if isinstance(value, bytes):
        return "a blob"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    return {str: "text", list: "a list", dict: "an object"}.get(type(value), type(value).__name__)


def text(value: Any) -> str:
    if not isinstance(value, str):
        raise Damaged(f"is {_kind(value)}, not text")
    return value


def integer(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise Damaged(f"is {_kind(value)}, not an integer")
    return value


def count(value: Any) -> int:
    """A count or an index: an integer from 0."""
    if not 0 <= integer(value) < MAX_COUNT:
        raise Damaged(f"is {value}, not a count")
    return value


def number(value: Any) -> float:
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise Damaged(f"is {_kind(value)}, not a number")
    if not _finite(value):
        raise Damaged("is not a finite number")
    return float(value)


def _finite(value: int | float) -> bool:
    return math.isfinite(value) if isinstance(value, float) else abs(value) < 2**1023


def within(limit: float, check: Check) -> Check:
    """`check`, and no further from 0 than `limit`: a level or a complexity beyond any a puzzle has cannot be drawn
    (an axis from -1e308 to 1e308 has no ticks) and is no level or complexity."""
    def checked(value: Any) -> Any:
        found = check(value)
        if abs(found) > limit:
            raise Damaged(f"is {value}, beyond ±{limit:g}")
        return found
    return checked


def flag(value: Any) -> bool:
    """A yes/no: JSON's booleans, or SQLite's 0 and 1."""
    if value not in (0, 1) or isinstance(value, float):
        raise Damaged(f"is {_kind(value)}, not a yes/no")
    return bool(value)


def status(value: Any) -> str:
    if text(value) not in STATUSES:
        raise Damaged(f"is not a status (one of {', '.join(sorted(STATUSES))})")
    return value


def reply_source(value: Any) -> str:
    if text(value) not in REPLY_SOURCES:
        raise Damaged(f"is not where a reply came from (one of {', '.join(sorted(REPLY_SOURCES))})")
    return value


def anything(value: Any) -> Any:
    return value


def maybe(check: Shape) -> Check:
    """`check`, or null."""
    return lambda value: None if value is None else conform(value, check)


def mapping(check: Shape) -> Check:
    """An object whose every value passes `check` (its keys are text: JSON's)."""
    def checked(value: Any) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise Damaged(f"is {_kind(value)}, not an object")
        return {key: conform(item, check) for key, item in value.items()}
    return checked


def parsed(shape: Shape) -> Check:
    """JSON text of `shape`."""
    def checked(value: Any) -> Any:
        try:
            found = json.loads(text(value))
        except RecursionError:
            raise Damaged(f"is JSON nested deeper than {MAX_DEPTH} levels") from None
        except ValueError as exc:
            raise Damaged(f"is not JSON ({exc})") from None
        _bounded(found)
        return conform(found, shape)
    return checked


def _bounded(value: Any) -> None:
    """No deeper than MAX_DEPTH, every number finite (Python's json reads NaN, Infinity and 1e999): walked without
    recursion, so any value parsed can be checked."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise Damaged(f"is JSON nested deeper than {MAX_DEPTH} levels")
        if isinstance(item, dict):
            stack.extend((each, depth + 1) for each in item.values())
        elif isinstance(item, list):
            stack.extend((each, depth + 1) for each in item)
        elif isinstance(item, int | float) and not _finite(item):
            raise Damaged("holds a number that is not finite")


def conform(value: Any, shape: Shape) -> Any:
    """`value` checked against `shape`: a check, a list `[item shape]`, or an object `{key: shape}` whose keys ending in
    "?" may be missing (the others must be there; keys not named are kept unchecked). Returns the checked value.

    Raises:
        Damaged: where it differs, named by its path.
    """
    if isinstance(shape, list):
        if not isinstance(value, list):
            raise Damaged(f"is {_kind(value)}, not a list")
        return [_at(f"[{index}]", item, shape[0]) for index, item in enumerate(value)]
    if isinstance(shape, dict):
        if not isinstance(value, dict):
            raise Damaged(f"is {_kind(value)}, not an object")
        found = dict(value)
        for key, inner in shape.items():
            name = key.rstrip("?")
            if name in value:
                found[name] = _at(f".{name}", value[name], inner)
            elif not key.endswith("?"):
                raise Damaged(f"lacks {name!r}")
        return found
    return shape(value)


def _at(step: str, value: Any, shape: Shape) -> Any:
    try:
        return conform(value, shape)
    except Damaged as exc:
        message = str(exc)
        raise Damaged(f"{step}{'' if message.startswith(('.', '[')) else ' '}{message}") from None


def shown(value: Any) -> Any:
    """`value` with every piece of text in it `harmless`, through dataclasses, tuples, lists and objects (enums and
    numbers as they are): what the store hands to whatever shows it."""
    if isinstance(value, Enum):
        return value
    if isinstance(value, str):
        return harmless(value)
    if isinstance(value, tuple | list):
        return type(value)(shown(item) for item in value)
    if isinstance(value, dict):
        return {shown(key): shown(item) for key, item in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return type(value)(**{f.name: shown(getattr(value, f.name)) for f in dataclasses.fields(value)})
    return value


USAGE = {"model": text, "mode": text, "puzzle": text, "prompt_tokens": count, "completion_tokens": count,
         "reasoning_tokens": count, "requests?": count, "uncounted?": count,
         "reply_source?": reply_source}
REPLY = {"text?": maybe(text), "error?": maybe(text), "prompt_tokens?": maybe(count), "completion_tokens?": maybe(count),
         "reasoning_tokens?": maybe(count)}
KEPT = {"completion_tokens?": maybe(count), "turns?": maybe([{"replies": [REPLY]}]), "stdout?": maybe(text),
        "stderr?": maybe(text)}
MOVE = {"player": count, "move?": anything, "move_head?": text, "move_chars?": count, "move_sha256?": text, "ok?": flag,
        "issue?": maybe({"code?": maybe(text), "message?": maybe(text)}), "status?": text, "detail?": maybe(text),
        "cpu_s?": maybe(number), "wall_s?": maybe(number)}
RECORD = {"id?": maybe(text), "outcome": {"scores": [number], "results": maybe([text])}, "statuses": [status], "seats": [text],
          "details?": [text], "kept": [KEPT], "moves": [MOVE], "usage?": [maybe(USAGE)], "higher_is_better?": flag,
          "reference?": maybe(number), "entries?": [{"sample": count}]}  # entries: who sat where (the report reads the sample)
ISSUE = {"code": text, "message?": maybe(text), "step?": maybe(integer)}
INSTANCE_META = {"version?": maybe(integer), "min_solution_length?": anything, "complexity?": anything}
SAMPLING = {"temperature": number, "max_tokens": maybe(count), "seed": integer}
RUN = {"base_urls?": mapping(text), "base_url?": text, "limits": mapping(anything), "alike?": mapping([text])}

FIELDS: dict[str, Check] = {  # by column name: the same name means the same thing in every table
    "key": text, "value": parsed(anything), "id": text, "position": integer, "model": text, "base_url": text, "mode": text,
    "puzzle": text, "game": text, "instance_id": maybe(text), "sample": count, "level": within(10**6, integer), "seed": integer,
    "lambda": maybe(within(1e15, number)), "instance": text, "meta": parsed(INSTANCE_META), "prompt": text, "params": parsed(SAMPLING),
    "response": maybe(text), "finish_reason": maybe(text), "truncated": maybe(flag), "prompt_tokens": maybe(count),
    "completion_tokens": maybe(count), "reasoning_tokens": maybe(count), "latency_s": maybe(number),
    "server_model": maybe(text), "error": maybe(text), "program_key": maybe(text), "read_status": maybe(status),
    "read_detail": maybe(text), "hedged": flag, "format_retries": count, "reasoning": maybe(text), "retried_replies": maybe(parsed([text])),
    "reply_sources": maybe(parsed([USAGE])),
    "source": maybe(text), "status": status, "detail": text, "issues": parsed([ISSUE]), "cpu_s": maybe(number),
    "wall_s": maybe(number), "peak_mib": maybe(number), "stdout": maybe(text), "stderr": maybe(text),
    "first_illegal_step": maybe(count), "steps_applied": maybe(count), "players": parsed([text]), "record": parsed(RECORD),
    "void": flag, "attempts": count, "created": number, "keys": parsed([text]), "read": flag,
    "step": count, "complexity": within(10**6, integer), "sample_key": text,
}
