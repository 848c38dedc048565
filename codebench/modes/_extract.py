"""Extraction: the program inside a model's reply, found by reading the text and compile() alone (nothing runs).

Where the code is looked for, in order, first in the visible reply and then, only if that holds none,
in its reasoning (`<think>…</think>`):

1. the whole reply is a JSON object with a string "code" field;
2. the last fenced block (``` or ~~~, any tag but json; a fence never closed runs to the end) that
   defines `def <entry>(` (or, for a game's strategy, `class <entry>`);
3. a fenced ```json block (or an untagged one) holding an object with a "code" field;
4. the largest Python-looking fenced block (tagged python/py, or untagged with Python statements);
5. bare code: the whole reply, if it parses as Python defining the entry, or starts like a program
   and contains `def <entry>(` (or `class <entry>`).

Imports the standard library and the shared types only.
"""

from __future__ import annotations

import ast
import json
import re
import textwrap
import warnings
from dataclasses import dataclass

from ..types import Status

THINK_OPEN = re.compile(r"<(think|thinking)>", re.IGNORECASE)
THINK_CLOSE = re.compile(r"</(think|thinking)>", re.IGNORECASE)
# A fence line; possessive, so a line of backticks or spaces is matched or refused in one pass (a backtracking
# `[ \t]*([^\n`]*)` tried every split of a long line of spaces before a stray backtick: quadratic).
FENCE = re.compile(r"^[ \t]*+(`{3,}+|~{3,}+)([^\n`]*+)$", re.MULTILINE)
PYTHON_TAGS = re.compile(r"(python|py|python3|py3|ipython|python3\.\d+)$")
TAG = re.compile(r"[A-Za-z0-9_.+-]*")
CODE_LINE = re.compile(r"^[ \t]*(def |class |import |from [\w.]+ import |async def |@\w)", re.MULTILINE)
LANGUAGE_ARTEFACT = re.compile(r"\A[ \t]*(python3?|py)[ \t]*\n", re.IGNORECASE)
DETAIL_CHARS = 200


@dataclass(frozen=True)
class Extraction:
    """The extracted program (`source`, None unless found), its status and how it was found or why not."""

    status: Status | None  # None: a program that compiles; else no_code or syntax_error
    source: str | None
    detail: str


@dataclass(frozen=True)
class _Block:
    tag: str
    body: str
    closed: bool
    index: int  # 1-based position among the reply's fenced blocks


def extract_program(text: str, entry: str = "solve") -> Extraction:
    """The program in a model reply: status None with the source, no_code, or syntax_error (compile failed)."""
    if not isinstance(text, str) or not text.strip():
        return Extraction(Status.NO_CODE, None, "the response is empty")
    visible, thought = _split_reasoning(text.replace("\r\n", "\n").replace("\r", "\n").lstrip("\ufeff"))
    found = _find(visible, entry)
    if found is None and thought.strip():
        found = _find(thought, entry)
        if found is not None:
            found = (found[0], f"{found[1]}, inside the reasoning (<think>) as nothing else held code")
    if found is None:
        return Extraction(Status.NO_CODE, None, _why_none(visible, thought))
    source, where = found
    source = _tidy(source)
    if not source.strip():
        return Extraction(Status.NO_CODE, None, f"{where} is empty")
    problem = _compile_problem(source)
    if problem is not None:
        return Extraction(Status.SYNTAX_ERROR, source, f"{problem} ({where})")
    return Extraction(None, source, where)


def _split_reasoning(text: str) -> tuple[str, str]:
    """(visible text, reasoning text). A closing tag with no opening one ends reasoning that began the reply
    (some servers put <think> in the prompt); an opening tag never closed makes the rest reasoning."""
    visible: list[str] = []
    thought: list[str] = []
    position = 0
    first_open, first_close = THINK_OPEN.search(text), THINK_CLOSE.search(text)
    if first_close is not None and (first_open is None or first_close.start() < first_open.start()):
        thought.append(text[: first_close.start()])
        position = first_close.end()
    while (opening := THINK_OPEN.search(text, position)) is not None:
        visible.append(text[position : opening.start()])
        closing = THINK_CLOSE.search(text, opening.end())
        if closing is None:
            thought.append(text[opening.end() :])
            return "".join(visible), "\n".join(thought)
        thought.append(text[opening.end() : closing.start()])
        position = closing.end()
    visible.append(text[position:])
    return "".join(visible), "\n".join(thought)


def _blocks(text: str) -> list[_Block]:
    """Fenced blocks: an opening fence line, then lines up to a fence of the same character at least as long."""
    blocks: list[_Block] = []
    position = 0
    while (opening := FENCE.search(text, position)) is not None:
        fence, info = opening.group(1), opening.group(2).strip()
        start = opening.end() + 1
        closing = next((m for m in FENCE.finditer(text, start) if m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence)
                        and not m.group(2).strip()), None)
        tag = TAG.match(info.strip("{}. ")).group(0).lower()  # type: ignore[union-attr]  (the pattern matches "")
        if closing is None:  # truncated reply: the rest, less a closing fence glued to the last line
            body = text[start:].rstrip()
            blocks.append(_Block(tag, body[: -len(fence)] if body.endswith(fence) else body, False, len(blocks) + 1))
            break
        blocks.append(_Block(tag, text[start : closing.start()], True, len(blocks) + 1))
        position = closing.end()
    return blocks


def _find(text: str, entry: str) -> tuple[str, str] | None:
    """(source, where it was found) by the rules in the module docstring, or None."""
    whole = _code_field(text.strip())
    if whole is not None:
        return whole, 'the "code" field of the JSON reply'
    blocks = _blocks(text)
    defines = re.compile(rf"^[ \t]*((async[ \t]+)?def|class)[ \t]+{re.escape(entry)}[ \t]*[(:]", re.MULTILINE)

    def described(block: _Block) -> str:
        state = "" if block.closed else ", never closed"
        return f"fenced block {block.index} of {len(blocks)} ({block.tag or 'untagged'}{state})"

    defining = [b for b in blocks if b.tag != "json" and defines.search(b.body)]
    if defining:
        return defining[-1].body, f"{described(defining[-1])}, the last to define {entry}()"
    for block in blocks:
        code = _code_field(block.body.strip()) if block.tag in ("json", "") else None
        if code is not None:
            return code, f'the "code" field of the JSON in {described(block)}'
    python = [b for b in blocks if PYTHON_TAGS.match(b.tag) or (not b.tag and CODE_LINE.search(b.body))]
    if python:
        largest = max(python, key=lambda b: len(b.body.strip()))
        return largest.body, f"{described(largest)}, the largest Python block (none defines {entry}())"
    if not blocks and _is_bare_program(text, entry, defines):
        return text, "bare code (no fence)"
    return None


def _code_field(text: str) -> str | None:
    """The "code" string of a JSON object text, with any fence inside it removed; None if there is none."""
    if not text.startswith("{"):
        return None
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    code = value.get("code") if isinstance(value, dict) else None
    if not isinstance(code, str):
        return None
    inner = _blocks(code.replace("\r\n", "\n"))
    return inner[-1].body if inner else code


def _is_bare_program(text: str, entry: str, defines: re.Pattern[str]) -> bool:
    source = LANGUAGE_ARTEFACT.sub("", text, count=1)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        first = next((line for line in source.splitlines() if line.strip()), "")
        return bool(CODE_LINE.match(first) or first.lstrip().startswith(("#", '"""', "'''"))) and bool(defines.search(source))
    return any(isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == entry for node in tree.body) or any(
        isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == entry for t in node.targets) for node in tree.body
    )


def _tidy(source: str) -> str:
    """Drop a leading language-name line left by a stripped fence, the block's common indentation and outer blank lines."""
    source = LANGUAGE_ARTEFACT.sub("", source.lstrip("\n"), count=1)
    return textwrap.dedent(source).strip("\n").rstrip() + "\n"


def _compile_problem(source: str) -> str | None:
    """Why compile() refuses the source, with the line, or None. Warnings (invalid escapes …) are not errors."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(source, "solver.py", "exec", dont_inherit=True)
    except SyntaxError as exc:  # IndentationError and TabError included
        line = (exc.text or "").strip()
        shown = f": {line[:80]!r}" if line else ""
        return f"{type(exc).__name__}: {exc.msg} at line {exc.lineno}{shown}"[:DETAIL_CHARS]
    except (ValueError, RecursionError, MemoryError) as exc:  # ValueError: NUL bytes in the source
        return f"{type(exc).__name__}: {exc}"[:DETAIL_CHARS]
    return None


def _why_none(visible: str, thought: str) -> str:
    blocks = _blocks(visible)
    if blocks:
        tags = ", ".join(sorted({b.tag or "untagged" for b in blocks}))
        return f"{len(blocks)} fenced block(s) ({tags}) but none holds Python code or a JSON \"code\" field"
    where = " (its reasoning holds none either)" if thought.strip() else ""
    return f"no fenced code block, JSON \"code\" field or bare program in the {len(visible.strip())}-character reply{where}"
