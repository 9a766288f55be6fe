"""Removing reasoning blocks (`<think>…</think>`) so only the stated answer remains."""

from __future__ import annotations

import re

_BLOCK_RE = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
_OPEN_RE = re.compile(r"<think>", re.IGNORECASE)
_CLOSE_RE = re.compile(r"</think>", re.IGNORECASE)


def strip_think(text: str) -> str:
    """The text without reasoning blocks.

    Closed blocks are removed. Text before a lone `</think>` is reasoning whose opening tag
    was in the prompt (as chat templates of reasoning models do) and is removed too. An
    unclosed `<think>` means the reply was cut off mid-reasoning: everything after it goes.
    """
    out = _BLOCK_RE.sub(" ", text)
    closes = list(_CLOSE_RE.finditer(out))
    if closes:
        out = out[closes[-1].end():]
    opened = _OPEN_RE.search(out)
    if opened:
        out = out[: opened.start()]
    return out.strip()


def think_content(text: str) -> str:
    """The reasoning inside `<think>` blocks (or before a lone `</think>`), joined."""
    parts = [m.group(0)[7:-8] for m in _BLOCK_RE.finditer(text)]
    rest = _BLOCK_RE.sub(" ", text)
    closes = list(_CLOSE_RE.finditer(rest))
    if closes:
        parts.append(rest[: closes[-1].start()])
    return "\n".join(p.strip() for p in parts if p.strip())
