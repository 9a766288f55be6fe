"""Local manifests: JSONL (one object per line), JSON (a list, or an object of id → item), CSV."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from audioeval.core.errors import InputError
from audioeval.store.bounded_json import loads
from audioeval.store.text_input import read_text_input, text_lines


def read_rows(path: Path, kind: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line or index, row) pairs; a malformed line is an InputError naming file and line."""
    text = read_text_input(path, "manifest")
    if kind == "jsonl":
        yield from _jsonl(text, str(path))
    elif kind == "json":
        yield from _json(text, str(path))
    elif kind == "csv":
        for i, row in enumerate(csv.DictReader(io.StringIO(text, newline="")), start=2):
            yield i, dict(row)
    else:  # pragma: no cover - guarded by the spec's Literal
        raise InputError(f"unsupported manifest type {kind!r}", file=str(path))


def _jsonl(text: str, file: str) -> Iterator[tuple[int, dict[str, Any]]]:
    for line_no, line in enumerate(text_lines(text), start=1):
        if not line.strip():
            continue
        try:
            row = loads(line)
        except ValueError as exc:
            raise InputError(f"malformed JSON ({exc.args[0]})", file=file, line=line_no) from None
        if not isinstance(row, dict):
            raise InputError("each line must be a JSON object", file=file, line=line_no)
        yield line_no, row


def _json(text: str, file: str) -> Iterator[tuple[int, dict[str, Any]]]:
    try:
        data = loads(text)
    except ValueError as exc:
        raise InputError(f"malformed JSON ({exc})", file=file, line=getattr(exc, "lineno", None)) from None
    keys: list[Any] | None = None
    if isinstance(data, dict):
        keys = list(data)
        data = [{"id": k, **v} if isinstance(v, dict) else v for k, v in data.items()]
    if not isinstance(data, list):
        raise InputError("expected a list of items or an object of id -> item", file=file)
    for i, row in enumerate(data):
        if not isinstance(row, dict):
            what = f"item {i}" if keys is None else f"item {keys[i]!r}"
            raise InputError(
                f"{what} is not an object (expected a list of items, or an object of id -> item), "
                f"got {type(row).__name__}",
                file=file,
            )
        yield i, row
