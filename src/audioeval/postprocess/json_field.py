"""Reading one field of a JSON object that a model wrote, fenced, bare or inside prose.

Candidates are tried in order: each ```json fenced block, the whole text, then every `{…}`
object embedded in the text. Each is parsed as JSON, then as a Python literal (single
quotes, as UltraEval-Audio's parser also accepts). The first object holding the field wins.
A dotted field ("result.answer") reads nested objects when no key has that exact name.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Iterator
from typing import Any

from audioeval.postprocess.json_in_text import fenced_blocks, json_values
from audioeval.postprocess.outcome import Unparseable
from audioeval.store.bounded_json import loads

_MISSING = object()


def _parse(text: str) -> Any:
    text = text.strip()
    try:
        return loads(text)
    except ValueError:
        pass
    if not text.startswith("{"):
        return None
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None


def json_objects(text: str) -> Iterator[dict[str, Any]]:
    """The JSON objects found in a text, in the order described above."""
    candidates: list[Any] = [_parse(block) for block in fenced_blocks(text)]
    candidates.append(_parse(text))
    for obj in [*candidates, *json_values(text, "{")]:
        if isinstance(obj, dict):
            yield obj


def _lookup(obj: dict[str, Any], field: str) -> Any:
    if field in obj:
        return obj[field]
    value: Any = obj
    for part in field.split("."):
        if not isinstance(value, dict) or part not in value:
            return _MISSING
        value = value[part]
    return value


def as_text(value: Any) -> str:
    """A field value as answer text: strings as they are, anything else as JSON."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def json_field(text: str, field: str) -> str | Unparseable:
    """The text of `field` in the first JSON object that has it."""
    seen = False
    for obj in json_objects(text):
        seen = True
        value = _lookup(obj, field)
        if value is _MISSING:
            continue
        if value is None:
            return Unparseable(f"field {field!r} is null")
        return as_text(value)
    if seen:
        return Unparseable(f"no JSON object has field {field!r}")
    return Unparseable("no JSON object found")
