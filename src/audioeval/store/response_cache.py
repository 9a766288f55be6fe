"""A SQLite cache of raw model responses, keyed by the content of the request.

The key hashes everything that determines an answer: model name, sampling parameters,
the messages with each audio clip replaced by the SHA-256 of its encoded bytes, and the
vote index. Only successful HTTP responses are stored; errors are always retried.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from pathlib import Path
from typing import Any


def request_key(parts: dict[str, Any]) -> str:
    blob = json.dumps(parts, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class ResponseCache:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, text TEXT NOT NULL)")
        self.hits = 0
        self.misses = 0

    def get(self, key: str) -> str | None:
        with self._lock:
            row = self._db.execute("SELECT text FROM responses WHERE key = ?", (key,)).fetchone()
        if row is None:
            self.misses += 1
            return None
        self.hits += 1
        return str(row[0])

    def put(self, key: str, text: str) -> None:
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO responses (key, text) VALUES (?, ?)", (key, text))

    def close(self) -> None:
        with self._lock:
            self._db.close()
