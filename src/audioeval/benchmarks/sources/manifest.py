"""Local manifests: JSONL (one object per line), JSON (a list, or an object of id → item), CSV."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from audioeval.core.errors import InputError


def read_rows(path: Path, kind: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line or index, row) pairs; a malformed line is an InputError naming file and line."""
    if not path.is_file():
        raise InputError("manifest file not found", file=str(path))
    if kind == "jsonl":
        yield from _jsonl(path)
    elif kind == "json":
        yield from _json(path)
    elif kind == "csv":
        with path.open(newline="", encoding="utf-8") as fh:
            for i, row in enumerate(csv.DictReader(fh), start=2):
                yield i, dict(row)
    else:  # pragma: no cover - guarded by the spec's Literal
        raise InputError(f"unsupported manifest type {kind!r}", file=str(path))


def _jsonl(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    with path.open(encoding="utf-8") as fh:
        for line_no, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except ValueError as exc:
                raise InputError(f"malformed JSON ({exc.args[0]})", file=str(path), line=line_no) from None
            if not isinstance(row, dict):
                raise InputError("each line must be a JSON object", file=str(path), line=line_no)
            yield line_no, row


def _json(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise InputError(f"malformed JSON ({exc})", file=str(path)) from None
    if isinstance(data, dict):
        data = [{"id": k, **v} if isinstance(v, dict) else v for k, v in data.items()]
    if not isinstance(data, list):
        raise InputError("expected a list of items or an object of id -> item", file=str(path))
    for i, row in enumerate(data):
        if not isinstance(row, dict):
            raise InputError(f"item {i} is not an object", file=str(path))
        yield i, row
