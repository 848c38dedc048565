"""The run database: one SQLite file (WAL) per run directory; the only module that imports sqlite3.

Everything is keyed by content hashes, so re-running the same command finds finished work and
changed inputs get new keys: samples by (model, base URL, prompt, sampling parameters, index),
programs by their source, executions by (program, instance, puzzle version, limits).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCHEMA_VERSION = 1
SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS instances (
    id TEXT PRIMARY KEY, puzzle TEXT NOT NULL, level INTEGER, seed INTEGER NOT NULL,
    lambda REAL, instance TEXT NOT NULL, meta TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS samples (
    key TEXT PRIMARY KEY, model TEXT NOT NULL, base_url TEXT NOT NULL, mode TEXT NOT NULL, puzzle TEXT NOT NULL,
    sample INTEGER NOT NULL, prompt TEXT NOT NULL, params TEXT NOT NULL,
    response TEXT, finish_reason TEXT, truncated INTEGER, prompt_tokens INTEGER, completion_tokens INTEGER,
    latency_s REAL, server_model TEXT, error TEXT,
    program_key TEXT, extract_status TEXT, extract_detail TEXT, created REAL NOT NULL);
CREATE TABLE IF NOT EXISTS programs (key TEXT PRIMARY KEY, source TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS executions (
    key TEXT PRIMARY KEY, program_key TEXT NOT NULL, instance_id TEXT NOT NULL, status TEXT NOT NULL,
    detail TEXT NOT NULL, issues TEXT NOT NULL, cpu_s REAL, wall_s REAL, peak_mib REAL,
    stdout TEXT, stderr TEXT, created REAL NOT NULL);
"""


def content_key(*parts: Any) -> str:
    """sha256 of the canonical JSON of `parts`: the same inputs give the same key in any process."""
    return hashlib.sha256(json.dumps(parts, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


class StoreError(Exception):
    """The run database cannot be used (wrong schema version, unreadable file)."""


@dataclass(frozen=True)
class StoredSample:
    key: str
    model: str
    puzzle: str
    sample: int
    error: str | None
    program_key: str | None
    extract_status: str | None
    completion_tokens: int | None


class Store:
    """Thread-safe access to one run database (sandbox callbacks write from worker threads)."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.lock = threading.Lock()
        self.db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        version = self.db.execute("PRAGMA user_version").fetchone()[0]
        if version not in (0, SCHEMA_VERSION):
            raise StoreError(f"{path} has schema version {version}; this codebench reads {SCHEMA_VERSION}: use a new --out")
        self.db.executescript(SCHEMA)
        self.db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")

    def close(self) -> None:
        with self.lock:
            self.db.close()

    def _write(self, sql: str, values: tuple[Any, ...]) -> None:
        with self.lock:
            self.db.execute(sql, values)

    def _read(self, sql: str, values: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with self.lock:
            return self.db.execute(sql, values).fetchall()

    # -- writing -------------------------------------------------------------------------------------
    def set_meta(self, key: str, value: Any) -> None:
        self._write("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, json.dumps(value, sort_keys=True)))

    def add_instance(self, record_id: str, puzzle: str, level: int | None, seed: int, lam: float | None,
                     instance: dict[str, Any], meta: dict[str, Any]) -> None:
        self._write("INSERT OR IGNORE INTO instances VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (record_id, puzzle, level, seed, lam, json.dumps(instance), json.dumps(meta)))

    def add_sample(self, key: str, fields: dict[str, Any]) -> None:
        columns = ["key", *fields, "created"]
        self._write(f"INSERT OR REPLACE INTO samples ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})",
                    (key, *fields.values(), time.time()))

    def add_program(self, source: str) -> str:
        key = content_key("program", source)
        self._write("INSERT OR IGNORE INTO programs VALUES (?, ?)", (key, source))
        return key

    def add_execution(self, key: str, program_key: str, instance_id: str, outcome: dict[str, Any]) -> None:
        self._write("INSERT OR REPLACE INTO executions VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (key, program_key, instance_id, outcome["status"], outcome["detail"], json.dumps(outcome["issues"]),
                     outcome["cpu_s"], outcome["wall_s"], outcome["peak_mib"], outcome["stdout"], outcome["stderr"], time.time()))

    # -- reading -------------------------------------------------------------------------------------
    def sample(self, key: str) -> StoredSample | None:
        rows = self._read("SELECT key, model, puzzle, sample, error, program_key, extract_status, completion_tokens "
                          "FROM samples WHERE key = ?", (key,))
        return StoredSample(*rows[0]) if rows else None

    def program(self, key: str) -> str:
        return self._read("SELECT source FROM programs WHERE key = ?", (key,))[0][0]

    def executed(self, keys: list[str]) -> dict[str, str]:
        """{execution key: status} for the keys already stored."""
        found: dict[str, str] = {}
        for start in range(0, len(keys), 500):
            chunk = keys[start:start + 500]
            found.update(self._read(f"SELECT key, status FROM executions WHERE key IN ({', '.join('?' * len(chunk))})",
                                    tuple(chunk)))
        return found

    def meta(self, key: str) -> Any:
        rows = self._read("SELECT value FROM meta WHERE key = ?", (key,))
        return json.loads(rows[0][0]) if rows else None

    def table(self, sql: str, values: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """A read-only query for reports."""
        return self._read(sql, values)
