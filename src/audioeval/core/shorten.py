"""User values shortened for messages: no error line echoes a whole data URI or file."""

from __future__ import annotations

SHOWN_CHARS = 80
"""At most about this many characters of a value appear in a message."""
PATH_SHOWN_CHARS = 240
"""File paths are shown whole up to this length (no real path is longer)."""


def _size(text: str) -> str:
    n = len(text.encode("utf-8", errors="replace"))
    if n >= 1024 * 1024:
        return f"{n / (1024 * 1024):.1f} MB"
    if n >= 1024:
        return f"{n // 1024} KB"
    return f"{len(text)} characters"


def _cut(text: str, limit: int) -> str:
    """The start and the end of `text` around an ellipsis, about `limit` characters."""
    tail = limit // 4
    return f"{text[: limit - tail - 1]}…{text[-tail:]}"


def shorten(value: object, limit: int = SHOWN_CHARS) -> str:
    """`repr(value)` when short; else its start, its end and its size:
    `'data:audio/wav;base64,UklGR…AAAA' (259 KB)`."""
    full = repr(value)
    if len(full) <= limit:
        return full
    text = value if isinstance(value, str) else full
    shown = repr(_cut(text, limit - 2))
    while len(shown) > limit + 8:  # escapes (\x.., \n) make a repr longer than its text
        shown = repr(_cut(text, len(shown) // 2))
    return f"{shown} ({_size(text)})"


def shorten_path(path: object) -> str:
    """A path as it is, unless it is longer than any real one (then its start, end and size)."""
    text = str(path)
    return text if len(text) <= PATH_SHOWN_CHARS else f"{_cut(text, SHOWN_CHARS)} ({_size(text)})"


def shorten_plain(text: str, limit: int = 1000) -> str:
    """A message on one line and at most `limit` characters (a last guard for printed errors)."""
    line = " ".join(text.splitlines())
    return line if len(line) <= limit else f"{line[: limit - 1]}…"


def within_words(text: str, limit: int) -> str:
    """`text` when at most `limit` characters; else its words that fit, then `…` (never a
    word cut in two, unless the first word alone is longer than `limit`)."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    head = text[: limit - 1]
    cut = head.rsplit(" ", 1)[0] if " " in head else head
    return cut.rstrip(" ,;:") + "…"
