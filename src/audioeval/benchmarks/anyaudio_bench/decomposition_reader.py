"""The AnyAudio-Judge decomposition answer reader, as its code reads it (AAJ@5cd0eb0
`decompose.py` `_try_fix_json` L40-94 and `_normalize_questions` L139-156; the rule in
`shared/reference/official-rules.md` §3.2, implemented from that description).

`fix_json(raw)`: the first of these whose text `json.loads` accepts, tried in order:
0. pre-clean: every ```` ```json ```` fence removed, stripped, trailing backticks removed,
   curly double quotes (U+201C/U+201D) turned into an escaped straight quote (legal inside a
   JSON string; JSON delimited by curly quotes then fails);
1. the pre-cleaned text;
2. key repair: a `维度`/`题目`/`依据` key missing its opening quote at the start of an
   indented line;
3. line repair (of the pre-cleaned text, not of step 2): unescaped quotes inside a
   `维度`/`题目`/`依据` value escaped, a missing closing quote added;
4. trailing commas before `}` or `]` removed (from the step-3 text);
5. truncation: the step-4 text, then the pre-cleaned text, cut after the last item closed at
   8 spaces' indentation and closed with `]` and `}`.
None of them: nothing (the official decomposer then returns no item, silently).

`question_items(payload)`: the item list under the first truthy of `Question_List`,
`question_list`, `判断题列表`; each object item's dimension / question / basis from
`Dimension`|`维度`, `Question`|`题目`, `Basis`|`依据` (lower-case item keys are not read:
empty fields); other items skipped; no dedupe, no cap, empty questions kept. A payload that
is not an object is an error (the official raises).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from audioeval.store.bounded_json import loads

_FENCE_RE = re.compile(r"```(?:json)?\s*")
_KEY_RE = re.compile(r'(\n\s+)(题目|维度|依据)":')
_LINE_CLOSED_RE = re.compile(r'^(\s*"(?:依据|题目|维度)":\s*")(.*)((?<!\\)",?\s*)$')
_LINE_OPEN_RE = re.compile(r'^(\s*"(?:依据|题目|维度)":\s*")(.+)(,?\s*)$')
_UNESCAPED_QUOTE_RE = re.compile(r'(?<!\\)"')
_TRAILING_COMMA_RE = re.compile(r",(\s*[}\]])")
_ITEM_END = "\n" + " " * 8 + "}"
LIST_KEYS = ("Question_List", "question_list", "判断题列表")
FIELD_KEYS = {"dimension": ("Dimension", "维度"), "question": ("Question", "题目"), "basis": ("Basis", "依据")}

_MISSING = object()


def pre_clean(raw: str) -> str:
    text = _FENCE_RE.sub("", raw).strip().rstrip("`").strip()
    return text.replace("\u201c", '\\"').replace("\u201d", '\\"')


def _loads(text: str) -> Any:
    try:
        return loads(text)
    except (ValueError, RecursionError):  # RecursionError: nesting deeper than Python decodes
        return _MISSING


def _escape(content: str) -> str:
    return _UNESCAPED_QUOTE_RE.sub(r'\\"', content)


def _repair_line(line: str) -> str:
    closed = _LINE_CLOSED_RE.match(line)
    if closed:
        return closed.group(1) + _escape(closed.group(2)) + closed.group(3)
    open_ = _LINE_OPEN_RE.match(line)
    if open_:
        return open_.group(1) + _escape(open_.group(2)) + '"' + open_.group(3)
    return line


def _truncated(text: str) -> str | None:
    end = text.rfind(_ITEM_END)
    if end < 0:
        return None
    return text[: end + len(_ITEM_END)].rstrip(" ,") + "\n    ]\n}"


def fix_json(raw: str) -> tuple[Any, str | None]:
    """(the decoded value, the step that decoded it: clean, keys, lines, commas, truncation);
    (None, None) when no step decodes."""
    clean = pre_clean(raw)
    lines = "\n".join(_repair_line(line) for line in clean.split("\n"))
    commas = _TRAILING_COMMA_RE.sub(r"\1", lines)
    steps = [("clean", clean), ("keys", _KEY_RE.sub(r'\1"\2":', clean)), ("lines", lines), ("commas", commas)]
    for name, text in steps:
        value = _loads(text)
        if value is not _MISSING:
            return value, name
    for text in (commas, clean):
        cut = _truncated(text)
        value = _MISSING if cut is None else _loads(cut)
        if value is not _MISSING:
            return value, "truncation"
    return None, None


@dataclass(frozen=True)
class ReadItems:
    """What the official reader makes of one answer: items (None: it raises, `error` says
    what), whether any JSON was decoded (False: the official's silent `[]`), the step."""

    items: tuple[dict[str, str], ...] | None
    parsed: bool
    step: str | None = None
    error: str | None = None


def _field(item: dict[str, Any], keys: tuple[str, ...]) -> str:
    value = next((item.get(k) for k in keys if item.get(k)), "")
    return value if isinstance(value, str) else str(value)


def question_items(payload: Any) -> tuple[dict[str, str], ...]:
    """The items of a decoded payload (TypeError when the official code raises)."""
    if not isinstance(payload, dict):
        raise TypeError(f"the answer is a JSON {type(payload).__name__}, not an object")
    entries = next((payload[k] for k in LIST_KEYS if payload.get(k)), [])
    if not isinstance(entries, (list, tuple, str, dict)):
        raise TypeError(f"the item list is a {type(entries).__name__}")
    return tuple(
        {name: _field(entry, keys) for name, keys in FIELD_KEYS.items()}
        for entry in entries
        if isinstance(entry, dict)
    )


def read_items(raw: str) -> ReadItems:
    """The official reading of a decomposition answer."""
    value, step = fix_json(raw)
    if step is None:
        return ReadItems((), False)
    try:
        return ReadItems(question_items(value), True, step)
    except TypeError as exc:
        return ReadItems(None, True, step, str(exc))
