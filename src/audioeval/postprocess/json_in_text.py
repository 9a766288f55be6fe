"""Finding JSON that a model wrote inside its text: ```-fenced blocks and bare values.

The one scanner behind the `json_field` step, the judge's verdicts and the MMAR rubric
answers. Reading a JSON file is another job (benchmarks/mcq/reading.py).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

_FENCE_RE = re.compile(r"```[ \t]*(?:json|JSON|python)?[ \t]*\n?(.*?)```", re.DOTALL)
_DECODER = json.JSONDecoder()


def fenced_blocks(text: str) -> list[str]:
    """The contents of each ``` block (language tag json, JSON or python, or none)."""
    return [m.group(1) for m in _FENCE_RE.finditer(text)]


def json_values(text: str, opener: str = "{", *, nested: bool = True) -> Iterator[Any]:
    """Every JSON value that decodes from an `opener` character ('{' or '['), in text order.

    With `nested`, the scan goes on inside a decoded value (its inner objects come too);
    without, it goes on after the value's end (top-level values only).
    """
    i = text.find(opener)
    while i != -1:
        try:
            value, end = _DECODER.raw_decode(text, i)
        except (ValueError, RecursionError):
            i = text.find(opener, i + 1)
            continue
        yield value
        i = text.find(opener, i + 1 if nested else end)
