"""Finding JSON that a model wrote inside its text: ```-fenced blocks and bare values.

The one scanner behind the `json_field` step, the judge's verdicts and the MMAR rubric
answers; `repaired_json_values` also reads JSON a model almost wrote (quotes, bare keys,
trailing commas, an answer cut off), naming each repair (`rubric decompose`). Reading a JSON
file is another job (store/json_items.py).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from audioeval.store.bounded_json import loads

_FENCE_RE = re.compile(r"```[ \t]*(?:json|JSON|python)?[ \t]*\n?(.*?)```", re.DOTALL)
_DECODER = json.JSONDecoder()


def fenced_blocks(text: str) -> list[str]:
    """The contents of each ``` block (language tag json, JSON or python, or none)."""
    return [m.group(1) for m in _FENCE_RE.finditer(text)]


MAX_JSON_DEPTH = 64
"""The deepest nesting of brackets a value read from a model's answer may hold: no answer we
read nests deeper, and trying to decode from every bracket of a deeper one (20,000 brackets)
would make the scans below quadratic. A value nested deeper is passed over, unread."""


def too_deep_openers(text: str, limit: int = MAX_JSON_DEPTH) -> set[int]:
    """The positions of the brackets (outside double-quoted strings) whose value nests deeper
    than `limit`, closed or not: one linear pass, so a scan skips them instead of decoding."""
    if text.count("{") + text.count("[") <= limit:  # no value can nest deeper than its brackets
        return set()
    open_: list[tuple[int, int, int]] = []  # open brackets: (position, depth, deepest inside)
    deep: set[int] = set()
    in_string = escaped = False
    for i, c in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif c in _OPENERS:
            depth = len(open_) + 1
            open_.append((i, depth, depth))
        elif c in "}]" and open_:
            pos, depth, inner = open_.pop()
            if inner - depth + 1 > limit:
                deep.add(pos)
            if open_:
                p2, d2, m2 = open_[-1]
                open_[-1] = (p2, d2, max(m2, inner))
    # brackets never closed: their value runs to the end, as deep as the deepest bracket after
    deepest = 0
    for pos, depth, inner in reversed(open_):
        deepest = max(deepest, inner)
        if deepest - depth + 1 > limit:
            deep.add(pos)
    return deep


def json_values(text: str, opener: str = "{", *, nested: bool = True) -> Iterator[Any]:
    """Every JSON value that decodes from an `opener` character ('{' or '['), in text order.

    With `nested`, the scan goes on inside a decoded value (its inner objects come too);
    without, it goes on after the value's end (top-level values only). A value nested
    deeper than MAX_JSON_DEPTH is passed over (the scan stays linear).
    """
    deep = too_deep_openers(text)
    i = text.find(opener)
    while i != -1:
        if i in deep:
            i = text.find(opener, i + 1)
            continue
        try:
            value, end = _DECODER.raw_decode(text, i)
        except (ValueError, RecursionError):
            i = text.find(opener, i + 1)
            continue
        yield value
        i = text.find(opener, i + 1 if nested else end)


# -- repairing the JSON a model almost wrote ------------------------------------------------
#
# `repaired_json_values` is for answers that must be a JSON object or list and often are not
# quite: curly or single quotes around strings, an unescaped quote inside a string, bare
# keys, Python literals, trailing commas, raw line breaks in strings, an answer cut off by
# the token limit. Each repair is named, so a caller can record what was fixed. Nothing is
# guessed: a bare word that is not a key, mismatched brackets or a string cut before any
# complete element make the value unusable, never a made-up one. A cut-off answer keeps
# its complete elements only (those before the last closing bracket), and says so.

REPAIRS = (
    "quotes",
    "escapes",
    "bare_keys",
    "python_literals",
    "trailing_commas",
    "line_breaks",
    "truncated",
)
"""The names a repaired value may carry, in the order they are reported."""

_OPENERS = "{["
_CLOSER = {"{": "}", "[": "]"}
_STRING_END = {'"': '"', "'": "'’", "‘": "'’", "“": '"”', "„": '"”', "‟": '"”', "”": '"”'}
_ESCAPES = '"\\/bfnrtu'
_STRUCTURAL = ",:}]"
_LITERALS = {
    "true": "true",
    "false": "false",
    "null": "null",
    "True": "true",
    "False": "false",
    "None": "null",
}
_MAX_REPAIR_STARTS = 16


def _next_char(text: str, i: int) -> str:
    """The first non-whitespace character at or after `i` ("" at the end)."""
    n = len(text)
    while i < n and text[i].isspace():
        i += 1
    return text[i] if i < n else ""


def _string(text: str, i: int, out: list[str], repairs: set[str]) -> tuple[int, bool]:
    """Copy the string opened at `text[i]` to `out` as a JSON string; (index after it, closed)."""
    opener = text[i]
    ends = _STRING_END[opener]
    if opener != '"':
        repairs.add("quotes")
    out.append('"')
    i += 1
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\" and i + 1 < n:
            nxt = text[i + 1]
            if nxt in _ESCAPES and (nxt != "u" or _is_hex4(text, i + 2)):
                out.append(c + nxt)
                i += 2
            elif nxt == "'":  # \' is no JSON escape: the quote itself
                out.append("'")
                repairs.add("escapes")
                i += 2
            else:  # a stray backslash: kept as written
                out.append("\\\\")
                repairs.add("escapes")
                i += 1
            continue
        if c in ends and (not _next_char(text, i + 1) or _next_char(text, i + 1) in _STRUCTURAL):
            out.append('"')
            return i + 1, True
        if c == '"':  # a quote inside the text: escaped
            out.append('\\"')
            repairs.add("quotes")
        elif c in "\n\r\t":
            out.append({"\n": "\\n", "\r": "\\r", "\t": "\\t"}[c])
            repairs.add("line_breaks")
        elif ord(c) < 0x20:
            out.append(f"\\u{ord(c):04x}")
        else:
            out.append(c)
        i += 1
    return i, False


def _is_hex4(text: str, i: int) -> bool:
    return len(text) >= i + 4 and all(ch in "0123456789abcdefABCDEF" for ch in text[i : i + 4])


def _drop_trailing_comma(out: list[str], repairs: set[str]) -> None:
    j = len(out) - 1
    while j >= 0 and out[j].isspace():
        j -= 1
    if j >= 0 and out[j] == ",":
        del out[j]
        repairs.add("trailing_commas")


def repair_json_text(text: str) -> tuple[str, tuple[str, ...], int] | None:
    """The JSON text of the object or list that opens `text` (which starts with '{' or '['),
    the repairs made, and how much of `text` it took; None when it cannot be repaired."""
    if not text or text[0] not in _OPENERS:
        return None
    out: list[str] = []
    stack: list[str] = []
    repairs: set[str] = set()
    last_close: tuple[int, tuple[str, ...]] | None = None  # (len(out), still open) after a close
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in _OPENERS:
            stack.append(c)
            out.append(c)
            i += 1
        elif c in "}]":
            if not stack or _CLOSER[stack[-1]] != c:
                return None
            _drop_trailing_comma(out, repairs)
            stack.pop()
            out.append(c)
            i += 1
            if not stack:
                return "".join(out), _ordered(repairs), i
            last_close = (len(out), tuple(stack))
        elif c in _STRING_END:
            i, closed = _string(text, i, out, repairs)
            if not closed:
                break
        elif c.isspace() or c in ",:":
            out.append(c)
            i += 1
        elif c.isdigit() or c == "-":
            j = i + 1
            while j < n and (text[j].isdigit() or text[j] in "+-.eE"):
                j += 1
            out.append(text[i:j])
            i = j
        elif c.isalnum() or c == "_":
            j = i + 1
            while j < n and (text[j].isalnum() or text[j] in "_-"):
                j += 1
            word = text[i:j]
            if stack and stack[-1] == "{" and _next_char(text, j) == ":":
                out.append(json.dumps(word, ensure_ascii=False))
                repairs.add("bare_keys")
            elif word in _LITERALS:
                out.append(_LITERALS[word])
                if word != _LITERALS[word]:
                    repairs.add("python_literals")
            else:
                return None
            i = j
        else:
            return None
    # The text ended inside the value: keep what closed last, close what was still open.
    if last_close is None:
        return None
    end, still_open = last_close
    repairs.add("truncated")
    closing = "".join(_CLOSER[o] for o in reversed(still_open))
    return "".join(out[:end]) + closing, _ordered(repairs), n


def _ordered(repairs: set[str]) -> tuple[str, ...]:
    return tuple(r for r in REPAIRS if r in repairs)


def _values_in_order(text: str) -> Iterator[tuple[Any, tuple[str, ...]]]:
    """Each top-level object or list of `text` in order: as written, else repaired (a value
    that cannot be either is passed over, and the scan goes on at its next '{' or '['); so is
    a value nested deeper than MAX_JSON_DEPTH."""
    deep = too_deep_openers(text)
    pos = repairs_tried = 0
    for i, c in enumerate(text):
        if c not in _OPENERS or i < pos or i in deep:
            continue
        try:
            value, pos = _DECODER.raw_decode(text, i)
        except (ValueError, RecursionError):
            pass
        else:
            yield value, ()
            continue
        repairs_tried += 1
        if repairs_tried > _MAX_REPAIR_STARTS:
            continue
        repaired = repair_json_text(text[i:])
        if repaired is None:
            continue
        fixed, repairs, used = repaired
        try:
            value = loads(fixed)
        except (ValueError, RecursionError):
            continue
        pos = i + used
        yield value, repairs


def repaired_json_values(text: str) -> Iterator[tuple[Any, tuple[str, ...]]]:
    """Every JSON object or list in a model's text, with the repairs it needed (none: as
    written): those in ``` blocks first, then those of the whole text (where the unclosed
    block of an answer cut off is read), each in text order, top level only. Lazy: a caller
    taking the first value it can use repairs nothing it does not need."""
    for candidate in [*fenced_blocks(text), text]:
        yield from _values_in_order(candidate)
