"""A hostile shared run directory: whatever its database holds, every reader answers with a result or one `error:` line,
never a traceback, and nothing it shows (stdout, stderr, the written files) carries a raw control character.

The run is real (the mock model on loopback, code and instruction mode, two puzzles and a game, local sandbox); each
example copies its database and writes hostile values into random columns of random tables, or random places inside
their JSON: escape sequences, bidi overrides, lone surrogates (as invalid UTF-8 and as JSON escapes), blobs, huge and
negative integers, NaN and infinities, JSON nested 100,000 deep and JSON of the wrong type.
"""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import puzzles
from codebench.analysis.report import FORMATS, SECTIONS
from codebench.model.mock_server import start_mock_server
from codebench.run.store import Store
from codebench.types import SearchStep, Status

from .cli import run_cli

ESCAPES = ("\x1b[2J\x1b]0;retitled\x07", "\x9b6n", "\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", "\u202eevil\u202c",
           "\u2066iso\u2069", "\x00", "a\rb", "\x7f")
OTHERS = ("$\\frac{$", "</script><b>x</b>", "{", "ref", "legal", "mixed", "code", "hanoi", "", " ", "é" * 3)
PIECES = ESCAPES + OTHERS
UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
ESCAPED = re.compile(r"(?<!\\)(\\\\)*\\u(00[01][0-9a-f]|007f|008[0-9a-f]|009[0-9a-f]|200[ef]|202[a-e]|206[6-9]|d[89a-f][0-9a-f]{2})",
                     re.IGNORECASE)  # the same as JSON escapes (JSON output, the page's data): a JSON reader would show it raw
DATA = re.compile(r'<script type="application/json" id="codebench-data">(.*?)</script>', re.DOTALL)
DEEP = "[" * 100_000 + "]" * 100_000


class Invalid(str):
    """Text that is not UTF-8 (a lone surrogate as SQLite stores it): written with CAST(X'..' AS TEXT)."""


texts = st.lists(st.sampled_from(PIECES), min_size=1, max_size=3).map("".join)
json_values = st.recursive(
    st.one_of(texts, st.sampled_from([None, True, False, 0, -1, -(10**6), 2**63, 10**30, -(2**64), 1e308, -0.5,
                                      float("nan"), float("inf"), float("-inf"), "\ud800", "x\udfffy"])),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(texts, inner, max_size=3)), max_leaves=6)
cell_values = st.one_of(
    texts, st.binary(max_size=8).map(lambda b: b"\x1b[31m" + b), st.just(Invalid("ed a0 80")), st.just(Invalid("ff fe 1b")),
    st.sampled_from([None, 0, -1, -(2**63), 2**63 - 1, 10**12, 0.5, -2.5, 1e308, -1e308, float("inf"), float("-inf"),
                     float("nan")]),
    st.sampled_from(["1", '"x"', "null", "[]", "{}", "true", "-5", "1e999", "NaN", DEEP, '"\\ud800"', '{"a": "\\u001b[2J"}',
                     '[{"code": "\\u009b6n"}]']))


@st.composite
def edits(draw: st.DrawFn) -> tuple[str, str, int, bool, Any]:
    """(table, column, which row, insert a copy instead of updating, the new value or ("json", path, value))."""
    table = draw(st.sampled_from(sorted(TABLES)))
    column = draw(st.sampled_from(TABLES[table]))
    inside = draw(st.booleans())
    value = ("json", draw(st.lists(st.integers(0, 50), max_size=6)), draw(json_values)) if inside else draw(cell_values)
    return table, column, draw(st.integers(0, 10**6)), draw(st.booleans()), value


def make_run(out: Path, models: str, games: bool) -> Path:
    with start_mock_server(behavior="mixed") as server:
        done = subprocess.run([sys.executable, "-m", "codebench", "run", "--model", models, "--base-url", server.url, "--mode",
                               "both", "--puzzles", "hanoi,waterjug", *(("--games", "cardnim", "--opponents", "ref") if games else ()),
                               "--levels", "1,2", "--instances-per-level", "1", "--samples", "2", "--format-retries", "0",
                               "--backend", "local", "--workers", "2", "--out", str(out)], capture_output=True, text=True,
                              timeout=600)
    assert done.returncode in (0, 5), done.stderr[-3000:]  # 5: partial (every request of a failing model)
    return out


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished run of two models in both modes, with games, and two steps of an adaptive search (as a run of the same
    models with --adaptive into the same directory leaves beside them)."""
    run = make_run(tmp_path_factory.mktemp("hostile") / "run", "mixed,oracle", games=True)
    store = Store(run / "run.sqlite")
    try:
        key = next(iter(store.samples([store.plan().samples[0].key])))  # type: ignore[union-attr]
        for step, (lam, status) in enumerate(((12, Status.RULE_VIOLATION), (6, Status.LEGAL))):
            record = puzzles.get_puzzle("hanoi").generate(seed=step, complexity=lam)
            store.add_step(SearchStep("mixed", "instruction", "hanoi", step, lam, record.id, key, status), record, lam)
    finally:
        store.close()
    return run


def _columns(database: Path) -> dict[str, tuple[str, ...]]:
    with closing(sqlite3.connect(database)) as db:
        tables = [name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {table: tuple(row[1] for row in db.execute(f"PRAGMA table_info({table})")) for table in tables}


TABLES: dict[str, tuple[str, ...]] = {  # the schema codebench writes (checked against the run's below)
    "meta": ("key", "value"),
    "instances": ("id", "puzzle", "level", "seed", "lambda", "instance", "meta"),
    "samples": ("key", "model", "base_url", "mode", "puzzle", "instance_id", "sample", "prompt", "params", "response",
                "finish_reason", "truncated", "prompt_tokens", "completion_tokens", "latency_s", "server_model", "error",
                "program_key", "read_status", "read_detail", "format_retries", "created", "reasoning", "reasoning_tokens",
                "retried_replies", "hedged", "reply_sources"),
    "programs": ("key", "source"),
    "executions": ("key", "program_key", "instance_id", "status", "detail", "issues", "cpu_s", "wall_s", "peak_mib", "stdout",
                   "stderr", "created", "first_illegal_step", "steps_applied"),
    "plan_samples": ("position", "key", "model", "mode", "puzzle", "instance_id", "sample"),
    "plan_instances": ("position", "puzzle", "instance_id"),
    "matches": ("key", "game", "level", "seed", "players", "record", "void", "created", "attempts"),
    "plan_matches": ("position", "key", "game", "level", "seed", "players"),
    "batches": ("id", "model", "keys", "created", "read"),
    "search_steps": ("model", "mode", "puzzle", "step", "complexity", "instance_id", "sample_key", "status", "created"),
}


def _replaced(value: Any, path: list[int], new: Any) -> Any:
    """`value` (parsed JSON) with the place `path` leads to (each step an index into a list or a dict's keys) set to `new`."""
    if not path or not isinstance(value, list | dict) or not value:
        return new
    step, rest = path[0], path[1:]
    if isinstance(value, list):
        copy = list(value)
        copy[step % len(copy)] = _replaced(copy[step % len(copy)], rest, new)
        return copy
    key = sorted(value)[step % len(value)]
    return {**value, key: _replaced(value[key], rest, new)}


def apply_edit(database: Path, table: str, column: str, which: int, insert: bool, value: Any) -> None:
    """Write `value` into `column` of one row of `table` (or of a copy of it inserted under a new key)."""
    with closing(sqlite3.connect(database)) as db, db:
        db.text_factory = lambda data: data.decode(errors="surrogateescape")  # an earlier edit may have left invalid UTF-8
        rowids = [rowid for (rowid,) in db.execute(f"SELECT rowid FROM {table}")]
        if not rowids:
            return
        rowid = rowids[which % len(rowids)]
        if isinstance(value, tuple):  # a place inside the column's JSON
            (old,) = db.execute(f"SELECT {column} FROM {table} WHERE rowid = ?", (rowid,)).fetchone()
            try:
                value = json.dumps(_replaced(json.loads(old), value[1], value[2]))
            except (TypeError, ValueError, RecursionError):
                return
        if insert:  # the row copied whole, under a new key (or plan position)
            first = TABLES[table][0]
            db.execute(f"CREATE TEMP TABLE copied AS SELECT * FROM {table} WHERE rowid = ?", (rowid,))
            db.execute(f"UPDATE copied SET {first} = " + (f"(SELECT MAX({first}) + 1 FROM {table})" if first == "position"
                                                         else f"{first} || '+copy'"))
            db.execute(f"INSERT OR REPLACE INTO {table} SELECT * FROM copied")
            rowid = db.execute("SELECT last_insert_rowid()").fetchone()[0]
            db.execute("DROP TABLE copied")
        invalid = isinstance(value, Invalid)
        try:
            db.execute(f"UPDATE OR REPLACE {table} SET {column} = "
                       + (f"CAST(X'{value.replace(' ', '')}' AS TEXT)" if invalid else "?") + " WHERE rowid = ?",
                       (rowid,) if invalid else (value, rowid))
        except sqlite3.IntegrityError:  # NOT NULL, or text for an INTEGER PRIMARY KEY: the schema keeps it out
            return


def assert_harmless(text: str, where: str, json_text: bool = False) -> None:
    """No raw control character in `text`, nor (`json_text`) one escaped as JSON writes it."""
    found = UNSAFE.search(text) or (ESCAPED.search(text) if json_text else None)
    context = text[max(0, found.start() - 200):found.start() + 50] if found else ""
    assert found is None, f"{where}: a raw control character {found.group()!r} at {found.start()}: {context!r}"


def answered(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    """Run `codebench ARGV`: a result (exit 0) or one `error:` line (exit 2), nothing raw; returns the exit code and stdout."""
    code, out, err = run_cli(capsys, *argv)
    assert code in (0, 2), (argv, code, err[-3000:])
    assert "Traceback" not in out + err, err[-3000:]
    if code == 2:
        assert err.startswith("error: ") and len(err.strip().split("\n")) == 1, err
    assert_harmless(out, f"stdout of {argv}", json_text="json" in argv)
    assert_harmless(err, f"stderr of {argv}")
    return code, out


def written(folder: Path) -> Iterator[Path]:
    return (path for path in sorted(folder.rglob("*")) if path.is_file() and path.suffix != ".png")


def every_reader(capsys: pytest.CaptureFixture[str], run: Path, outputs: Path, section: str, fmt: str) -> None:
    """Every format, one section, the page and the figures, and compare, over `run`."""
    for each in FORMATS:
        answered(capsys, "report", str(run), "--format", each)
    answered(capsys, "report", str(run), "--section", section, "--format", fmt)
    answered(capsys, "report", str(run), "-o", str(outputs / "report.md"), "--format", "md", "--html", str(outputs / "page.html"),
             "--plots", str(outputs / "plots"))
    answered(capsys, "compare", str(run))
    for side in ("mixed", "oracle"):
        answered(capsys, "compare", str(run), "--a", f"{side}:code", "--b", f"{side}:instruction", "--format", "json")
    for path in written(outputs):
        assert_page_harmless(path.read_text(errors="surrogateescape"), str(path))


def assert_page_harmless(text: str, where: str) -> None:
    """A written file holds no raw control character, nor (an HTML page's data block) one escaped as JSON writes it."""
    assert_harmless(text, where)
    for block in DATA.findall(text):
        assert_harmless(block, f"the data block of {where}", json_text=True)


def test_the_schema_edited_is_the_one_codebench_writes(clean: Path) -> None:
    assert _columns(clean / "run.sqlite") == TABLES


@settings(max_examples=25, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(changes=st.lists(edits(), min_size=1, max_size=3), section=st.sampled_from(SECTIONS), fmt=st.sampled_from(FORMATS))
def test_every_reader_of_a_hostile_store_answers_or_says_what_is_damaged(
        clean: Path, tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str],
        changes: list[tuple[str, str, int, bool, Any]], section: str, fmt: str) -> None:
    folder = tmp_path_factory.mktemp("example")
    run = folder / "run"
    shutil.copytree(clean, run)
    for change in changes:
        apply_edit(run / "run.sqlite", *change)
    (folder / "outputs").mkdir()
    every_reader(capsys, run, folder / "outputs", section, fmt)
