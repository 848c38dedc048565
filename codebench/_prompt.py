"""Code-mode prompts: one Jinja2 template per puzzle family in `templates/code/`, rendered to chat messages.

A code-mode prompt holds no instance: it states the rules, the fixed `solve(instance) -> answer` API,
both JSON Schemas with one small example, the sandbox limits and the output format, and the same
program is then run on every level's instances. Rendering is deterministic (same bytes in every
process), so `Prompt.text` can key stored responses. Imports `puzzles`, `jinja2`, codebench's errors and the sandbox's
`Limits` only.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2

from puzzles import Puzzle

from ._errors import CodebenchError
from .sandbox import Limits

TEMPLATES = Path(__file__).resolve().parents[1] / "templates"
CODE_MODE = "code"
ENTRY = "solve"
EXAMPLE_LEVEL, EXAMPLE_SEED = 1, 0
EXAMPLE_CHARS = 1500  # an example answer longer than this shows only the start of its trajectory
JSON_WIDTH = 100  # the example's JSON keeps a value on one line when it fits this width
KIB, MIB = 1 << 10, 1 << 20


@dataclass(frozen=True)
class Prompt:
    """The chat messages of one prompt: (role, content) pairs, system first."""

    puzzle: str
    mode: str
    messages: tuple[tuple[str, str], ...]

    def as_messages(self) -> list[dict[str, str]]:
        """The messages as the OpenAI chat API takes them."""
        return [{"role": role, "content": content} for role, content in self.messages]

    @property
    def text(self) -> str:
        """Canonical JSON of the messages: what identifies the prompt (hashed into request keys)."""
        return json.dumps(self.as_messages(), ensure_ascii=False, separators=(",", ":"))


def render_code_prompt(puzzle: Puzzle[Any], limits: Limits) -> Prompt:
    """The code-mode prompt for `puzzle` under `limits`.

    Raises:
        CodebenchError: the templates folder or the puzzle's template is missing (the message says where).
    """
    env = _environment()
    path = f"{CODE_MODE}/{puzzle.name}.md.j2"
    try:
        template = env.get_template(path)
    except jinja2.TemplateNotFound:
        raise CodebenchError(f"no code-mode prompt template for puzzle {puzzle.name!r}: expected {TEMPLATES / path}") from None
    record = puzzle.generate(EXAMPLE_LEVEL, EXAMPLE_SEED)
    answer_text, answer_note = example_answer(puzzle, puzzle.solve(record.instance))
    context = {
        "name": puzzle.name,
        "title": puzzle.title,
        "entry": ENTRY,
        "levels": {level: dict(band) for level, band in puzzle.levels.items()},
        "instance_schema": compact_json(puzzle.instance_schema),
        "answer_schema": compact_json(puzzle.answer_schema),
        "example_instance": compact_json(record.instance),
        "example_answer": answer_text,
        "example_answer_note": answer_note,
        "limits": _limits_context(limits),
    }
    system = env.get_template(f"{CODE_MODE}/_system.md.j2").render(context).strip() + "\n"
    user = template.render(context).strip() + "\n"
    return Prompt(puzzle.name, CODE_MODE, (("system", system), ("user", user)))


@functools.cache
def _environment() -> jinja2.Environment:
    if not (TEMPLATES / CODE_MODE).is_dir():
        raise CodebenchError(
            f"prompt templates not found at {TEMPLATES / CODE_MODE}; run codebench from a source checkout "
            "(pip install -e .) so the repository's templates/ folder sits next to the codebench package"
        )
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
        keep_trailing_newline=False,
    )
    env.filters["low"] = lambda band: band[0] if isinstance(band, tuple) else band
    env.filters["top"] = lambda band: band[1] if isinstance(band, tuple) else band
    return env


def _limits_context(limits: Limits) -> dict[str, str]:
    """The limits as the prompt states them (numbers without needless decimals, sizes in KiB or MiB)."""
    return {
        "cpu_s": f"{limits.cpu_s:g}",
        "wall_s": f"{limits.wall_limit_s:g}",
        "memory_mib": str(limits.memory_mib),
        "output": _size(limits.output_bytes),
        "answer": _size(limits.answer_bytes),
        "scratch": f"{limits.tmpfs_mib} MiB",
    }


def _size(count: int) -> str:
    if count % MIB == 0:
        return f"{count // MIB} MiB"
    if count % KIB == 0:
        return f"{count // KIB} KiB"
    return f"{count} bytes"


def compact_json(value: Any, indent: int = 0) -> str:
    """JSON that keeps every value fitting in JSON_WIDTH on one line and breaks the others one item per line."""
    flat = json.dumps(value, ensure_ascii=False)
    if indent + len(flat) <= JSON_WIDTH or not isinstance(value, (dict, list)) or not value:
        return flat
    pad = " " * (indent + 2)
    if isinstance(value, dict):
        items = [f"{pad}{json.dumps(key, ensure_ascii=False)}: {compact_json(item, indent + 2)}" for key, item in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
    items = [pad + compact_json(item, indent + 2) for item in value]
    return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"


def example_answer(puzzle: Puzzle[Any], answer: Any, limit: int = EXAMPLE_CHARS) -> tuple[str, str]:
    """(JSON text, note) of the example's answer; a long trajectory shows its first steps and the note says so.

    The note is empty when the whole answer is shown, which it is for every level-1 example today.
    """
    text = compact_json(answer)
    steps = answer.get(puzzle.trajectory_field) if puzzle.trajectory_field and isinstance(answer, dict) else None
    if len(text) <= limit or not isinstance(steps, list):
        return text, ""
    shown = len(steps)
    while shown > 1 and len(compact_json({**answer, puzzle.trajectory_field: steps[:shown]})) > limit:
        shown = shown * 3 // 4
    head = compact_json({**answer, puzzle.trajectory_field: steps[:shown]})
    return head, f"Only the first {shown} of the {len(steps)} entries of \"{puzzle.trajectory_field}\" are shown."
