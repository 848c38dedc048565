"""The response cache (`--cache DIR`): replies kept by request, shared by every run that names the folder.

One SQLite file, `DIR/replies.sqlite`, in WAL mode with a busy timeout, so runs in several processes share it: one
writer at a time, readers never blocked. A reply is written whole in one transaction as it arrives (a crash loses at
most the one being written, never half of one), and only a usable one: a reply with an error (`api_error`) is never
kept, so it is asked again. A request is found by `keys.request_key` (who asks, as the store keys samples: model label,
served name, endpoint, prompt, sampling with seed and sample index, request fields; then the whole conversation and its
own seed), so a kept reply answers only the identical request. What the file holds is checked as it is read, as the
run store's fields are: an entry that is not what codebench writes is a miss, asked anew and replaced.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from pathlib import Path

from ..errors import StoreError
from ..types import Completion, ReplySource, harmless
from ._fields import Damaged, conform, count, flag, maybe, number, text

FILE = "replies.sqlite"
VERSION = 1  # PRAGMA user_version of a cache codebench wrote
BUSY_TIMEOUT_MS = 60_000  # how long a writer waits for another process's write to end
SCHEMA = "CREATE TABLE replies (key TEXT PRIMARY KEY, reply TEXT NOT NULL, created REAL NOT NULL)"
REPLY = {"text": text, "finish_reason": maybe(text), "truncated": flag, "prompt_tokens": maybe(count),
         "completion_tokens": maybe(count), "latency_s": number, "server_model": maybe(text), "reasoning": maybe(text),
         "reasoning_tokens": maybe(count), "notes": [text]}


class ReplyCache:
    """The cache in `folder` (made if missing); thread-safe. `get` a reply by its request key, `put` one that arrived."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / FILE
        self.lock = threading.Lock()
        try:
            folder.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000)
            self.db.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self._create()
        except (sqlite3.Error, OSError) as exc:
            raise StoreError(f"cannot use {self.path} as a response cache ({harmless(str(exc))}): give another --cache "
                             "folder, or --no-cache") from None

    def _create(self) -> None:
        """The table, in a new file; an existing file must be a cache codebench wrote."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            version = self.db.execute("PRAGMA user_version").fetchone()[0]
            tables = {name for (name,) in self.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if version == 0 and not tables:
                self.db.execute(SCHEMA)
                self.db.execute(f"PRAGMA user_version={VERSION}")
            elif version != VERSION or "replies" not in tables:
                raise sqlite3.DatabaseError("it is not a codebench response cache, or one of another version")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    def get(self, key: str) -> Completion | None:
        """The reply kept for the request `key`, marked as coming from the cache; None: none kept (or one damaged).

        Raises:
            StoreError: the file cannot be read.
        """
        with self.lock:
            try:
                row = self.db.execute("SELECT reply FROM replies WHERE key = ?", (key,)).fetchone()
            except sqlite3.Error as exc:
                raise StoreError(f"cannot read the response cache {self.path} ({harmless(str(exc))}): give another --cache "
                                 "folder, or --no-cache") from None
        if row is None:
            return None
        try:
            found = conform(json.loads(text(row[0])), REPLY)
        except (Damaged, ValueError, RecursionError):
            return None
        return Completion(found["text"], found["finish_reason"], found["truncated"], found["prompt_tokens"],
                          found["completion_tokens"], found["latency_s"], found["server_model"], None, found["reasoning"],
                          found["reasoning_tokens"], tuple(found["notes"]), ReplySource.CACHE)

    def put(self, key: str, completion: Completion) -> None:
        """Keep a usable reply (one with an error is not kept); a reply kept already for `key` stays.

        Raises:
            StoreError: the file cannot be written (disk full, read-only).
        """
        if completion.error is not None or completion.reply_source == ReplySource.CACHE:
            return
        reply = completion
        record = {"text": reply.text, "finish_reason": reply.finish_reason, "truncated": reply.truncated,
                  "prompt_tokens": reply.prompt_tokens, "completion_tokens": reply.completion_tokens,
                  "latency_s": reply.latency_s, "server_model": reply.server_model, "reasoning": reply.reasoning,
                  "reasoning_tokens": reply.reasoning_tokens, "notes": list(reply.notes)}
        with self.lock:
            try:
                self.db.execute("INSERT OR IGNORE INTO replies VALUES (?, ?, ?)", (key, json.dumps(record), time.time()))
            except sqlite3.Error as exc:
                raise StoreError(f"cannot write to the response cache {self.path} ({harmless(str(exc))}): free space or fix "
                                 "its permissions, or give --no-cache") from None

    def close(self) -> None:
        with self.lock:
            self.db.close()
