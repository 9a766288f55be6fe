"""The AnyAudio-Judge cleaning-pass verdict reader, as its code reads it (AAJ@5cd0eb0
`decompose.py` `_parse_clean_judgments` L97-136; `shared/reference/official-rules.md` §3.3,
implemented from that description).

The answer, stripped: with a ``` in it, the first fenced `{...}` block (none: the fences
stay and decoding fails); otherwise the span from the first `{` to the last `}`. It must
decode to an object whose `results` is a list. Every item starts as keep; each object entry
whose `id` is an int in [0, n) (true/false count as 1/0, a string id is ignored) sets its
item to keep exactly when `str(judgment).strip().lower() == "keep"`. So an unknown verdict
(`maybe`, `keep.`, empty) removes, a missing id keeps, an out-of-range id is ignored and the
last of two entries for one id wins. An answer that does not decode, or has no `results`
list, is unusable (the official raises and asks for a retry). Ids count from 0.
"""

from __future__ import annotations

import re
from typing import Any

from audioeval.store.bounded_json import loads

_FENCED_RE = re.compile(r"```(?:json)?\s*(\{[\s\S]*?\})\s*```")


def _payload(raw: str) -> str:
    text = raw.strip()
    if "```" in text:
        fenced = _FENCED_RE.search(text)
        return fenced.group(1) if fenced else text
    start, end = text.find("{"), text.rfind("}")
    return text[start : end + 1] if start != -1 and end >= start else text


def keep_flags(raw: str, n: int) -> tuple[tuple[bool, ...] | None, str | None]:
    """(keep or remove for each of `n` items, None) or (None, why the answer is unusable)."""
    try:
        data: Any = loads(_payload(raw))
    except ValueError as exc:
        return None, f"not JSON ({exc})"
    if not isinstance(data, dict):
        return None, f"a JSON {type(data).__name__}, not an object"
    results = data.get("results")
    if not isinstance(results, list):
        return None, 'no list of results ({"results": [...]})'
    keep = [True] * n
    for entry in results:
        if not isinstance(entry, dict):
            continue
        index = entry.get("id")
        if isinstance(index, int) and 0 <= index < n:
            keep[index] = str(entry.get("judgment", "")).strip().lower() == "keep"
    return tuple(keep), None
