"""The prompts' templates (`templates/`, shipped in this package, and a plugin's own beside its module), their Jinja2
environment, and the instruction-mode prompt of an instance: the text codebench's instruction mode sends, byte for byte.

Rendering is deterministic (same bytes in every process), so a prompt's text can key stored responses. jinja2 is
imported on first use: listing or generating puzzles never loads it.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from ._errors import PuzzleError
from ._plugins import TEMPLATES_FOLDER, plugin_folder
from ._protocol import Puzzle, Record

if TYPE_CHECKING:
    import jinja2

TEMPLATES = Path(__file__).resolve().parent / "templates"  # in a checkout, a link to the repository's templates/
REINSTALL = "pip install --force-reinstall codebench-puzzles"
JSON_WIDTH = 100  # JSON keeps a value on one line when it fits this width
INSTRUCTION = "instruction"  # the mode whose prompts pose one instance, answered directly


def instruction_prompt(puzzle: Puzzle[Any], record: Record) -> list[dict[str, str]]:
    """The chat messages (system, then user) that pose `record` to a model, as the OpenAI chat API takes them: the
    rules, the instance drawn for reading and as JSON, and the answer's format (a final JSON object in a ```json block).

    Raises:
        PuzzleError: the templates folder or the puzzle's template is missing (a broken install).
    """
    context = {
        "mode": INSTRUCTION,
        "name": puzzle.name,
        "title": puzzle.title,
        "levels": {level: dict(band) for level, band in puzzle.levels.items()},
        "instance": record.instance,
        "instance_json": compact_json(record.instance),
        "rendering": puzzle.render(record.instance),
        "answer_schema": compact_json(puzzle.answer_schema),
    }
    return [{"role": "system", "content": template(INSTRUCTION, "_system").render(context).strip() + "\n"},
            {"role": "user", "content": template(INSTRUCTION, puzzle.name).render(context).strip() + "\n"}]


def template(mode: str, name: str) -> jinja2.Template:
    """`<mode>/<name>.md.j2`, from the first of `template_folders` that holds it.

    Raises:
        PuzzleError: the templates folder or this template is missing (the message says where, and how to reinstall).
    """
    import jinja2

    if not (TEMPLATES / mode).is_dir():
        raise PuzzleError(f"prompt templates not found at {TEMPLATES / mode}: this installation is broken; "
                          f"reinstall it ({REINSTALL})")
    path = f"{mode}/{name}.md.j2"
    try:
        return _environment().get_template(path)
    except jinja2.TemplateNotFound:
        raise PuzzleError(f"no {mode}-mode prompt template {name!r}: expected {template_folders(path)[-1] / path}; if that "
                          f"name is right, this installation is broken: reinstall it ({REINSTALL})") from None


def template_folders(path: str) -> list[Path]:
    """The folders the template `path` (`<mode>/<name>.md.j2`) is looked for in, the first holding it wins: the built-in
    templates, then, for a plugin's own name, the plugin's folder (a plugin never replaces a built-in template)."""
    own = plugin_folder(PurePosixPath(path).name.removesuffix(".md.j2"))
    return [TEMPLATES] if own is None else [TEMPLATES, own / TEMPLATES_FOLDER]


def _source(path: str) -> tuple[str, str, Callable[[], bool]] | None:
    """The text of the template `path` from the first of its folders that holds it, where it is, and whether it is
    unchanged since (what FileSystemLoader gives); None: no folder holds it."""
    import jinja2.loaders

    parts = jinja2.loaders.split_template_path(path)  # refuses ".." (TemplateNotFound)
    found = next((file for folder in template_folders(path) if (file := folder.joinpath(*parts)).is_file()), None)
    if found is None:
        return None
    mtime = found.stat().st_mtime
    return found.read_text(encoding="utf-8"), str(found), lambda: found.is_file() and found.stat().st_mtime == mtime


@functools.cache
def _environment() -> jinja2.Environment:
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.FunctionLoader(_source),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
        keep_trailing_newline=False,
    )
    env.filters["low"] = lambda band: band[0] if isinstance(band, tuple) else band
    env.filters["top"] = lambda band: band[1] if isinstance(band, tuple) else band
    return env


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
