"""The one JSON parser of audioeval: `loads`, `json.loads` with a bound on nesting.

Every JSON text audioeval reads goes through `loads`: input files (manifests, predictions of
every format, metadata, judge benches, captions, run configs' values), the files of a run
folder and the bodies and answers of models. Python's decoder recurses once per level: a
text nested 100,000 deep ends in `RecursionError` (a traceback, not an error naming the file),
and a value nested a few hundred deep is read but breaks whatever walks it later. `loads`
refuses a value nested deeper than `MAX_NESTING` with a `json.JSONDecodeError`
(`NestingError`), so every caller's handling of malformed JSON names the file and line as it
already does. No input audioeval reads nests more than a dozen levels.

Cost: a text with no more brackets than the bound (a JSONL line, an answer) is parsed as by
`json.loads`; a larger one is walked once after parsing (only its lists and objects).
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


def loads(text: str | bytes | bytearray) -> Any:
    """`json.loads(text)`, refusing a value nested deeper than MAX_NESTING (NestingError,
    with the line and column of the first bracket past the bound)."""
    if isinstance(text, str):
        brackets = text.count("[") + text.count("{")
    else:
        brackets = text.count(b"[") + text.count(b"{")
    try:
        value = json.loads(text)
    except RecursionError:
        raise _too_deep(text) from None
    if brackets > MAX_NESTING and too_deep(value):
        raise _too_deep(text)
    return value


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


def _too_deep(text: str | bytes | bytearray) -> NestingError:
    doc = text if isinstance(text, str) else bytes(text).decode("utf-8", errors="replace")
    depth, pos = 0, 0
    for m in _TOKENS.finditer(doc):
        token = m.group()
        if token in "[{":
            depth += 1
            if depth > MAX_NESTING:
                pos = m.start()
                break
        elif token in "]}":
            depth -= 1
    return NestingError(f"nested deeper than {MAX_NESTING} levels of lists and objects", doc, pos)
