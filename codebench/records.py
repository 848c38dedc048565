"""Reading and writing puzzle records as JSONL, strictly: one record per line, nothing lost silently."""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from puzzles import PuzzleError, StrictJSONError, get_puzzle, loads_strict

from .errors import InputError

REQUIRED_FIELDS = ("id", "puzzle", "instance")


def read_records(path: Path) -> Iterator[tuple[dict[str, Any], list[str]]]:
    """Yield (record, repeated key pointers) per non-blank line; the instance fits its puzzle's schema and rules.

    Raises:
        InputError: the file cannot be read, or a line is not a well-formed record (says which line).
    """
    for where, line in read_lines(path):
        yield _parse_record(line, where)


MAX_INPUT_BYTES = 256 << 20  # an input file larger than this (or an endless device such as /dev/zero) is refused


def read_text(path: Path, what: str = "") -> str:
    """A UTF-8 input file, read in chunks up to MAX_INPUT_BYTES: a pipe or /dev/stdin works, /dev/zero does not hang.

    Raises:
        InputError: missing, a directory, unreadable, too large, or not UTF-8 (`what` names the option).
    """
    shown = f"{what} {path}".strip()
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_INPUT_BYTES + 1)
    except OSError as exc:
        raise InputError(f"cannot read {shown}: {exc.strerror or exc}") from None
    if len(data) > MAX_INPUT_BYTES:
        raise InputError(f"{shown} is larger than {MAX_INPUT_BYTES >> 20} MiB: split it")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"cannot read {shown}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def read_lines(path: Path) -> Iterator[tuple[str, str]]:
    """("FILE:LINE", text) per non-blank line. Lines end at "\n" only: U+2028 and friends are valid inside JSON.

    Raises:
        InputError: the file cannot be read (missing, a directory, not UTF-8).
    """
    text = read_text(path)
    for number, line in enumerate(text.split("\n"), start=1):
        if line.strip():
            yield f"{path}:{number}", line.removesuffix("\r")


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
    if not isinstance(record["id"], str):
        raise InputError(f"{where}: 'id' must be a string, got {type(record['id']).__name__}")
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
    try:  # consistency and bounds too: a verdict on an answer to an impossible instance would mean nothing
        puzzle.check_instance(record["instance"])
    except PuzzleError as exc:
        raise InputError(f"{where}: record {record['id']!r}: {exc}") from None
    return record, [p.removeprefix("/answer") or "/" for p in repeated]


@contextmanager
def open_output(path: Path | None, inputs: Sequence[Path] = (), *, binary: bool = False) -> Iterator[IO[Any]]:
    """Where an output goes (text, or bytes with `binary`): stdout, or `path` written whole. Every writer of a file
    the user names goes through here.

    A regular file is written beside itself, in a new file of a random name (created exclusively: a file or link
    planted beside the target is never followed), and renamed over `path` at the end, so a failure leaves `path` as it
    was; on Ctrl-C the whole lines of a text written so far are kept, bytes are dropped. A device or pipe (or a link to
    one) is written directly, never replaced.

    Raises:
        InputError: `path` is one of `inputs`, a directory, or cannot be written (the message says why).
    """
    if path is None:
        yield sys.stdout.buffer if binary else sys.stdout
        return
    check_output(path, inputs)
    mode, encoding = ("wb", None) if binary else ("w", "utf-8")
    if path.exists() and not path.is_file():  # /dev/stdout, a pipe: no rename possible
        try:
            with path.open(mode, encoding=encoding) as handle:
                yield handle
        except OSError as exc:
            raise InputError(f"cannot write {path}: {exc.strerror or exc}") from None
        return
    try:
        fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".partial", dir=path.parent)
        umask = os.umask(0)
        os.umask(umask)
        os.fchmod(fd, 0o666 & ~umask)  # as a plain open would have made it
        handle = os.fdopen(fd, mode, encoding=encoding)
    except OSError as exc:
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from None
    partial = Path(name)
    try:
        with handle:
            yield handle
    except KeyboardInterrupt:
        if binary:
            partial.unlink(missing_ok=True)
        else:
            _keep_whole_lines(partial)
            os.replace(partial, path)
        raise
    except OSError as exc:
        partial.unlink(missing_ok=True)
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from None
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    os.replace(partial, path)


def check_output(path: Path, inputs: Sequence[Path] = (), option: str = "-o") -> None:
    """Refuse, before any work, an output that is a directory or one of `inputs`.

    Raises:
        InputError: the message names the option and says what to give instead.
    """
    if path.is_dir():
        raise InputError(f"{option} {path} is a directory: give a file name")
    if any(path.exists() and source.exists() and path.samefile(source) for source in inputs):
        raise InputError(f"{option} {path} is also an input: writing it would destroy what is read; give another file")


def _keep_whole_lines(path: Path) -> None:
    """Cut a file after its last newline (an interrupt may land inside a write)."""
    data = path.read_bytes()
    path.write_bytes(data[: data.rfind(b"\n") + 1])


def write_records(records: Iterable[dict[str, Any]], out: IO[str], stop: Callable[[], bool] = lambda: False) -> int:
    """Write one compact JSON object per line, until `stop()` says so between two records; returns how many."""
    count = 0
    for record in records:
        out.write(json.dumps(record, separators=(",", ":")) + "\n")
        count += 1
        if stop():
            break
    return count
