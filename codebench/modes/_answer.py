"""Reading an instruction-mode reply: the last well-formed answer in it, whatever reasoning surrounds it.

Tolerant of the text around the answer (prose, reasoning, several code blocks), strict about the answer itself:
this only finds the JSON text; the puzzle's validator then judges it, so duplicate keys or a wrong shape are rule
violations, never "nothing parseable". Imports the standard library only.
"""

from __future__ import annotations

import json
import re

FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n(.*?)```", re.DOTALL)
MAX_BARE_STARTS = 64  # bare objects are looked for from this many last "{" of the reply: a bounded search
_DECODER = json.JSONDecoder()


def last_answer(reply: str) -> str | None:
    """The JSON text of the answer: the last fenced block (```json first, then any fence) whose content is JSON,
    else the last complete JSON object in the bare text; None when the reply holds none."""
    fenced = [(language.lower(), body.strip()) for language, body in FENCE.findall(reply)]
    for wanted in (lambda language: language == "json", lambda language: True):
        for language, body in reversed(fenced):
            if wanted(language) and _is_json(body):
                return body
    return _last_bare_object(reply)


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except (ValueError, RecursionError):  # RecursionError: nesting deeper than the parser goes
        return False
    return True


def _last_bare_object(reply: str) -> str | None:
    """The complete object that ends last in the text (the outermost of those that end there)."""
    starts = [match.start() for match in re.finditer(r"\{", reply)][-MAX_BARE_STARTS:]
    best: tuple[int, int] | None = None  # (end, -start): later end first, then the earlier (outer) start
    for start in starts:
        try:
            value, end = _DECODER.raw_decode(reply, start)
        except (ValueError, RecursionError):
            continue
        if isinstance(value, dict) and (best is None or (end, -start) > best):
            best = (end, -start)
    return None if best is None else reply[-best[1]:best[0]]
