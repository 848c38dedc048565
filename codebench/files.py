"""Files, strictly: reading text and lines (size-capped, UTF-8, one error line naming the file), puzzle records as JSONL
(one record per line, nothing lost silently), and outputs checked before any work and written whole or not at all."""

from __future__ import annotations

import errno
import json
import os
import re
import secrets
import stat
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from puzzles import PuzzleError, StrictJSONError, get_puzzle, loads_strict

from .errors import InputError
from .types import harmless

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


FILE, FOLDER = "file", "folder"


def check_outputs(outputs: Iterable[tuple[str, Path | None, str]], inputs: Sequence[Path] = ()) -> None:
    """Decide, before any work, whether every output of a command can be written: (option typed, path or None when
    not asked for, FILE or FOLDER) each. One call with all of them, so a command never writes some and then refuses
    another.

    Refused: two outputs on one path, an output that is one of `inputs`, a directory where a file goes, a file where a
    folder goes, a missing folder for a file (a FOLDER is made if missing), a link to a file or to nowhere (a link to a
    device or a pipe is written through, and so is /dev/stdout whatever the shell made it), a place that cannot be
    written.

    Raises:
        InputError: the first problem, naming the option and the path as typed and what to give instead.
    """
    given = [(option, path, kind) for option, path, kind in outputs if path is not None]
    places: dict[Path, tuple[str, str]] = {}
    for option, path, kind in given:
        place = path.resolve()
        if place in places:
            other, other_kind = places[place]
            raise InputError(f"{option} {path} is also the {other} {other_kind}: give each its own")
        places[place] = option, kind
    for option, path, kind in given:
        (_check_folder if kind == FOLDER else _check_file)(path, f"{option} {path}".strip(), inputs)


def _check_file(path: Path, shown: str, inputs: Sequence[Path]) -> None:
    """`path` can be written as one file that is none of `inputs` (`shown`: the option and the path, for messages)."""
    if any(path.absolute() == source.absolute() or (path.exists() and source.exists() and path.samefile(source))
           for source in inputs):
        raise InputError(f"{shown} is also an input: writing it would destroy what is read; give another file")
    if names_a_descriptor(path):  # /dev/stdout redirected to a file: the file the shell opened, written at its end
        return
    if path.is_symlink() and (not path.exists() or path.is_file() or path.is_dir()):
        raise InputError(f"{shown} is a symbolic link to {harmless(os.readlink(path))}: give the file itself, or another name")
    if path.is_dir():
        raise InputError(f"{shown} is a directory: give a file name")
    if path.exists() and not path.is_file():  # a device or a pipe: written directly
        if not os.access(path, os.W_OK):
            raise InputError(f"{shown} cannot be written ({_why_not(path)})")
        return
    folder = path.parent
    if not folder.is_dir():
        if folder.exists() or folder.is_symlink():
            raise InputError(f"{shown}: {folder} is not a folder: give a path in a folder")
        raise InputError(f"{shown}: the folder {folder} does not exist: make it first, or give another path")
    if not os.access(folder, os.W_OK | os.X_OK):  # the file is written beside itself, then renamed over
        raise InputError(f"{shown}: cannot write into {folder} ({_why_not(folder)}): give another path")
    if path.exists() and not os.access(path, os.W_OK):
        raise InputError(f"{shown} is read-only: give another path, or make it writable")


_DESCRIPTOR = re.compile(r"/(dev/fd|proc/(self|thread-self|\d+)/fd)/\d+|/dev/std(out|err)")


def names_a_descriptor(path: Path) -> bool:
    """Whether `path` names one of this process's open descriptors (/dev/stdout, /dev/fd/N, /proc/self/fd/N, or a link to
    one): what the shell redirected, written directly even when it is a regular file, as every Unix tool does."""
    hop = str(path.absolute())
    for _ in range(40):  # the kernel's own bound on links followed
        if _DESCRIPTOR.fullmatch(hop):
            return True
        if not os.path.islink(hop):
            return False
        hop = os.path.normpath(os.path.join(os.path.dirname(hop), os.readlink(hop)))
    return False


def _check_folder(path: Path, shown: str, inputs: Sequence[Path]) -> None:
    """`path` is a folder, or can be made one (with its missing parents), and files can be written into it."""
    if path.exists() and not path.is_dir():
        raise InputError(f"{shown} is not a directory: give a folder (made if missing)")
    nearest = path
    while not nearest.exists() and not nearest.is_symlink() and nearest != nearest.parent:
        nearest = nearest.parent
    if not nearest.is_dir():
        raise InputError(f"{shown}: {nearest} is {'a link to nowhere' if nearest.is_symlink() else 'not a directory'}: give a "
                         "folder (made if missing)")
    if not os.access(nearest, os.W_OK | os.X_OK):
        raise InputError(f"{shown}: cannot write into {nearest} ({_why_not(nearest)}): give another folder")


def _why_not(path: Path) -> str:
    """Why a place cannot be written: a read-only mount (which stops root too) or the permissions."""
    try:
        read_only = bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except OSError:
        read_only = False
    return "a read-only file system" if read_only else "permission denied"


@contextmanager
def open_output(path: Path | None, inputs: Sequence[Path] = (), *, binary: bool = False, option: str = "",
                replace: bool = False) -> Iterator[IO[Any]]:
    """Where an output goes (text, or bytes with `binary`): stdout, or `path` written whole. Every writer of a file
    goes through here; a command checks all its outputs first (`check_outputs`), this checks `path` again (`option`
    names it).

    A regular file is written beside itself, in a new file of a random name created exclusively (a link or a pipe
    planted at that name is skipped, never opened), and renamed over `path` at the end, so a failure leaves `path` as
    it was; on Ctrl-C the whole lines of a text written so far are kept, bytes are dropped. A device or pipe the user
    named (or a link to one) is written directly, never replaced. With `replace` (a file codebench names inside an
    output folder, such as a figure), whatever lies at `path` but a directory is replaced, never written through.

    Raises:
        InputError: `path` cannot be written (the message says why).
    """
    if path is None:
        yield sys.stdout.buffer if binary else sys.stdout
        return
    shown = f"{option} {path}".strip()
    if replace:
        if path.is_dir() and not path.is_symlink():
            raise InputError(f"{shown} is a directory: remove it, or give another folder")
    else:
        check_outputs([(option, path, FILE)], inputs)
    mode, encoding = ("wb", None) if binary else ("w", "utf-8")
    descriptor = names_a_descriptor(path)
    if not replace and (descriptor or path.exists() and not path.is_file()):  # /dev/stdout, a pipe: no rename
        if descriptor:
            mode = mode.replace("w", "a")  # appended: a file the shell opened with >> keeps what it held
        try:
            with path.open(mode, encoding=encoding) as handle:
                yield handle
        except OSError as exc:
            raise InputError(f"cannot write {shown}: {exc.strerror or exc}") from None
        return
    try:
        fd, partial = _create_beside(path)
        handle = os.fdopen(fd, mode, encoding=encoding)
    except OSError as exc:
        raise InputError(f"cannot write {shown}: {exc.strerror or exc}") from None
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
        raise InputError(f"cannot write {shown}: {exc.strerror or exc}") from None
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    os.replace(partial, path)


def _partial_names(path: Path) -> Iterator[Path]:
    """Names for the file written beside `path`, new and random each time."""
    while True:
        yield path.with_name(f".{path.name}.{secrets.token_hex(6)}.partial")


def _create_beside(path: Path) -> tuple[int, Path]:
    """Create an empty file beside `path` and open it, exclusively (O_EXCL, O_NOFOLLOW: anything already at a name drawn is
    skipped), with the mode a plain open gives: the umask's for a new file, `path`'s own when it is a file already.

    Raises:
        OSError: the folder refuses it, or a hundred names drawn were all taken.
    """
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    for _, partial in zip(range(100), _partial_names(path)):
        try:
            fd = os.open(partial, flags, 0o666)
        except FileExistsError:
            continue
        try:
            if path.is_file() and not path.is_symlink():
                os.fchmod(fd, stat.S_IMODE(path.stat().st_mode))
        except OSError:
            os.close(fd)
            partial.unlink()
            raise
        return fd, partial
    raise FileExistsError(errno.EEXIST, "every temporary name drawn was taken")


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
