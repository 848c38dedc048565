"""The run database: one SQLite file (WAL) per run directory; with the response cache (`run.cache`), the only module
that imports sqlite3 or holds SQL.

Typed in and out: records, samples, outcomes and plans go in, samples, statuses and report rows come
out. Everything is keyed by content hashes (`codebench.keys`), so re-running the same command finds
finished work. Schema versions: 1 (codebench 0.1: the plan as JSON in `meta`, code-mode columns),
2 (a mode and an optional instance per sample, format retries, the plan as tables), 3 (reasoning, trajectory
progress), 4 (the replies that needed a format retry), 5 (games: every match's record, and the planned matches), 6
(a match's plays, and who sat in each seat with the tokens it used, in its record), 7 (whether a reply hedged, as
its mode decided when it read it), 8 (the tokens of a sample's requests not asked directly: from the response cache,
through the Batch API; and the batches a run submitted, with the requests in each) and 9 (an adaptive run's search
steps: the complexity each step asked, its instance, sample and status). Writers migrate older files in
place; readers never write: they migrate a copy in memory, so what an older file lacks is computed in one place, the
migration, for both. A run directory may be anyone's: the readers check each field they take (`_fields`: a wrong one is
one error line naming the run, table, row and column) and return text made `harmless`, once, here, so that no report
format can forget it.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from puzzles import Record

from ..errors import SchemaVersionError, StoreError
from ..judge import progress
from ..keys import content_key, execution_key, first_of_each
from ..modes._hedging import hedges
from ..types import (
    Completion,
    ExecutionDetail,
    ExecutionRow,
    GameRow,
    InstanceFacts,
    Judgement,
    Limits,
    ModeName,
    Outcome,
    PlannedCell,
    Program,
    Reading,
    ReplySource,
    Sample,
    SampleDetail,
    SampleUsage,
    Sampling,
    SearchStep,
    Status,
    harmless,
)
from . import _fields
from ._fields import FIELDS, RUN, Damaged, conform, shown

SCHEMA_VERSION = 9
LEVELLED = "WHERE level IS NOT NULL"  # the instances a plan holds: an adaptive search's are drawn at a complexity, no level
_PLANNED = {"meta", "instances", "samples", "programs", "executions", "plan_samples", "plan_instances"}
_GAMES = _PLANNED | {"matches", "plan_matches"}
TABLES = {1: {"meta", "instances", "samples", "programs", "executions"}, 2: _PLANNED, 3: _PLANNED, 4: _PLANNED,
          5: _GAMES, 6: _GAMES, 7: _GAMES, 8: _GAMES | {"batches"}, 9: _GAMES | {"batches", "search_steps"}}
MATCH_TABLES = """
CREATE TABLE matches (
    key TEXT PRIMARY KEY, game TEXT NOT NULL, level INTEGER NOT NULL, seed INTEGER NOT NULL, players TEXT NOT NULL,
    record TEXT NOT NULL, void INTEGER NOT NULL, created REAL NOT NULL, attempts INTEGER NOT NULL DEFAULT 1);
CREATE TABLE plan_matches (
    position INTEGER PRIMARY KEY, key TEXT NOT NULL, game TEXT NOT NULL, level INTEGER NOT NULL, seed INTEGER NOT NULL,
    players TEXT NOT NULL);
"""
BATCH_TABLE = ("CREATE TABLE batches (id TEXT PRIMARY KEY, model TEXT NOT NULL, keys TEXT NOT NULL, created REAL NOT NULL, "
               "read INTEGER NOT NULL DEFAULT 0)")
STEP_TABLE = ("CREATE TABLE search_steps (model TEXT NOT NULL, mode TEXT NOT NULL, puzzle TEXT NOT NULL, step INTEGER NOT NULL, "
              "complexity INTEGER NOT NULL, instance_id TEXT NOT NULL, sample_key TEXT NOT NULL, status TEXT NOT NULL, "
              "created REAL NOT NULL, PRIMARY KEY (model, mode, puzzle, step))")
SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE instances (
    id TEXT PRIMARY KEY, puzzle TEXT NOT NULL, level INTEGER, seed INTEGER NOT NULL,
    lambda REAL, instance TEXT NOT NULL, meta TEXT NOT NULL);
CREATE TABLE samples (
    key TEXT PRIMARY KEY, model TEXT NOT NULL, base_url TEXT NOT NULL, mode TEXT NOT NULL, puzzle TEXT NOT NULL,
    instance_id TEXT, sample INTEGER NOT NULL, prompt TEXT NOT NULL, params TEXT NOT NULL,
    response TEXT, finish_reason TEXT, truncated INTEGER, prompt_tokens INTEGER, completion_tokens INTEGER,
    latency_s REAL, server_model TEXT, error TEXT, program_key TEXT, read_status TEXT, read_detail TEXT,
    format_retries INTEGER NOT NULL DEFAULT 0, created REAL NOT NULL, reasoning TEXT, reasoning_tokens INTEGER,
    retried_replies TEXT, hedged INTEGER NOT NULL DEFAULT 0, reply_sources TEXT);
CREATE TABLE programs (key TEXT PRIMARY KEY, source TEXT NOT NULL);
CREATE TABLE executions (
    key TEXT PRIMARY KEY, program_key TEXT NOT NULL, instance_id TEXT NOT NULL, status TEXT NOT NULL,
    detail TEXT NOT NULL, issues TEXT NOT NULL, cpu_s REAL, wall_s REAL, peak_mib REAL,
    stdout TEXT, stderr TEXT, created REAL NOT NULL, first_illegal_step INTEGER, steps_applied INTEGER);
CREATE TABLE plan_samples (
    position INTEGER PRIMARY KEY, key TEXT NOT NULL, model TEXT NOT NULL, mode TEXT NOT NULL, puzzle TEXT NOT NULL,
    instance_id TEXT, sample INTEGER NOT NULL);
CREATE TABLE plan_instances (position INTEGER PRIMARY KEY, puzzle TEXT NOT NULL, instance_id TEXT NOT NULL);
""" + MATCH_TABLES + BATCH_TABLE + ";\n" + STEP_TABLE + ";\n"
MIGRATE_1_TO_2 = """
ALTER TABLE samples RENAME COLUMN extract_status TO read_status;
ALTER TABLE samples RENAME COLUMN extract_detail TO read_detail;
ALTER TABLE samples ADD COLUMN instance_id TEXT;
ALTER TABLE samples ADD COLUMN format_retries INTEGER NOT NULL DEFAULT 0;
CREATE TABLE plan_samples (
    position INTEGER PRIMARY KEY, key TEXT NOT NULL, model TEXT NOT NULL, mode TEXT NOT NULL, puzzle TEXT NOT NULL,
    instance_id TEXT, sample INTEGER NOT NULL);
CREATE TABLE plan_instances (position INTEGER PRIMARY KEY, puzzle TEXT NOT NULL, instance_id TEXT NOT NULL);
"""
MIGRATE_2_TO_3 = """
ALTER TABLE samples ADD COLUMN reasoning TEXT;
ALTER TABLE samples ADD COLUMN reasoning_tokens INTEGER;
ALTER TABLE executions ADD COLUMN first_illegal_step INTEGER;
ALTER TABLE executions ADD COLUMN steps_applied INTEGER;
"""
MIGRATE_3_TO_4 = "ALTER TABLE samples ADD COLUMN retried_replies TEXT"
MIGRATE_6_TO_7 = "ALTER TABLE samples ADD COLUMN hedged INTEGER NOT NULL DEFAULT 0"
MIGRATE_7_TO_8 = "ALTER TABLE samples ADD COLUMN reply_sources TEXT"
SAMPLE_COLUMNS = ("key", "model", "base_url", "mode", "puzzle", "instance_id", "sample", "prompt", "params", "response",
                  "finish_reason", "truncated", "prompt_tokens", "completion_tokens", "latency_s", "server_model", "error",
                  "program_key", "read_status", "read_detail", "format_retries", "reasoning", "reasoning_tokens",
                  "retried_replies", "hedged", "reply_sources")
CHUNK = 500  # keys per IN (...) query


@dataclass(frozen=True)
class PlannedSample:
    """One request of the plan, as the report walks them."""

    key: str
    model: str
    mode: str
    puzzle: str
    instance_id: str | None  # the one instance it is judged on; None: every planned instance of its puzzle
    sample: int


def match_usage(record: dict[str, Any]) -> list[SampleUsage]:
    """The tokens of a stored game's model seats in instruction mode, as its record holds them (`usage`, per seat; a
    code-mode seat spent its tokens on its strategy's request, counted with the samples), each seat's split by where its
    replies came from (each reply record kept says so, unless it was asked directly)."""
    kept = record.get("kept", [])
    found = []
    for seat, usage in enumerate(record.get("usage", [])):
        if usage:
            total = _usage(usage)
            replies = kept[seat] if seat < len(kept) else {}
            found += _split(total, [part for source in ReplySource if source != ReplySource.API
                                    and (part := SampleUsage.of_seat(total.model, total.puzzle, replies, source)).requests])
    return found


def _usage(usage: dict[str, Any]) -> SampleUsage:
    """One stored usage object (`_fields.USAGE`: a game seat's, replies spent apart, or a sample's part from one source)
    as a SampleUsage."""
    return SampleUsage(usage["model"], usage["mode"], usage["puzzle"], usage["prompt_tokens"], usage["completion_tokens"],
                       usage["reasoning_tokens"], usage.get("requests", 1), usage.get("uncounted", 0),
                       usage.get("reply_source", ReplySource.API))


def _split(total: SampleUsage, parts: Sequence[SampleUsage]) -> list[SampleUsage]:
    """A request's (or a seat's) tokens, as the usage of the replies asked directly (what `parts`, those that came from
    elsewhere, leave) followed by `parts`: one line per source, so each is priced at its own rate."""
    if not parts:
        return [total]
    rest = SampleUsage(total.model, total.mode, total.puzzle, *(max(0, getattr(total, name) - sum(getattr(part, name) for part in parts))
                                                                for name in ("prompt_tokens", "completion_tokens", "reasoning_tokens",
                                                                             "requests", "uncounted")))
    return [*([rest] if rest.requests else []), *(replace(part, model=total.model, mode=total.mode, puzzle=total.puzzle)
                                                 for part in parts)]


@dataclass(frozen=True)
class PlannedMatch:
    """One game of the plan: its setup and the players of its seats, as ratings name them."""

    key: str
    game: str
    level: int
    seed: int
    players: tuple[str, ...]


@dataclass(frozen=True)
class StoredPlan:
    """What the report must join: the requests, the instances of each puzzle, the limits of the executions, the games."""

    base_urls: dict[str, str]  # model -> its endpoint (provenance)
    limits: Limits
    samples: tuple[PlannedSample, ...]
    instances: dict[str, tuple[str, ...]]  # puzzle -> distinct instance ids, in plan order
    matches: tuple[PlannedMatch, ...] = ()
    alike: dict[str, tuple[str, ...]] = field(default_factory=dict)  # instance id -> later seeds' ids that drew it too

    def judged_on(self, planned: PlannedSample) -> tuple[str, ...]:
        """The instances a planned sample is judged on: its own (instruction mode), else every one of its puzzle."""
        return (planned.instance_id,) if planned.instance_id else self.instances.get(planned.puzzle, ())


LEVELLED = "WHERE level IS NOT NULL"  # the instances drawn at a level: an adaptive search's, drawn at a complexity, have none


class Store:
    """One run database; thread-safe. `Store(path)` opens it to write, `Store.for_reading(path)` to read only."""

    def __init__(self, path: Path, *, _db: sqlite3.Connection | None = None) -> None:
        self.path = path
        self.lock = threading.Lock()
        if _db is not None:
            self.db = _db
            return
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
            version = _version(self.db, path)
            if version == 0:
                _create(self.db)
            elif version < SCHEMA_VERSION:
                _migrate(self.db, version)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
        except (sqlite3.Error, OSError) as exc:
            raise StoreError(f"cannot use {path} as a run database ({exc}); give a new --out directory") from None

    @classmethod
    def for_reading(cls, path: Path) -> Store:
        """Open without writing anything or creating a file beside the store (`_open_for_reading`); an older schema is
        migrated in a copy held in memory.

        Raises:
            StoreError: missing, unreadable, not a codebench run database, or corrupt.
            SchemaVersionError: written by a newer codebench.
        """
        if not path.is_file():
            raise StoreError(f"{path} does not exist: give the --out directory of a run")
        try:
            db = _open_for_reading(path)
            version = _version(db, path)
            if version == 0:
                raise StoreError(f"{path} holds no codebench run yet: give the --out directory of a finished or running run")
            if version < SCHEMA_VERSION:
                memory = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
                db.backup(memory)
                db.close()
                db = memory
                _migrate(db, version)
        except sqlite3.Error as exc:
            raise StoreError(f"cannot read {path} ({exc}): it is not a codebench run database, or it is damaged") from None
        except OSError as exc:
            raise StoreError(f"cannot read {path}: {exc.strerror or exc}") from None
        return cls(path, _db=db)

    def close(self) -> None:
        with self.lock:
            self.db.close()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction.

        Raises:
            StoreError: SQLite refused the write (disk full, file gone, read-only); nothing of it is kept.
        """
        with self.lock:
            try:
                self.db.execute("BEGIN IMMEDIATE")
                try:
                    yield self.db
                except BaseException:
                    self.db.execute("ROLLBACK")
                    raise
                self.db.execute("COMMIT")
            except sqlite3.Error as exc:
                raise StoreError(f"cannot write to {self.path} ({exc}); what was stored before is kept: free space or fix "
                                 "the file's permissions, then run the same command again") from None

    def _read(self, sql: str, values: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with self.lock:
            try:
                return self.db.execute(sql, values).fetchall()
            except sqlite3.Error as exc:
                raise StoreError(f"cannot read {self.path} ({harmless(str(exc))}): it is damaged or not a codebench run "
                                 "database") from None

    def _select(self, table: str, columns: Sequence[str], where: str = "", values: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """`columns` of `table`'s rows (`where` narrows and orders them), each field checked to be what codebench writes."""
        return self._checked(table, columns, self._read(f"SELECT {', '.join(columns)} FROM {table} {where}", values))

    def _checked(self, table: str, columns: Sequence[str], rows: Iterable[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
        """`rows` of `columns` with each field checked by its column's `FIELDS` entry (a JSON field parsed).

        Raises:
            StoreError: a field is not what codebench writes, named by table, row (its key) and column.
        """
        checks = [FIELDS[column] for column in columns]
        found = []
        for index, row in enumerate(rows):
            fields = []
            for column, check, value in zip(columns, checks, row):
                try:
                    fields.append(check(value))
                except Damaged as exc:
                    name = repr(row[0][:80]) if isinstance(row[0], str) else f"#{index + 1}"
                    raise self._damaged(f"the {column} of {table} row {name} {exc}") from None
            found.append(tuple(fields))
        return found

    # -- the plan and its provenance -------------------------------------------------------------------------
    def record_plan(self, plan: StoredPlan, records: Iterable[tuple[Record, float | None]], documents: dict[str, Any]) -> None:
        """Store the instances (with their scalar λ; an id drawn anew by a newer puzzle version replaces the old one), the
        plan (replacing an earlier one) and provenance documents."""
        with self._transaction() as db:
            db.executemany("INSERT OR REPLACE INTO instances VALUES (?, ?, ?, ?, ?, ?, ?)",
                           [(r.id, r.puzzle, r.level, r.seed, lam, json.dumps(r.instance), json.dumps(r.meta)) for r, lam in records])
            _write_plan(db, plan)
            db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)",
                           [(name, json.dumps(value, sort_keys=True)) for name, value in documents.items()])

    def plan(self) -> StoredPlan | None:
        """The plan last recorded, or None before any."""
        run = self.document("run")
        if run is None:
            return None
        samples = tuple(PlannedSample(*row) for row in self._select(
            "plan_samples", ("key", "model", "mode", "puzzle", "instance_id", "sample"), "ORDER BY position"))
        instances: dict[str, list[str]] = {}
        for puzzle, instance_id in self._select("plan_instances", ("puzzle", "instance_id"), "ORDER BY position"):
            instances.setdefault(puzzle, []).append(instance_id)
        matches = tuple(PlannedMatch(key, game, level, seed, tuple(players)) for key, game, level, seed, players
                        in self._select("plan_matches", ("key", "game", "level", "seed", "players"), "ORDER BY position"))
        asked = Counter((s.model, s.mode, s.puzzle, s.instance_id, s.sample) for s in samples)
        twice = next((planned for planned, n in asked.items() if n > 1), None)
        if twice is not None:  # its rows would be counted twice
            model, mode, puzzle, instance_id, sample = twice
            raise self._damaged(f"its plan_samples ask for sample {sample} of {model} ({mode}) on {instance_id or puzzle} twice")
        try:
            run = conform(run, RUN)
            # schemas 1-3 kept one URL for the whole run
            base_urls = run["base_urls"] if "base_urls" in run else {s.model: run["base_url"] for s in samples}
            plan = StoredPlan(dict(base_urls), Limits(**run["limits"]), samples, {k: tuple(v) for k, v in instances.items()},
                              matches, {key: tuple(ids) for key, ids in run.get("alike", {}).items()})
        except Damaged as exc:
            raise self._damaged(f"its run document is not what codebench writes: {exc}") from None
        except (KeyError, TypeError, ValueError) as exc:
            raise self._damaged(f"its run document is not what codebench writes ({type(exc).__name__}: {exc})") from None
        return self._distinct(plan)

    def _distinct(self, plan: StoredPlan) -> StoredPlan:
        """The plan with each instance planned once: an earlier codebench planned the same instance once per seed that
        drew it (Hanoi's small levels), and its rows would count it that many times."""
        contents = dict(self._read("SELECT id, puzzle || ':' || instance FROM instances"))
        instances, alike = {}, dict(plan.alike)
        for puzzle, ids in plan.instances.items():
            kept, found = first_of_each((instance_id, contents.get(instance_id, instance_id)) for instance_id in ids)
            instances[puzzle] = tuple(kept)
            alike.update(found)
        if instances == plan.instances:
            return plan
        kept_ids = {instance_id for ids in instances.values() for instance_id in ids}
        samples = tuple(s for s in plan.samples if s.instance_id is None or s.instance_id in kept_ids)
        return replace(plan, samples=samples, instances=instances, alike=alike)

    # -- adaptive searches -----------------------------------------------------------------------------------
    def add_step(self, step: SearchStep, record: Record, lam: float | None) -> None:
        """A search's judged step with its instance (and scalar λ), replacing what an earlier run stored for that step."""
        with self._transaction() as db:
            db.execute("INSERT OR REPLACE INTO instances VALUES (?, ?, ?, ?, ?, ?, ?)",
                       (record.id, record.puzzle, record.level, record.seed, lam, json.dumps(record.instance),
                        json.dumps(record.meta)))
            db.execute("INSERT OR REPLACE INTO search_steps VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                       (step.model, step.mode, step.puzzle, step.step, step.complexity, step.instance_id, step.sample_key,
                        str(step.status), time.time()))

    def drop_steps(self, model: str, mode: str, puzzle: str, first: int) -> None:
        """A search's steps from `first` on: an earlier run went further (a larger budget, a narrower target) than this
        one, whose search ended before them."""
        with self._transaction() as db:
            db.execute("DELETE FROM search_steps WHERE model = ? AND mode = ? AND puzzle = ? AND step >= ?",
                       (model, mode, puzzle, first))

    def search_steps(self) -> list[SearchStep]:
        """Every stored step, by model, mode, puzzle and step."""
        columns = ("model", "mode", "puzzle", "step", "complexity", "instance_id", "sample_key", "status")
        rows = shown(self._select("search_steps", columns, "ORDER BY model, mode, puzzle, step"))
        return [SearchStep(*row[:-1], Status(row[-1])) for row in rows]

    def step_instances(self) -> dict[str, str]:
        """For each stored step's instance, a digest of its content: steps of one search drawn with different seeds may
        get the same instance (Hanoi has one per n), and their results are then not independent."""
        rows = self._select("instances", ("id", "instance"), "WHERE id IN (SELECT instance_id FROM search_steps)")
        return {instance_id: content_key("instance", text) for instance_id, text in rows}

    def games_secret(self) -> str | None:
        """The secret the run's games are played under ("": games stored before runs had secrets), or None: no game
        stored and none chosen yet."""
        chosen = self.document("games_secret")
        if chosen is not None:
            try:
                return conform(chosen, {"secret": _fields.text})["secret"]
            except Damaged as exc:
                raise self._damaged(f"its games_secret document is not what codebench writes: {exc}") from None
        return "" if self._read("SELECT 1 FROM matches LIMIT 1") else None

    def prices(self) -> Any:
        """The price table, as stored, of every label the runs into this directory were given (each label's latest), so
        requests asked under a label since renamed keep their price; a run recorded before there was one kept only its
        own prices, in its spec (a spec of another shape is handed on as it is, for the reader to refuse)."""
        prices = self.document("prices")
        if prices is None:
            spec = self.document("spec")
            prices = spec.get("prices") if isinstance(spec, dict) else spec
        return prices

    def document(self, name: str) -> Any:
        """A document of `meta` (`spec`, `versions`, `run`) as stored, or None."""
        rows = self._select("meta", ("key", "value"), "WHERE key = ?", (name,))
        return rows[0][1] if rows else None

    # -- samples, programs, executions -----------------------------------------------------------------------
    def add_sample(self, sample: Sample) -> None:
        """Store (or replace) a sample, and its program if it has one. What the client changed in the reply to keep it
        sane (`Completion.notes`: a cut, replaced surrogates, unknown counts) is kept with the read detail."""
        completion, reading = sample.completion, sample.reading
        program = reading.program
        detail = "; ".join(part for part in (reading.detail, *completion.notes) if part)
        values = (sample.key, sample.model, sample.base_url, sample.mode, sample.puzzle, sample.instance_id, sample.sample,
                  sample.prompt, json.dumps(asdict(sample.sampling), sort_keys=True), completion.text, completion.finish_reason,
                  int(completion.truncated), completion.prompt_tokens, completion.completion_tokens, completion.latency_s,
                  completion.server_model, completion.error, program.key if program else None,
                  None if reading.status is None else str(reading.status), detail, sample.format_retries,
                  completion.reasoning, completion.reasoning_tokens,
                  json.dumps(list(sample.retried_replies)) if sample.retried_replies else None, int(reading.hedged),
                  json.dumps([asdict(usage) for usage in sample.reply_sources], sort_keys=True) if sample.reply_sources else None)
        with self._transaction() as db:
            if program is not None:
                db.execute("INSERT OR IGNORE INTO programs VALUES (?, ?)", (program.key, program.source))
            db.execute(f"INSERT OR REPLACE INTO samples ({', '.join(SAMPLE_COLUMNS)}, created) "
                       f"VALUES ({', '.join('?' * len(SAMPLE_COLUMNS))}, ?)", (*values, time.time()))

    def samples(self, keys: Iterable[str]) -> dict[str, Sample]:
        """The stored samples among `keys`, by key (one query per 500 keys)."""
        columns = ", ".join("s." + c for c in SAMPLE_COLUMNS)
        rows = self._checked("samples", (*SAMPLE_COLUMNS, "source"), self._in(
            f"SELECT {columns}, p.source FROM samples s LEFT JOIN programs p ON p.key = s.program_key WHERE s.key IN ({{}})",
            list(keys)))
        return {row[0]: _sample(row) for row in rows}

    def answered(self, keys: Iterable[str]) -> set[str]:
        """The keys of samples stored with a usable reply (an API error is asked again)."""
        return {key for (key,) in self._in("SELECT key FROM samples WHERE error IS NULL AND key IN ({})", list(keys))}

    def add_executions(self, executions: Sequence[tuple[str, str, str, Outcome]]) -> None:
        """Store (key, program key, instance id, outcome) rows in one transaction."""
        now = time.time()
        rows = [(key, program, instance_id, str(o.status), o.detail, json.dumps([issue.to_json() for issue in o.issues]), o.cpu_s,
                 o.wall_s, o.peak_mib, o.stdout, o.stderr, now, o.first_illegal_step, o.steps_applied)
                for key, program, instance_id, o in executions]
        with self._transaction() as db:
            db.executemany("INSERT OR REPLACE INTO executions (key, program_key, instance_id, status, detail, issues, cpu_s, "
                           "wall_s, peak_mib, stdout, stderr, created, first_illegal_step, steps_applied) "
                           "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)

    def stored_statuses(self, keys: Iterable[str]) -> dict[str, str]:
        """{execution key: status} for the keys already stored."""
        return dict(self._in("SELECT key, status FROM executions WHERE key IN ({})", list(keys)))

    def add_match(self, planned: PlannedMatch, record: dict[str, Any], void: bool) -> None:
        """Store one game's whole record, over a void one stored before (its plays counted: `matches_settled`)."""
        with self._transaction() as db:
            db.execute("INSERT INTO matches VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1) ON CONFLICT (key) DO UPDATE SET "
                       "record = excluded.record, void = excluded.void, created = excluded.created, "
                       "attempts = matches.attempts + 1",
                       (planned.key, planned.game, planned.level, planned.seed, json.dumps(list(planned.players)),
                        json.dumps(record, sort_keys=True), int(void), time.time()))

    def add_spent(self, usages: Iterable[SampleUsage]) -> None:
        """Add the tokens of replies no stored sample or game holds: a conversation the run's budget cut short (its sample
        or game is held, and asked anew on a resume), a void game (played again). `usage` counts them with the rest, so
        a resume's budget and the cost table count every reply that was paid for."""
        spent = {(u.model, u.mode, u.puzzle, u.reply_source): u for u in self.spent()}  # the event loop is the one writer
        for usage in usages:
            before = spent.get((usage.model, usage.mode, usage.puzzle, usage.reply_source))
            spent[usage.model, usage.mode, usage.puzzle, usage.reply_source] = usage if before is None else before + usage
        with self._transaction() as db:
            db.execute("INSERT OR REPLACE INTO meta VALUES ('spent', ?)",
                       (json.dumps([asdict(usage) for usage in spent.values()], sort_keys=True),))

    def spent(self) -> list[SampleUsage]:
        """The tokens of replies no stored sample or game holds (`add_spent`), per model, mode and puzzle or game.

        Raises:
            StoreError: the document is not what codebench writes.
        """
        try:
            spent = conform(self.document("spent") or [], [_fields.USAGE])
        except Damaged as exc:
            raise self._damaged(f"its record of tokens spent outside stored replies is not what codebench writes: {exc}") from None
        return [_usage(usage) for usage in spent]

    def add_batch(self, batch_id: str, model: str, keys: Sequence[str]) -> None:
        """Remember a batch as soon as it is created: the model it asks and the keys of its requests (`keys.request_key`),
        so that a run stopped before its replies arrive polls it again instead of submitting its requests anew."""
        with self._transaction() as db:
            db.execute("INSERT OR REPLACE INTO batches VALUES (?, ?, ?, ?, 0)",
                       (batch_id, model, json.dumps(list(keys)), time.time()))

    def batches_read(self, batch_ids: Iterable[str]) -> None:
        """Remember that these batches' replies were read (their errors stored): a later run asks those again."""
        with self._transaction() as db:
            db.executemany("UPDATE batches SET read = 1 WHERE id = ?", [(batch_id,) for batch_id in batch_ids])

    def batches(self, model: str) -> list[tuple[str, frozenset[str], bool]]:
        """The batches submitted for `model`, oldest first: (id, the keys of its requests, whether its replies were read)."""
        return [(batch_id, frozenset(keys), read) for batch_id, keys, read in self._select(
            "batches", ("id", "keys", "read"), "WHERE model = ? ORDER BY created, rowid", (model,))]

    def matches_played(self, keys: Iterable[str]) -> set[str]:
        """The keys among `keys` of games stored with a result (not void)."""
        return {key for (key,) in self._in("SELECT key FROM matches WHERE void = 0 AND key IN ({})", list(keys))}

    def matches_settled(self, keys: Iterable[str], attempts: int) -> set[str]:
        """The keys among `keys` not to play again: stored with a result, or void after `attempts` plays."""
        return {key for (key,) in self._in(f"SELECT key FROM matches WHERE (void = 0 OR attempts >= {int(attempts)}) "
                                           "AND key IN ({})", list(keys))}

    def game_rows(self) -> list[GameRow]:
        """Every planned game stored with a result, in plan order: what the report's games section reads.

        Raises:
            StoreError: a stored record is not what codebench writes.
        """
        plan = self.plan()
        if plan is None or not plan.matches:
            return []
        records = dict(self._select("matches", ("key", "record"), "WHERE void = 0"))
        secret = self.games_secret() or ""
        rows = [GameRow(planned.key, planned.game, planned.level, planned.seed, planned.players, records[planned.key], secret)
                for planned in plan.matches if planned.key in records]
        for row in rows:
            record = row.record
            results = record["outcome"]["results"]  # None: a game of one player, scored only
            seats = {len(row.players), *map(len, (record["statuses"], record["seats"], record.get("details", row.players),
                                                  record["outcome"]["scores"], row.players if results is None else results))}
            if len(seats) > 1 or any(move["player"] >= len(row.players) for move in record["moves"]):
                raise self._damaged(f"the record of matches row {row.key!r} does not have a seat for each of its "
                                    f"{len(row.players)} players")
        return shown(rows)

    def _in(self, sql: str, keys: list[str]) -> Iterator[tuple[Any, ...]]:
        for start in range(0, len(keys), CHUNK):
            chunk = keys[start:start + CHUNK]
            yield from self._read(sql.format(", ".join("?" * len(chunk))), tuple(chunk))

    # -- what reports read -----------------------------------------------------------------------------------
    def report_rows(self) -> list[ExecutionRow]:
        """One row per (planned sample, instance) with a result: what the report aggregates.

        Raises:
            StoreError: the rows do not fit together (a planned instance missing, a meta field not JSON).
        """
        try:
            return shown(self._report_rows())
        except (KeyError, TypeError, ValueError) as exc:
            raise self._damaged(f"its rows do not fit together ({type(exc).__name__}: {exc})") from None

    def _damaged(self, why: str) -> StoreError:
        """One error line naming the run and what in it is not what codebench writes (shown `harmless`)."""
        return StoreError(f"{self.path} is damaged: {harmless(why)}; re-run into a new --out directory")

    def _report_rows(self) -> list[ExecutionRow]:
        plan = self.plan()
        if plan is None:
            return []
        readings, replies = {}, {}
        for key, read_status, read_detail, program, truncated, hedged, prompt, completion, reasoning in self._select(
                "samples", ("key", "read_status", "read_detail", "program_key", "truncated", "hedged", "prompt_tokens",
                            "completion_tokens", "reasoning_tokens")):
            readings[key] = (read_status, read_detail, program)
            replies[key] = _Reply(bool(truncated), hedged, prompt, completion, reasoning)
        rows = []
        for planned, judged in self._judged(plan, readings, outputs=False):
            reply = replies[planned.key]
            for found in judged:
                shortest = found.meta.get("min_solution_length")
                shortest = shortest if isinstance(shortest, int) and not isinstance(shortest, bool) else None
                execution = found.execution
                steps = execution.steps_applied if execution else None
                rows.append(ExecutionRow(planned.model, planned.mode, planned.puzzle, found.level, found.instance_id,
                                         planned.sample, found.status, found.detail, found.complexity,
                                         progress(steps, shortest), execution.first_illegal_step if execution else None,
                                         tuple(issue["code"] for issue in execution.issues) if execution else (), steps,
                                         shortest, reply.truncated, reply.hedged, reply.prompt_tokens, reply.completion_tokens,
                                         reply.reasoning_tokens))
        return rows

    def _judged(self, plan: StoredPlan, readings: Mapping[str, tuple[str | None, str | None, str | None]], *,
                outputs: bool) -> Iterator[tuple[PlannedSample, list[_Judged]]]:
        """The one join of results (planned sample × instance × execution) that every reader of them walks: each planned
        sample stored (`readings`: its read status, read detail and program key, by sample key), in plan order, with
        each instance it is judged on that has a verdict: its read status where that holds, else its program's
        execution there, found by its key (`outputs`: with what the program printed). A sample not asked yet (an
        interrupted run, a budget) is left out, and so is an instance its program has not run on yet.

        Raises:
            KeyError: a planned instance is not stored.
        """
        instances = {instance_id: (level, complexity, meta) for instance_id, level, complexity, meta
                     in self._select("instances", ("id", "level", "lambda", "meta"), LEVELLED)}
        printed = ("stdout", "stderr") if outputs else ()
        executions = {}
        for key, status, detail, issues, first_illegal, steps, cpu_s, wall_s, peak_mib, *output in self._select(
                "executions", ("key", "status", "detail", "issues", "first_illegal_step", "steps_applied", "cpu_s", "wall_s",
                               "peak_mib", *printed)):
            stdout, stderr = output or ("", "")
            executions[key] = (status, detail, ExecutionDetail(tuple(issues), first_illegal, steps, cpu_s, wall_s, peak_mib,
                                                               stdout or "", stderr or ""))
        for planned in plan.samples:
            reading = readings.get(planned.key)
            if reading is None:
                continue  # not requested yet (the run was interrupted)
            read_status, read_detail, program = reading
            judged = []
            for instance_id in plan.judged_on(planned):
                level, complexity, meta = instances[instance_id]
                if read_status is not None:
                    judged.append(_Judged(instance_id, level, complexity, meta, read_status, read_detail or "", None))
                elif program is not None:
                    found = executions.get(execution_key(program, instance_id, meta, plan.limits))
                    if found is not None:  # else not executed yet
                        judged.append(_Judged(instance_id, level, complexity, meta, *found))
            yield planned, judged

    def planned_cells(self) -> list[PlannedCell]:
        """The results the plan asks of each model × mode × puzzle × level (every planned sample on each instance it is
        judged on), in plan order: what a report compares with what is stored, to say what is missing."""
        plan = self.plan()
        if plan is None:
            return []
        levels = dict(self._select("instances", ("id", "level"), LEVELLED))
        asked: Counter[tuple[str, str, str, int]] = Counter()
        try:
            for planned in plan.samples:
                for instance_id in plan.judged_on(planned):
                    asked[(planned.model, planned.mode, planned.puzzle, levels[instance_id])] += 1
        except KeyError as exc:
            raise self._damaged(f"a planned instance is missing ({exc})") from None
        return shown([PlannedCell(*key, results) for key, results in asked.items()])

    def unplayed_games(self) -> tuple[int, int]:
        """(void, missing): the planned games stored void (the sandbox or the endpoint broke them; played again on a
        resume) and those not stored at all (interrupted, or held by a budget)."""
        plan = self.plan()
        if plan is None or not plan.matches:
            return 0, 0
        void = dict(self._in("SELECT key, void FROM matches WHERE key IN ({})", [m.key for m in plan.matches]))
        return sum(1 for m in plan.matches if void.get(m.key) == 1), sum(1 for m in plan.matches if m.key not in void)

    def usage(self) -> list[SampleUsage]:
        """The token counts of every stored request (a request with no count: 0): the plan's in plan order, then those
        asked under an earlier plan of this directory (a renamed label, other samples or puzzles: paid for all the same)
        under the model, mode and puzzle they were asked for; then those of each stored game's model seats in instruction
        mode, the plan's first; then what replies no stored sample or game holds cost (`spent`): what cost and the budgets
        add up. A request stands for every planned sample that shares its key, so it is counted once.

        Raises:
            StoreError: a stored sample or game record is not what codebench writes.
        """
        plan = self.plan()
        if plan is None:
            return []
        stored = {key: _split(SampleUsage(model, mode, puzzle, prompt or 0, completion or 0, reasoning or 0, 1 + retries,
                                          (1 + retries) * (prompt is None or completion is None)),
                              [_usage(part) for part in sources or ()])
                  for key, model, mode, puzzle, prompt, completion, reasoning, retries, sources in self._select(
                      "samples", ("key", "model", "mode", "puzzle", "prompt_tokens", "completion_tokens", "reasoning_tokens",
                                  "format_retries", "reply_sources"), "ORDER BY created")}
        usages = []
        for planned in plan.samples:
            if planned.key in stored:
                usages += [replace(usage, model=planned.model, mode=planned.mode, puzzle=planned.puzzle)
                           for usage in stored.pop(planned.key)]
        games = self.game_rows()
        played = {row.key for row in games}
        earlier = [record for key, record in self._select("matches", ("key", "record"), "WHERE void = 0 ORDER BY created")
                   if harmless(key) not in played]
        usages += [usage for split in stored.values() for usage in split]
        return (shown(usages) + [usage for row in games for usage in match_usage(row.record)]
                + shown([usage for record in earlier for usage in match_usage(record)] + self.spent()))

    def instance_facts(self) -> list[InstanceFacts]:
        """Every distinct planned instance with its generator's reference metrics and the other seeds that drew it, in plan
        order: what the difficulty table and the report's count of distinct instances read.

        Raises:
            StoreError: an instance's meta is not JSON, or a planned instance is missing.
        """
        plan = self.plan()
        if plan is None:
            return []
        stored = {instance_id: (level, meta) for instance_id, level, meta in self._select("instances", ("id", "level", "meta"), LEVELLED)}
        try:
            return shown([InstanceFacts(puzzle, stored[instance_id][0], instance_id, stored[instance_id][1],
                                        plan.alike.get(instance_id, ()))
                          for puzzle, ids in plan.instances.items() for instance_id in ids])
        except (KeyError, TypeError, ValueError) as exc:
            raise self._damaged(f"its instances do not fit the plan ({type(exc).__name__}: {exc})") from None

    def execution_totals(self) -> tuple[int, float]:
        """How many executions are stored, and their summed wall time as the sandbox measured each."""
        count, seconds = self._read("SELECT COUNT(*), COALESCE(SUM(wall_s), 0) FROM executions")[0]
        return count, seconds

    def samples_per_question(self) -> int:
        """The most samples the plan draws of one prompt (the n of pass@k); 0 before any plan."""
        return max((sample + 1 for (sample,) in self._select("plan_samples", ("sample",))), default=0)

    def sample_details(self) -> list[SampleDetail]:
        """Every stored sample of the plan, in plan order, with each instance it is judged on and the execution behind
        that verdict: the HTML report's drill-down. Joined by the join `report_rows` walks (`_judged`), so its statuses are the
        report's.

        Raises:
            StoreError: the rows do not fit together (a planned instance missing, a stored field not what codebench writes).
        """
        plan = self.plan()
        if plan is None:
            return []
        try:
            samples = self.samples(planned.key for planned in plan.samples)
            readings = {key: (None if sample.reading.status is None else str(sample.reading.status), sample.reading.detail,
                              sample.reading.program.key if sample.reading.program else None)
                        for key, sample in samples.items()}
            # one request may stand for several planned instances that read alike (level-1 Hanoi instances often are):
            # each entry names the instance it was planned for
            return shown([SampleDetail(replace(samples[planned.key], instance_id=planned.instance_id),
                                       tuple(Judgement(found.instance_id, found.level, found.status, found.detail, found.execution)
                                             for found in judged))
                          for planned, judged in self._judged(plan, readings, outputs=True)])
        except (KeyError, TypeError, ValueError) as exc:
            raise self._damaged(f"its rows do not fit together ({type(exc).__name__}: {exc})") from None


@dataclass(frozen=True)
class _Judged:
    """One instance a stored sample is judged on, with its verdict, as the one join (`Store._judged`) finds it."""

    instance_id: str
    level: int
    complexity: float | None  # the instance's scalar λ
    meta: dict[str, Any]  # the instance's meta, as its generator made it
    status: str
    detail: str
    execution: ExecutionDetail | None  # None: the reply's read status (no_code, api_error, …) holds, nothing ran


@dataclass(frozen=True)
class _Reply:
    """What a report row takes from its sample's reply."""

    truncated: bool
    hedged: bool
    prompt_tokens: int | None
    completion_tokens: int | None
    reasoning_tokens: int | None


def _sample(row: tuple[Any, ...]) -> Sample:
    (key, model, base_url, mode, puzzle, instance_id, index, prompt, params, response, finish_reason, truncated,
     prompt_tokens, completion_tokens, latency_s, server_model, error, program_key, read_status, read_detail,
     format_retries, reasoning, reasoning_tokens, retried_replies, hedged, reply_sources, source) = row
    completion = Completion(response or "", finish_reason, bool(truncated), prompt_tokens, completion_tokens, latency_s or 0.0,
                            server_model, error, reasoning, reasoning_tokens)
    program = Program(program_key, source) if program_key is not None and source is not None else None
    reading = Reading(Status(read_status) if read_status else None, read_detail or "", program, hedged)
    return Sample(key, model, base_url, mode, puzzle, index, instance_id, prompt,
                  Sampling(params["temperature"], params["max_tokens"], params["seed"]), completion, reading, format_retries,
                  tuple(retried_replies or ()), tuple(_usage(usage) for usage in reply_sources or ()))


COPY_ATTEMPTS = 10  # copies of a store a writer keeps folding its log into before a reader gives up


def _open_for_reading(path: Path) -> sqlite3.Connection:
    """A connection that reads `path` and creates no file beside it (and so works on a read-only mount).

    Without a -wal file SQLite needs none: the file is opened immutable (no lock, no -shm index). With a -wal and its
    -shm index, both writable, a run may be writing: a read-only connection in place follows SQLite's locks and
    creates nothing. With a -wal alone (a run copied, or stopped, without its index) or where the index cannot be
    written, reading in place would create the index or fail: no writer can be live then (a writer keeps its index),
    so the file and its log are copied into a private folder, folded into one file there and opened immutable, and
    the folder removed at once (an open file stays readable until it is closed).

    Raises:
        StoreError: a writer kept changing the file while it was copied.
        OSError, sqlite3.Error: the file, its log or the private folder cannot be read or written.
    """
    log, index = (path.with_name(path.name + suffix) for suffix in ("-wal", "-shm"))
    for _ in range(COPY_ATTEMPTS):
        if not log.exists():
            return _connect(path, "ro&immutable=1")
        if index.exists() and os.access(index, os.W_OK) and os.access(path.parent, os.W_OK):
            return _connect(path, "ro")
        with tempfile.TemporaryDirectory(prefix="codebench-read-") as folder:
            copy = Path(folder) / path.name
            stamp = _stamp(path)
            try:
                shutil.copyfile(path, copy)
                shutil.copyfile(log, copy.with_name(copy.name + "-wal"))
            except FileNotFoundError:  # a writer closed, folding its log in: read the file alone
                continue
            if _stamp(path) != stamp:  # a writer started and folded its log in meanwhile: the copies may not match
                continue
            folding = sqlite3.connect(copy, isolation_level=None)
            try:
                folding.execute("PRAGMA journal_mode=DELETE")  # the log's commits into the copy, the log removed
            finally:
                folding.close()
            db = _connect(copy, "ro&immutable=1")
            _version(db, path)  # read before its folder goes
            return db
    raise StoreError(f"{path} kept changing while it was copied to be read (a run is writing it): try again")


def _connect(path: Path, mode: str) -> sqlite3.Connection:
    return sqlite3.connect(f"{path.resolve().as_uri()}?mode={mode}", uri=True, check_same_thread=False, isolation_level=None)


def _stamp(path: Path) -> tuple[int, int, int]:
    """What changes when a file is written: its inode, size and modification time."""
    found = path.stat()
    return found.st_ino, found.st_size, found.st_mtime_ns


def _version(db: sqlite3.Connection, path: Path) -> int:
    """The schema version; 0 for an empty file.

    Raises:
        StoreError: the file holds another tool's tables.
        SchemaVersionError: a version newer than this codebench reads.
    """
    version = db.execute("PRAGMA user_version").fetchone()[0]
    tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if version > SCHEMA_VERSION:
        raise SchemaVersionError(f"{path} was written by a newer codebench (schema {version}; this one reads up to "
                                 f"{SCHEMA_VERSION}): upgrade codebench, or give a new --out directory")
    if version not in (0, *TABLES) or (version == 0 and tables):
        raise StoreError(f"{path} is not a codebench run database (it holds tables {', '.join(sorted(tables))}): "
                         "give a new --out directory")
    if version and TABLES[version] - tables:
        raise StoreError(f"{path} is damaged: it lacks the tables {', '.join(sorted(TABLES[version] - tables))}")
    return version


def _create(db: sqlite3.Connection) -> None:
    db.executescript(f"BEGIN IMMEDIATE;\n{SCHEMA}\nPRAGMA user_version={SCHEMA_VERSION};\nCOMMIT;")


def _migrate(db: sqlite3.Connection, version: int) -> None:
    """Bring a database of an earlier version to the current schema, in one transaction."""
    db.execute("BEGIN IMMEDIATE")
    try:
        if version < 5:
            for statement in MATCH_TABLES.split(";"):  # games: none played before
                if statement.strip():
                    db.execute(statement)
        elif version == 5:
            _migrate_5_to_6(db)
        if version < 2:
            _migrate_1_to_2(db)
        if version < 3:
            for statement in MIGRATE_2_TO_3.split(";"):  # reasoning, and how far a trajectory got: unknown before
                if statement.strip():
                    db.execute(statement)
        if version < 4:
            db.execute(MIGRATE_3_TO_4)  # the replies that got a format retry: not kept before
        if version < 7:
            _migrate_6_to_7(db)
        if version < 8:
            db.execute(MIGRATE_7_TO_8)  # every reply was asked directly before
            db.execute(BATCH_TABLE)  # and no batch submitted
        if version < 9:
            db.execute(STEP_TABLE)  # no adaptive search run
        db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
    except (AttributeError, KeyError, TypeError, ValueError, RecursionError) as exc:  # a stored plan or record of another shape
        db.execute("ROLLBACK")  # said as SQLite's own errors are, by whoever opened the file: one line that names it
        raise sqlite3.DatabaseError(f"its rows cannot be brought to schema {SCHEMA_VERSION}, "
                                    f"{type(exc).__name__}: {harmless(str(exc))[:200]}") from None
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def _migrate_5_to_6(db: sqlite3.Connection) -> None:
    """Count each stored game as played once, and write into each record who sat in each seat and the tokens an
    instruction-mode seat used, read (this once) from the players' names, "MODEL (MODE)" or a built-in's name."""
    db.execute("ALTER TABLE matches ADD COLUMN attempts INTEGER NOT NULL DEFAULT 1")
    for key, game, players, text in db.execute("SELECT key, game, players, record FROM matches").fetchall():
        record = json.loads(text)
        entries = []
        for player, label in zip(json.loads(players), record.get("seats", [])):
            model, _, mode = player[:-1].rpartition(" (") if player.endswith(")") else (None, "", "")
            entries.append({"player": player, "model": model, "mode": mode, "sample": int(label.rpartition("#")[2] or 0)
                            if model else 0})
        record["entries"] = entries
        record["usage"] = [asdict(SampleUsage.of_seat(entry["model"], game, kept)) if entry["mode"] == ModeName.INSTRUCTION else None
                           for entry, kept in zip(entries, record.get("kept", []))]
        db.execute("UPDATE matches SET record = ? WHERE key = ?", (json.dumps(record, sort_keys=True), key))


def _migrate_6_to_7(db: sqlite3.Connection) -> None:
    """Whether each stored reply hedged, as the modes now decide it when they read one (a reply that is not text is left
    unhedged here, for the read boundary to name)."""
    db.execute(MIGRATE_6_TO_7)
    db.executemany("UPDATE samples SET hedged = 1 WHERE key = ?",
                   [(key,) for key, response in db.execute("SELECT key, response FROM samples")
                    if isinstance(response, str) and hedges(response)])


def _migrate_1_to_2(db: sqlite3.Connection) -> None:
    old = db.execute("SELECT value FROM meta WHERE key = 'plan'").fetchone()
    for statement in MIGRATE_1_TO_2.split(";"):
        if statement.strip():
            db.execute(statement)
    db.execute("UPDATE samples SET read_status = NULL WHERE read_status = 'ok'")  # version 1's word for "a program"
    db.execute("UPDATE samples SET read_status = ? WHERE error IS NOT NULL", (str(Status.API_ERROR),))
    if old is not None:
        plan = json.loads(old[0])
        samples = tuple(PlannedSample(key, model, plan["mode"], puzzle, None, index)
                        for key, model, puzzle, index in plan["samples"])
        _write_plan(db, StoredPlan({s.model: plan["base_url"] for s in samples}, Limits(**plan["limits"]), samples,
                                   {name: tuple(ids) for name, ids in plan["instances"].items()}))
        db.execute("DELETE FROM meta WHERE key = 'plan'")


def _write_plan(db: sqlite3.Connection, plan: StoredPlan) -> None:
    db.execute("DELETE FROM plan_samples")
    db.execute("DELETE FROM plan_instances")
    db.execute("DELETE FROM plan_matches")
    db.executemany("INSERT INTO plan_matches VALUES (?, ?, ?, ?, ?, ?)",
                   [(i, m.key, m.game, m.level, m.seed, json.dumps(list(m.players))) for i, m in enumerate(plan.matches)])
    db.executemany("INSERT INTO plan_samples VALUES (?, ?, ?, ?, ?, ?, ?)",
                   [(i, s.key, s.model, s.mode, s.puzzle, s.instance_id, s.sample) for i, s in enumerate(plan.samples)])
    db.executemany("INSERT INTO plan_instances VALUES (?, ?, ?)",
                   [(i, puzzle, instance_id) for i, (puzzle, instance_id)
                    in enumerate((p, r) for p, ids in plan.instances.items() for r in ids)])
    db.execute("INSERT OR REPLACE INTO meta VALUES ('run', ?)",
               (json.dumps({"base_urls": plan.base_urls, "limits": asdict(plan.limits), "alike": plan.alike}, sort_keys=True),))
