"""A SQLite cache of raw model responses, keyed by the content of the request.

The key hashes everything that determines an answer: model name, sampling parameters,
the messages with each audio clip replaced by the SHA-256 of its encoded bytes, and the
vote index. Only answers their caller accepts are stored (a successful HTTP response whose
text is non-empty and passes the caller's check: a parseable verdict, decodable audio);
errors and unusable answers are always asked again. On reading, an entry the caller's check
rejects (stored by an older version) counts as a miss, so such a cache heals itself. An answer
is stored without the credentials in use (`core.redact.redact_known`), as every file is.

Each `put` is committed at once (in WAL mode with synchronous=NORMAL a commit is a write to
the WAL, no fsync), so a killed process loses no answer it had received. WAL checkpoints, the
only step that waits for the disk (fsync), run in a background thread instead of inside
whichever `put` crosses SQLite's auto-checkpoint threshold: there they stopped the caller
(the event loop of a judge run) for 5–35 ms every few hundred answers.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from audioeval.core.redact import redact_known


def request_key(parts: dict[str, Any]) -> str:
    """SHA-256 of `json.dumps(parts, sort_keys=True, ensure_ascii=False, separators=(",", ":"))`
    (the keys of the answers already stored)."""
    return hashlib.sha256(_KEY_ENCODER.encode(parts).encode("utf-8")).hexdigest()


_KEY_ENCODER = json.JSONEncoder(sort_keys=True, ensure_ascii=False, separators=(",", ":"))
"""Built once: `json.dumps` builds an encoder per call when given options."""


BUSY_TIMEOUT_S = 60.0  # how long a write waits for another process sharing the file (--judge-cache)


class ResponseCache:
    def __init__(self, path: str | Path, *, checkpoint_interval_s: float = 1.0) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        self.hits = 0
        self.misses = 0
        self.rejected = 0  # entries found but refused by the caller's check (asked again)
        self._puts = 0
        self._stop = threading.Event()
        self._checkpointer = threading.Thread(
            target=self._checkpoint_loop, args=(checkpoint_interval_s,), name="response-cache", daemon=True
        )

    def _conn(self) -> sqlite3.Connection:
        """The database, opened on first use (call with the lock held)."""
        if self._db is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(
                str(self.path), check_same_thread=False, isolation_level=None, timeout=BUSY_TIMEOUT_S
            )
            _set_wal(db)
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute("PRAGMA wal_autocheckpoint=0")  # the background thread checkpoints
            db.execute("CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, text TEXT NOT NULL)")
            self._db = db
            self._checkpointer.start()
        return self._db

    def get(self, key: str, accept: Callable[[str], bool] | None = None) -> str | None:
        """The stored answer, or None when there is none or `accept` refuses it."""
        with self._lock:
            row = self._conn().execute("SELECT text FROM responses WHERE key = ?", (key,)).fetchone()
        if row is None:
            self.misses += 1
            return None
        text = str(row[0])
        if accept is not None and not accept(text):
            self.rejected += 1
            self.misses += 1
            return None
        self.hits += 1
        return text

    def put(self, key: str, text: str) -> None:
        """Store an answer; the credentials in use are cut from it (`core.redact.redact_known`: a
        model may echo its key in an answer it gives)."""
        text = redact_known(text)
        with self._lock:
            self._conn().execute("INSERT OR REPLACE INTO responses (key, text) VALUES (?, ?)", (key, text))
            self._puts += 1

    def _checkpoint_loop(self, interval_s: float) -> None:
        """Copy committed answers from the WAL into the database now and then."""
        conn = sqlite3.connect(
            str(self.path), check_same_thread=False, isolation_level=None, timeout=BUSY_TIMEOUT_S
        )
        try:
            done = 0
            while not self._stop.wait(interval_s):
                puts = self._puts
                if puts != done:
                    # PASSIVE: copies what it can without blocking readers or the writer.
                    conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
                    done = puts
        finally:
            conn.close()

    def close(self) -> None:
        if self._stop.is_set():
            return
        self._stop.set()
        with self._lock:
            if self._db is None:
                return
        self._checkpointer.join()
        with self._lock:
            self._db.close()  # the last connection to close checkpoints the WAL


def _set_wal(db: sqlite3.Connection) -> None:
    """Switch the file to WAL. Another process opening the same new file at the same moment
    can hold the lock this needs; SQLite then answers "database is locked" at once, without
    its busy handler, so the switch is tried again until `BUSY_TIMEOUT_S` has passed."""
    deadline = time.monotonic() + BUSY_TIMEOUT_S
    while True:
        try:
            db.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.05)
