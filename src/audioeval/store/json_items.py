"""Reading a JSON list or a JSONL file of objects, with the line where each item starts."""

from __future__ import annotations

import codecs
import contextlib
import gc
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from audioeval.core.errors import InputError
from audioeval.store.bounded_json import loads
from audioeval.store.text_input import decode_text, not_utf8, read_input_bytes


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """No cyclic garbage collection while parsing: decoded JSON holds no cycles, and the
    collector rescanning every new object made large files load 2-3 times slower."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _jsonl(raw: bytes, file: str, what: str) -> list[tuple[Any, int]]:
    """One object per line; lines split on bytes, so U+2028 inside a string is no break
    (json.loads reads UTF-8 bytes, with a BOM on the first line too)."""
    out: list[tuple[Any, int]] = []
    for lineno, line in enumerate(raw.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            out.append((loads(line), lineno))
        except UnicodeDecodeError as exc:
            raise not_utf8(line, exc.start, file, what, line=lineno) from None
        except json.JSONDecodeError as exc:
            raise InputError(
                f"malformed JSON line ({exc.msg} at column {exc.colno})", file=file, line=lineno
            ) from None
    return out


def item_lines(text: str) -> list[int]:
    """The 1-based line where each element of a top-level JSON list starts."""
    decoder = json.JSONDecoder()
    ws = " \t\r\n"
    i = text.index("[") + 1
    lines: list[int] = []
    line, counted = 1, 0
    while True:
        while i < len(text) and text[i] in ws:
            i += 1
        if i >= len(text) or text[i] == "]":
            return lines
        line += text.count("\n", counted, i)
        counted = i
        lines.append(line)
        _, i = decoder.raw_decode(text, i)
        while i < len(text) and text[i] in ws + ",":
            i += 1


def read_bytes(path: str | Path, what: str = "predictions") -> bytes:
    return read_input_bytes(Path(path), what)


def read_items(
    path: str | Path, what: str = "predictions", raw: bytes | None = None
) -> tuple[list[tuple[Any, int]], bool]:
    """[(item, line)] and whether the file is JSONL (`.jsonl`, or one object per line);
    `raw`: the file's bytes, when already read."""
    p = Path(path)
    raw = read_bytes(p, what) if raw is None else raw
    head = raw[:4096].removeprefix(codecs.BOM_UTF8).lstrip()
    if p.suffix.lower() == ".jsonl" or head[:1] == b"{":
        with gc_paused():
            return _jsonl(raw, str(p), what), True
    text = decode_text(raw, str(p), what)
    try:
        with gc_paused():
            data = loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"malformed JSON ({exc.msg} at column {exc.colno})", file=str(p), line=exc.lineno
        ) from None
    if not isinstance(data, list):
        raise InputError(
            f"{what} must be a JSON list of objects (or JSONL), got {type(data).__name__}", file=str(p)
        )
    return list(zip(data, item_lines(text), strict=True)), False
