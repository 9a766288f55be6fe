"""Removing reasoning blocks (`<think>…</think>`) so only the stated answer remains."""

from __future__ import annotations

import re

_BLOCK_RE = re.compile(r"<think>(.*?)</think>", re.DOTALL | re.IGNORECASE)
_OPEN_RE = re.compile(r"<think>", re.IGNORECASE)
_CLOSE_RE = re.compile(r"</think>", re.IGNORECASE)


def split_think(text: str) -> tuple[str, str]:
    """(answer text, reasoning text) of a reply.

    Closed blocks are reasoning. Text before a lone `</think>` is reasoning whose opening
    tag was in the prompt (as chat templates of reasoning models do). An unclosed `<think>`
    means the reply was cut off mid-reasoning: everything after it is reasoning. A reply
    without "<" has no tag: it is its own answer (the common case, without the three scans).
    """
    if "<" not in text:
        return text.strip(), ""
    reasoning = [m.group(1) for m in _BLOCK_RE.finditer(text)]
    rest = _BLOCK_RE.sub(" ", text)
    closes = list(_CLOSE_RE.finditer(rest))
    if closes:
        reasoning.append(rest[: closes[-1].start()])
        rest = rest[closes[-1].end() :]
    opened = _OPEN_RE.search(rest)
    if opened:
        reasoning.append(rest[opened.end() :])
        rest = rest[: opened.start()]
    return rest.strip(), "\n".join(r.strip() for r in reasoning if r.strip())


def strip_think(text: str) -> str:
    """The reply without its reasoning blocks (step `strip_think`)."""
    return split_think(text)[0]
