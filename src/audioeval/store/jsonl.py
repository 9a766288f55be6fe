"""Append-only, crash-safe JSONL files.

Every record is written as one complete line and flushed to the OS at once, so a process
killed at any moment (kill -9) leaves at most one partial last line. Opening a file for
append first cuts such a partial tail, so the next record never glues onto it. fsync runs at
most every `fsync_interval_s` seconds and on close, keeping disk waits off the hot path.
The API keys in use are cut from every line (`core.redact`: one substring test per key).
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from audioeval.core.json_value import JsonValue
from audioeval.core.redact import redact_known_bytes
from audioeval.store.bounded_json import loads


@dataclass
class JsonlReadReport:
    """What reading a JSONL file found: the records and the lines that were not records."""

    records: list[dict[str, JsonValue]] = field(default_factory=list)
    bad_lines: list[int] = field(default_factory=list)
    line_numbers: list[int] = field(default_factory=list)  # the line of each record, from 1
    truncated_tail: bool = False


def read_jsonl(path: str | Path) -> JsonlReadReport:
    """Read every complete, valid JSON object line; report partial or corrupt lines."""
    report = JsonlReadReport()
    for lineno, obj in iter_jsonl(path, report):
        if obj is None:
            report.bad_lines.append(lineno)
        else:
            report.records.append(obj)
            report.line_numbers.append(lineno)
    return report


def iter_jsonl(
    path: str | Path, report: JsonlReadReport | None = None
) -> Iterator[tuple[int, dict[str, JsonValue] | None]]:
    """(line number from 1, the JSON object or None when the line is not one) of each
    non-blank complete line, read one line at a time (a file is never held whole); a last
    line cut short is left out and noted in `report.truncated_tail`. Lines are numbered as
    `bytes.splitlines` numbers them."""
    p = Path(path)
    if not p.exists():
        return
    lineno = 0
    with open(p, "rb") as fh:
        for chunk in fh:
            if not chunk.endswith(b"\n"):
                if report is not None:
                    report.truncated_tail = True
                return
            for line in chunk.splitlines():  # a bare CR splits too, as in the whole file
                lineno += 1
                if not line.strip():
                    continue
                try:
                    obj = loads(line, nesting=None)
                except json.JSONDecodeError:
                    yield lineno, None
                    continue
                yield lineno, obj if isinstance(obj, dict) else None


def _cut_partial_tail(path: Path) -> None:
    if not path.exists():
        return
    with open(path, "rb+") as fh:
        fh.seek(0, os.SEEK_END)
        size = fh.tell()
        if size == 0:
            return
        fh.seek(size - 1)
        if fh.read(1) == b"\n":
            return
        # Walk back to the last newline and cut everything after it.
        pos = size - 1
        chunk = 4096
        while pos > 0:
            start = max(0, pos - chunk)
            fh.seek(start)
            buf = fh.read(pos - start)
            idx = buf.rfind(b"\n")
            if idx >= 0:
                fh.truncate(start + idx + 1)
                return
            pos = start
        fh.truncate(0)


def naming(exc: OSError, path: Path) -> OSError:
    """`exc` with the file it was writing (a failed write names none)."""
    if exc.filename is not None:
        return exc
    return type(exc)(exc.errno, exc.strerror or str(exc), str(path))


LINE_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), check_circular=False)
"""The encoder of every appended line: `json.dumps(record, ensure_ascii=False, separators=(",",
":"))`, built once (json.dumps builds an encoder per call when given options). Without the
check for circular references (a tenth of the time): a record is a tree of JSON-read values and
`to_json` dicts, and one holding itself would still fail before any byte is written
(RecursionError instead of ValueError)."""


class JsonlAppender:
    """Append records to a JSONL file, one flushed line each."""

    def __init__(self, path: str | Path, *, fsync_interval_s: float = 1.0) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        _cut_partial_tail(self.path)
        self._fh = open(self.path, "ab")
        self._fsync_interval_s = fsync_interval_s
        self._dirty = threading.Event()
        self._closing = threading.Event()
        self._syncer = threading.Thread(target=self._sync_loop, name="jsonl-fsync", daemon=True)
        self._syncer.start()
        self.written = 0

    def _sync_loop(self) -> None:
        while not self._closing.wait(self._fsync_interval_s):
            if self._dirty.is_set():
                self._dirty.clear()
                with contextlib.suppress(OSError, ValueError):  # a full disk: close() reports it
                    os.fsync(self._fh.fileno())

    def append(self, record: dict[str, Any]) -> bool:
        """Write one line; True when it holds `record` as given (False: a secret was redacted)."""
        given = LINE_ENCODER.encode(record).encode("utf-8")
        line = redact_known_bytes(given)  # the API keys in use never reach a file
        try:
            self._fh.write(line + b"\n")
            self._fh.flush()
        except OSError as exc:  # a full disk: the message names the file (a resume cuts the part)
            raise naming(exc, self.path) from None
        if not self._dirty.is_set():  # set() takes a lock and wakes waiters: once per fsync
            self._dirty.set()
        self.written += 1
        return line == given

    def close(self) -> None:
        if self._fh.closed:
            return
        self._closing.set()
        self._syncer.join()
        try:
            self._fh.flush()
            os.fsync(self._fh.fileno())
        except OSError as exc:
            raise naming(exc, self.path) from None
        finally:
            with contextlib.suppress(OSError):  # what could not be written is dropped
                self._fh.close()

    def __enter__(self) -> JsonlAppender:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
