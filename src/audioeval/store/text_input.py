"""Reading a user's input file as text: UTF-8, with or without a byte order mark.

Every JSON, JSONL, CSV and YAML input (metadata, predictions, manifests, specs, run configs,
templates) is decoded here, so they all accept a BOM and CRLF line ends alike, and a file in
another encoding (Latin-1, UTF-16) is one error naming the file, the line and the byte.
A file larger than `MAX_INPUT_BYTES` is refused before it is read: parsed whole, it would
take many times its size in memory.
"""

from __future__ import annotations

import codecs
from pathlib import Path

from audioeval.core.errors import InputError

MAX_INPUT_BYTES = 2 * 1024**3
"""The largest input file (JSON, JSONL, CSV, YAML, text) audioeval reads: 2 GiB."""


def not_utf8(raw: bytes, start: int, file: str, what: str, *, line: int | None = None) -> InputError:
    """The error for `raw` (a file, or its line `line`) whose byte `start` is not UTF-8."""
    where = line if line is not None else raw.count(b"\n", 0, start) + 1
    offset = "" if line is not None else f" at offset {start}"
    return InputError(
        f"{what} file is not UTF-8 text (byte 0x{raw[start]:02x}{offset}); save it as UTF-8",
        file=file,
        line=where,
    )


def decode_text(raw: bytes, file: str, what: str) -> str:
    """`raw` as text, without a leading BOM."""
    if raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        raise InputError(f"{what} file is UTF-16 text; save it as UTF-8", file=file)
    bom = len(codecs.BOM_UTF8) if raw.startswith(codecs.BOM_UTF8) else 0
    try:
        return raw[bom:].decode("utf-8")
    except UnicodeDecodeError as exc:
        raise not_utf8(raw, bom + exc.start, file, what) from None


def read_input_bytes(path: Path, what: str) -> bytes:
    """The bytes of an input file, when it exists and is within MAX_INPUT_BYTES."""
    if not path.is_file():
        raise InputError(f"{what} file not found", file=str(path))
    size = path.stat().st_size
    if size > MAX_INPUT_BYTES:
        raise InputError(
            f"{what} file is {size:,} bytes, over the bound of {MAX_INPUT_BYTES:,} for an input "
            "file; split it",
            file=str(path),
        )
    return path.read_bytes()


def read_text_input(path: Path, what: str) -> str:
    """The text of an input file; errors name the file (`what` says which: "metadata", …)."""
    return decode_text(read_input_bytes(path, what), str(path), what)


def text_lines(text: str) -> list[str]:
    """Lines split on line feeds only (CRLF or LF), so a U+2028 inside a JSON string is no break."""
    return [line.removesuffix("\r") for line in text.split("\n")]
