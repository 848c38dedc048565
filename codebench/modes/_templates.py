"""What every mode's prompts share: their templates (through `puzzles`, which ships them, searched as the run's
`Prompting` says), JSON laid out for reading, the example answer and the limits as prompts state them.

Rendering is deterministic (same bytes in every process), so a prompt's text can key stored responses.
Imports `puzzles` and codebench's errors and types only.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from puzzles import Prompting, Puzzle, PuzzleError
from puzzles._prompt import compact_json
from puzzles._prompt import render as _render

from ..errors import InputError
from ..types import Limits

EXAMPLE_CHARS = 1500  # an example answer longer than this shows only the start of its trajectory
KIB, MIB = 1 << 10, 1 << 20


def render(mode: str, name: str, context: Mapping[str, Any], prompting: Prompting) -> str:
    """`templates/<mode>/<name>.md.j2` (or the prompting's own) rendered: trimmed, ending in one newline.

    Raises:
        InputError: the templates folder or this template is missing (the message says where, and how to reinstall), or
            a template fails to render (the message names its file and Jinja's error).
    """
    try:
        return _render(mode, name, context, prompting)
    except PuzzleError as exc:
        raise InputError(str(exc)) from None


def system_message(mode: str, context: Mapping[str, Any], prompting: Prompting, name: str = "_system") -> str:
    """The prompt's system message: the prompting's own text, else `<mode>/<name>.md.j2` rendered.

    Raises:
        InputError: as `render`.
    """
    try:
        return prompting.system_message(mode, context, name)
    except PuzzleError as exc:
        raise InputError(str(exc)) from None


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
