"""The one JSON parser of audioeval: `loads`, `json.loads` with a bound on nesting.

Every JSON text audioeval reads goes through `loads`: input files (manifests, predictions of
every format, metadata, judge benches, captions, run configs' values), the files of a run
folder and the bodies and answers of models. Python's decoder recurses once per level: a
text nested 100,000 deep ends in `RecursionError` (a traceback, not an error naming the file),
and a value nested a few hundred deep is read but breaks whatever walks it later. `loads`
refuses a value nested deeper than `MAX_NESTING` with a `json.JSONDecodeError`
(`NestingError`), so every caller's handling of malformed JSON names the file and line as it
already does. No input audioeval reads nests more than a dozen levels.

Cost: a text with no more brackets than the bound is parsed as by `json.loads`; one with more,
up to a megabyte, is measured on its brackets (in C: strings dropped, then the innermost pairs
once per level); a larger text is walked once after parsing (only its lists and objects).
Record lines and HTTP bodies, read on the hot paths, are only guarded against the
interpreter's own limit (`nesting=None`).
"""

from __future__ import annotations

import json
import re
from typing import Any

MAX_NESTING = 100
"""The deepest nesting of lists and objects a JSON (or YAML) value may have."""

_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)


class NestingError(json.JSONDecodeError):
    """A JSON text nested deeper than MAX_NESTING (a malformed-JSON error to its callers)."""


def loads(text: str | bytes | bytearray, *, nesting: int | None = MAX_NESTING) -> Any:
    """`json.loads(text)`, refusing a value nested deeper than `nesting` (NestingError, with
    the line and column of the first bracket past the bound). `nesting=None` on the hot paths
    that read what audioeval or a server wrote (record lines, HTTP bodies): there only the
    interpreter's own limit (about 1,000 levels) is turned into a NestingError, which costs
    nothing."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise _too_deep(text, nesting or MAX_NESTING) from None
    if nesting is not None and _brackets(text) > nesting:
        deep = too_deep(value, nesting) if len(text) > _MEASURED_CHARS else _brackets_too_deep(text, nesting)
        if deep:
            raise _too_deep(text, nesting)
    return value


def _brackets(text: str | bytes | bytearray) -> int:
    if isinstance(text, str):
        return text.count("[") + text.count("{")
    return text.count(b"[") + text.count(b"{")


_MEASURED_CHARS = 1 << 20
_KEPT = b'[]{}"'
_DROPPED = bytes(c for c in range(256) if c not in _KEPT)
_STRING = re.compile(rb'"[^"]*"')
_PAIR = re.compile(rb"\[\]|\{\}")


def _brackets_too_deep(text: str | bytes | bytearray, nesting: int) -> bool:
    """Whether a valid JSON text nests deeper than `nesting`, from its brackets alone:
    escaped backslashes and quotes dropped, then all but brackets and quotes, then the strings
    (what is left between quotes), then the innermost pairs, one level a pass."""
    raw = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else bytes(text)
    raw = raw.replace(b"\\\\", b"").replace(b'\\"', b"").translate(None, _DROPPED)
    left = _STRING.sub(b"", raw)
    for _ in range(nesting):
        if not left:
            return False
        left = _PAIR.sub(b"", left)
    return bool(left)


def too_deep(value: Any, limit: int = MAX_NESTING) -> bool:
    """Whether `value`'s lists and objects (dicts, lists, tuples) nest deeper than `limit`;
    iterative, so any depth is measured."""
    containers = (dict, list, tuple)
    stack = [(value, 1)] if isinstance(value, containers) else []
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return True
        for child in node.values() if isinstance(node, dict) else node:
            if isinstance(child, containers):
                stack.append((child, depth + 1))
    return False


def _too_deep(text: str | bytes | bytearray, nesting: int) -> NestingError:
    doc = text if isinstance(text, str) else bytes(text).decode("utf-8", errors="replace")
    depth, pos = 0, 0
    for m in _TOKENS.finditer(doc):
        token = m.group()
        if token in "[{":
            depth += 1
            if depth > nesting:
                pos = m.start()
                break
        elif token in "]}":
            depth -= 1
    return NestingError(f"nested deeper than {nesting} levels of lists and objects", doc, pos)
