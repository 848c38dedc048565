"""Reading and writing puzzle records as JSONL, strictly: one record per line, nothing lost silently."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from puzzles import PuzzleError, StrictJSONError, get_puzzle, loads_strict

from .errors import InputError

REQUIRED_FIELDS = ("id", "puzzle", "instance")


def read_records(path: Path) -> Iterator[tuple[dict[str, Any], list[str]]]:
    """Yield (record, repeated key pointers) per non-blank line; the instance is schema-checked.

    Raises:
        InputError: the file cannot be read, or a line is not a well-formed record (says which line).
    """
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read {path}: {exc}") from None
    for number, line in enumerate(lines, start=1):
        if line.strip():
            yield _parse_record(line, f"{path}:{number}")


def _parse_record(line: str, where: str) -> tuple[dict[str, Any], list[str]]:
    try:
        record, repeated = loads_strict(line)
    except StrictJSONError as exc:
        raise InputError(f"{where}: not valid JSON ({exc})") from None
    if not isinstance(record, dict):
        raise InputError(f"{where}: expected a JSON object, got {type(record).__name__}")
    missing = [name for name in REQUIRED_FIELDS if name not in record]
    if missing:
        raise InputError(f"{where}: record lacks {', '.join(missing)}")
    outside_answer = [p for p in repeated if not p.startswith("/answer")]
    if outside_answer:
        raise InputError(f"{where}: repeated key at {', '.join(outside_answer)}")
    try:
        puzzle = get_puzzle(record["puzzle"]) if isinstance(record["puzzle"], str) else None
    except PuzzleError as exc:
        raise InputError(f"{where}: {exc}") from None
    if puzzle is None:
        raise InputError(f"{where}: 'puzzle' must be a puzzle name")
    import jsonschema  # deferred: ~0.1 s to import, and only commands that read records need it

    error = jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(puzzle.instance_schema).iter_errors(record["instance"]))
    if error is not None:
        raise InputError(f"{where}: instance does not fit the {puzzle.name} schema: {error.message}")
    return record, [p.removeprefix("/answer") or "/" for p in repeated]


@contextmanager
def open_output(path: Path | None) -> Iterator[IO[str]]:
    """The file to write JSONL to, or stdout; a partially written file is left for inspection."""
    if path is None:
        yield sys.stdout
        return
    try:
        handle = path.open("w", encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot write {path}: {exc}") from None
    with handle:
        yield handle


def write_records(records: Iterable[dict[str, Any]], out: IO[str]) -> int:
    """Write one compact JSON object per line; returns how many."""
    count = 0
    for record in records:
        out.write(json.dumps(record, separators=(",", ":")) + "\n")
        count += 1
    return count
