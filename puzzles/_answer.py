"""Reading a model's reply to an instruction-mode prompt: the last well-formed answer in it, whatever reasoning
surrounds it (codebench's instruction mode and its game players read replies with this).

Tolerant of the text around the answer (prose, reasoning, several code blocks), strict about the answer itself:
this only finds the JSON text; the puzzle's validator then judges it (`Puzzle.validate_json`), so duplicate keys or a
wrong shape are rule violations, never "nothing parseable". Imports the standard library only.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

FENCE, LANGUAGE = "```", re.compile(r"[ \t]*+([A-Za-z0-9_+-]*+)")
MAX_BARE_STARTS = 64  # bare objects are looked for from this many last "{" of the reply: a bounded search
_DECODER = json.JSONDecoder()


@dataclass(frozen=True)
class ReplyAnswer:
    """The answer a reply holds: its JSON text (for `Puzzle.validate_json`), or None and why none could be read."""

    text: str | None
    why: str = ""


def read_answer(reply: str) -> ReplyAnswer:
    """The answer in `reply`: the last fenced block (```json first, then any fence) whose content is JSON, else the
    last complete JSON object in the bare text; else none, and why."""
    if not reply.strip():
        return ReplyAnswer(None, "the reply is empty")
    text = _last_answer(reply)
    if text is None:
        return ReplyAnswer(None, "the reply holds no JSON object, neither in a ``` block nor bare")
    return ReplyAnswer(text)


def _last_answer(reply: str) -> str | None:
    fenced = [(language.lower(), body.strip()) for language, body in _fenced(reply)]
    for wanted in (lambda language: language == "json", lambda language: True):
        for language, body in reversed(fenced):
            if wanted(language) and _is_json(body):
                return body
    return _last_bare_object(reply)


def _fenced(reply: str) -> list[tuple[str, str]]:
    """(language, body) of each fenced block: from a ``` to the end of its line (a language word first), then up
    to the next ```. Found with str.find, one pass over the reply: a regular expression tried at every ``` of a
    line without an end rescans that line each time (quadratic in backticks)."""
    blocks: list[tuple[str, str]] = []
    position = 0
    while (opening := reply.find(FENCE, position)) >= 0:
        line_end = reply.find("\n", opening + len(FENCE))
        closing = reply.find(FENCE, line_end + 1) if line_end >= 0 else -1
        if closing < 0:  # no block can start here, nor at any later fence
            break
        language = LANGUAGE.match(reply, opening + len(FENCE), line_end).group(1)  # type: ignore[union-attr]  (matches "")
        blocks.append((language, reply[line_end + 1 : closing]))
        position = closing + len(FENCE)
    return blocks


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except (ValueError, RecursionError):  # RecursionError: nesting deeper than the parser goes
        return False
    return True


def _last_bare_object(reply: str) -> str | None:
    """The complete object that ends last in the text (the outermost of those that end there)."""
    starts: list[int] = []
    position = len(reply)
    while len(starts) < MAX_BARE_STARTS and (position := reply.rfind("{", 0, position)) >= 0:
        starts.insert(0, position)
    best: tuple[int, int] | None = None  # (end, -start): later end first, then the earlier (outer) start
    for start in starts:
        try:
            value, end = _DECODER.raw_decode(reply, start)
        except (ValueError, RecursionError):
            continue
        if isinstance(value, dict) and (best is None or (end, -start) > best):
            best = (end, -start)
    return None if best is None else reply[-best[1]:best[0]]
