"""What every mode's prompts share: the Jinja2 environment over `templates/`, and JSON laid out for reading.

Rendering is deterministic (same bytes in every process), so a prompt's text can key stored responses.
Imports `puzzles`, `jinja2` and codebench's errors and types only.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import jinja2

from puzzles import Puzzle

from ..errors import InputError
from ..types import Limits

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"
EXAMPLE_CHARS = 1500  # an example answer longer than this shows only the start of its trajectory
JSON_WIDTH = 100  # JSON keeps a value on one line when it fits this width
KIB, MIB = 1 << 10, 1 << 20


def template(mode: str, name: str) -> jinja2.Template:
    """`templates/<mode>/<name>.md.j2`.

    Raises:
        InputError: the templates folder or this template is missing (the message says where).
    """
    if not (TEMPLATES / mode).is_dir():
        raise InputError(f"prompt templates not found at {TEMPLATES / mode}; run codebench from a source checkout "
                         "(pip install -e .) so the repository's templates/ folder sits next to the codebench package")
    path = f"{mode}/{name}.md.j2"
    try:
        return _environment().get_template(path)
    except jinja2.TemplateNotFound:
        raise InputError(f"no {mode}-mode prompt template {name!r}: expected {TEMPLATES / path}; reinstall codebench "
                         "from a source checkout (pip install -e .)") from None


@functools.cache
def _environment() -> jinja2.Environment:
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


def limits_context(limits: Limits) -> dict[str, str]:
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
