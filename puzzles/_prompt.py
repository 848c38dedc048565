"""The prompts' templates (`templates/`, shipped in this package, and a plugin's own beside its module), their Jinja2
environment, and the instruction-mode prompt of an instance: the text codebench's instruction mode sends, byte for byte.

How a prompt is posed beyond the shipped defaults is a `Prompting`: a system message replacing every prompt's, a
folder of templates searched before the shipped ones, one of PuzzlePlex's variants (`PROMPT_PRESETS`: data, a row
here and, where it words something differently, a folder of templates under `templates/presets/`), and worked
examples as earlier turns. The default `Prompting()` poses every prompt as before, byte for byte.

Rendering is deterministic (same bytes in every process), so a prompt's text can key stored responses. jinja2 is
imported on first use: listing or generating puzzles never loads it.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from ._errors import PuzzleError
from ._json import dumps_canonical
from ._plugins import TEMPLATES_FOLDER, plugin_folder
from ._protocol import Puzzle, Record

if TYPE_CHECKING:
    import jinja2

TEMPLATES = Path(__file__).resolve().parent / "templates"  # in a checkout, a link to the repository's templates/
PRESET_TEMPLATES = TEMPLATES / "presets"  # a preset's own templates, in a folder named after it
REINSTALL = "pip install --force-reinstall codebench-puzzles"
JSON_WIDTH = 100  # JSON keeps a value on one line when it fits this width
INSTRUCTION = "instruction"  # the mode whose prompts pose one instance, answered directly
CODE = "code"  # the mode whose prompts ask for a program
EXAMPLES = {CODE: 1, INSTRUCTION: 0}  # worked examples a mode's prompt shows by default
EXAMPLE_SEED = 1 << 32  # worked examples' seeds start here, above every seed a run plans (a base seed < 2^31, + instances)
EXAMPLE_TRIES = 8  # seeds tried per level beyond the examples wanted, before the next level is tried
MAX_SHOTS = 8  # worked examples as earlier turns, at most


@dataclass(frozen=True)
class PromptPreset:
    """One of PuzzlePlex's prompting variants, as data: how many worked examples each mode's prompts show (a mode it does
    not name keeps `EXAMPLES`), and the templates of its folder `templates/presets/<name>/`, if it has one, which
    override the shipped ones."""

    help: str
    examples: Mapping[str, int] = field(default_factory=dict)


PROMPT_PRESETS = {  # what each says and where, in full: the README's "Prompt control"
    "one-shot": PromptPreset("a worked example in instruction mode's prompts, as code mode's show one", {INSTRUCTION: 1}),
    "simplified": PromptPreset("code mode's prompts without their worked example", {CODE: 0}),
    "tree-of-thought": PromptPreset("every prompt asks to explore several lines of reasoning, judge them and follow the best"),
}


def preset_modes(name: str) -> tuple[str, ...]:
    """The modes whose prompts the preset `name` changes: those whose examples it sets, every mode if it has templates."""
    preset = PROMPT_PRESETS[name]
    return tuple(mode for mode in EXAMPLES if mode in preset.examples or (PRESET_TEMPLATES / name).is_dir())


@dataclass(frozen=True)
class Prompting:
    """How prompts are posed beyond the shipped defaults (the default changes nothing).

    `system` replaces the system message of every prompt; `templates` is a folder laid out as `templates/`
    (`<mode>/<name>.md.j2`, `rules/`, `games/`, `parts/`) whose templates override the shipped ones, includes and
    extends too; `preset` names one of `PROMPT_PRESETS`; `shots` worked examples precede an instruction-mode question
    as earlier user and assistant turns.
    """

    system: str | None = None
    templates: Path | None = None
    preset: str | None = None
    shots: int = 0

    def __post_init__(self) -> None:
        if self.preset is not None and self.preset not in PROMPT_PRESETS:
            raise PuzzleError(f"prompt preset {self.preset!r}: choose one of {', '.join(PROMPT_PRESETS)}")
        if not 0 <= self.shots <= MAX_SHOTS:
            raise PuzzleError(f"shots {self.shots}: give 0 to {MAX_SHOTS}")
        if self.templates is not None and not self.templates.is_dir():
            raise PuzzleError(f"templates {self.templates}: not a folder")

    @property
    def folders(self) -> tuple[Path, ...]:
        """The folders searched before the shipped templates, first match wins: the user's, then the preset's."""
        preset = PRESET_TEMPLATES / self.preset if self.preset is not None else None
        return tuple(folder for folder in (self.templates, preset) if folder is not None and folder.is_dir())  # a preset may have none

    def examples(self, mode: str) -> int:
        """How many worked examples a prompt of `mode` shows in its text."""
        preset = PROMPT_PRESETS[self.preset].examples if self.preset is not None else {}
        return preset.get(mode, EXAMPLES[mode])

    def system_message(self, mode: str, context: Mapping[str, Any], name: str = "_system") -> str:
        """The system message: the given text (trimmed, ending in one newline, as rendered ones do), else the template
        `<mode>/<name>.md.j2` rendered."""
        return self.system.strip() + "\n" if self.system is not None else render(mode, name, context, self)


def instruction_prompt(puzzle: Puzzle[Any], record: Record, prompting: Prompting | None = None) -> list[dict[str, str]]:
    """The chat messages that pose `record` to a model, as the OpenAI chat API takes them: the system message, the worked
    examples (`prompting.shots`) as earlier user and assistant turns, then the question: the rules, the instance drawn for
    reading and as JSON, and the answer's format (a final JSON object in a ```json block).

    Raises:
        PuzzleError: the templates folder or the puzzle's template is missing (a broken install), or a template fails to
            render (the message names its file and Jinja's error).
    """
    prompting = prompting or Prompting()
    inline = prompting.examples(INSTRUCTION)
    examples = worked_examples(puzzle, record, inline + prompting.shots) if inline + prompting.shots else []
    shown = [_example_context(puzzle, *example) for example in examples[:inline]]
    question = _instruction_context(puzzle, record, shown)
    turns = []
    for shot, answer in examples[inline:]:
        turns += [{"role": "user", "content": render(INSTRUCTION, puzzle.name, _instruction_context(puzzle, shot, shown), prompting)},
                  {"role": "assistant", "content": render(INSTRUCTION, "_answer", _example_context(puzzle, shot, answer), prompting)}]
    return [{"role": "system", "content": prompting.system_message(INSTRUCTION, question)}, *turns,
            {"role": "user", "content": render(INSTRUCTION, puzzle.name, question, prompting)}]


def _instruction_context(puzzle: Puzzle[Any], record: Record, examples: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "mode": INSTRUCTION,
        "name": puzzle.name,
        "title": puzzle.title,
        "levels": {level: dict(band) for level, band in puzzle.levels.items()},
        "instance": record.instance,
        "instance_json": compact_json(record.instance),
        "rendering": puzzle.render(record.instance),
        "answer_schema": compact_json(puzzle.answer_schema),
        "examples": examples,
    }


def _example_context(puzzle: Puzzle[Any], record: Record, answer: Any) -> dict[str, Any]:
    """A worked example as templates show it: the instance (drawn and as JSON) and its answer as JSON."""
    return {"level": record.level, "instance": record.instance, "instance_json": compact_json(record.instance),
            "rendering": puzzle.render(record.instance), "answer_json": compact_json(answer)}


def worked_examples(puzzle: Puzzle[Any], asked: Record, count: int) -> list[tuple[Record, Any]]:
    """`count` instances with their reference answers to show beside the question `asked`: level 1's, from seeds no run
    plans, the next levels' where level 1 holds fewer distinct instances (hanoi's and checkers' hold one); never the
    instance asked, and the same for every question but the one whose instance it would be. Drawn with the asked
    instance's presentation parameters, so they look alike."""
    shown = {key: asked.params[key] for key in sorted(puzzle.presentation_params) if key in asked.params}
    asked_text = dumps_canonical(asked.instance)
    return [(record, answer) for record, answer in _examples(puzzle, count + 1, dumps_canonical(shown))
            if dumps_canonical(record.instance) != asked_text][:count]


@functools.lru_cache(maxsize=256)
def _examples(puzzle: Puzzle[Any], count: int, shown: str) -> tuple[tuple[Record, Any], ...]:
    """The first `count` distinct instances from level 1 up (each level's seeds from EXAMPLE_SEED on), with answers."""
    found: dict[str, Record] = {}
    for level in sorted(puzzle.levels):
        for seed in range(EXAMPLE_SEED, EXAMPLE_SEED + count + EXAMPLE_TRIES):
            if len(found) == count:
                break
            record = puzzle.generate(level, seed, params=json.loads(shown) or None)
            found.setdefault(dumps_canonical(record.instance), record)
    return tuple((record, puzzle.solve(record.instance)) for record in found.values())


def search_folders(prompting: Prompting) -> tuple[Path, ...]:
    """Where a template is looked for, first match wins: the prompting's folders (the user's, a preset's), then the
    shipped ones."""
    return (*prompting.folders, TEMPLATES)


def template(mode: str, name: str, prompting: Prompting | None = None) -> jinja2.Template:
    """`templates/<mode>/<name>.md.j2`, or the prompting's own (`search_folders`).

    Raises:
        PuzzleError: the templates folder or this template is missing (the message says where, and how to reinstall).
    """
    import jinja2

    if not (TEMPLATES / mode).is_dir():
        raise PuzzleError(f"prompt templates not found at {TEMPLATES / mode}: this installation is broken; "
                          f"reinstall it ({REINSTALL})")
    path, folders = f"{mode}/{name}.md.j2", search_folders(prompting or Prompting())
    try:
        return _environment(folders).get_template(path)
    except jinja2.TemplateNotFound:
        raise PuzzleError(f"no {mode}-mode prompt template {name!r}: expected {template_folders(path, folders)[-1] / path}; "
                          f"if that name is right, this installation is broken: reinstall it ({REINSTALL})") from None
    except jinja2.TemplateSyntaxError as exc:
        raise PuzzleError(f"prompt template {exc.filename or path}:{exc.lineno}: {exc.message}") from None


def render(mode: str, name: str, context: Mapping[str, Any], prompting: Prompting | None = None) -> str:
    """The template `<mode>/<name>.md.j2` rendered with `context`: trimmed, ending in one newline.

    Raises:
        PuzzleError: the template is missing, or it (or one it includes) fails to render: the message names the file
            and line, and Jinja's error.
    """
    import jinja2

    found = template(mode, name, prompting)
    try:
        return found.render(context).strip() + "\n"
    except jinja2.TemplateSyntaxError as exc:  # in a template it includes
        raise PuzzleError(f"prompt template {exc.filename or exc.name}:{exc.lineno}: {exc.message}") from None
    except Exception as exc:  # a template is code: a user's may fail in any way while it renders
        raise PuzzleError(f"prompt template {_failed_at(exc, found.filename or name)}: {type(exc).__name__}: {exc}") from None


def _failed_at(exc: BaseException, fallback: str) -> str:
    """"FILE:LINE" of the innermost template frame of the error's traceback (Jinja maps its frames to template lines)."""
    where = fallback
    trace = exc.__traceback__
    while trace is not None:
        if trace.tb_frame.f_code.co_filename.endswith(".j2"):
            where = f"{trace.tb_frame.f_code.co_filename}:{trace.tb_lineno}"
        trace = trace.tb_next
    return where


def template_folders(path: str, folders: tuple[Path, ...]) -> list[Path]:
    """The folders the template `path` (`<mode>/<name>.md.j2`) is looked for in, the first holding it wins: `folders`
    (`search_folders`: a user's, a preset's, the shipped ones), then, for a plugin's own name, the plugin's folder (a
    plugin never replaces a shipped template; a user's folder may replace a plugin's)."""
    own = plugin_folder(PurePosixPath(path).name.removesuffix(".md.j2"))
    return list(folders) if own is None else [*folders, own / TEMPLATES_FOLDER]


def _source(folders: tuple[Path, ...], path: str) -> tuple[str, str, Callable[[], bool]] | None:
    """The text of the template `path` from the first of its folders that holds it, where it is, and whether it is
    unchanged since (what FileSystemLoader gives); None: no folder holds it."""
    import jinja2.loaders

    parts = jinja2.loaders.split_template_path(path)  # refuses ".." (TemplateNotFound)
    found = next((file for folder in template_folders(path, folders) if (file := folder.joinpath(*parts)).is_file()), None)
    if found is None:
        return None
    mtime = found.stat().st_mtime
    return found.read_text(encoding="utf-8"), str(found), lambda: found.is_file() and found.stat().st_mtime == mtime


@functools.cache
def _environment(folders: tuple[Path, ...]) -> jinja2.Environment:
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.FunctionLoader(functools.partial(_source, folders)),
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
