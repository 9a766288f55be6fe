"""Reading the answers of `rubric decompose`, and what is done with the items.

- `read_decomposition`: a decomposition answer -> items `{dimension, question, basis}` (and,
  for `auto`, the domain the model named). English keys or the original's Chinese keys
  (维度 / 题目 / 依据), under "items" or "判断题列表", or a bare list. The JSON is found and
  repaired by the one scanner (`postprocess/json_in_text.repaired_json_values`); an answer
  with no usable list is an error, never a guess. Items without a question are dropped and
  counted; an empty list is a usable answer (the caption gives nothing to check).
- `read_cleaning`: a cleaning answer -> keep / remove for each item, every item exactly once.
- `dedupe` (normalised question text), `cap`, and `fallback_item` (the caption itself as the
  single item when nothing survives).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from audioeval.benchmarks.rubric_items.decompose_prompts import AUTO, DOMAINS
from audioeval.postprocess.json_in_text import repaired_json_values
from audioeval.postprocess.think_tags import strip_think

ITEM_KEYS = {
    "dimension": ("dimension", "维度"),
    "question": ("question", "题目"),
    "basis": ("basis", "依据"),
}
LIST_KEYS = ("items", "判断题列表")
DOMAIN_NAMES = {
    **{d: d for d in DOMAINS},
    "语音": "speech",
    "声音": "sound",
    "音效": "sound",
    "音乐": "music",
    "混合": "mix",
}
KEEP_WORDS = {"keep": True, "remove": False, "保留": True, "删除": False, "移除": False}
_CJK_RE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")


@dataclass(frozen=True, slots=True)
class RubricItem:
    """One yes/no item: "yes" means the audio matches the caption."""

    dimension: str
    question: str
    basis: str

    def to_json(self) -> dict[str, str]:
        return {"dimension": self.dimension, "question": self.question, "basis": self.basis}


@dataclass(frozen=True)
class Decomposition:
    """What one decomposition answer gave: items (None: unusable, `error` says why), the
    domain named (auto), items dropped for having no question, the JSON repairs needed."""

    items: tuple[RubricItem, ...] | None
    domain: str | None = None
    dropped: int = 0
    repairs: tuple[str, ...] = ()
    error: str | None = None

    @property
    def usable(self) -> bool:
        return self.items is not None


def _text(entry: Mapping[str, Any], field: str) -> str:
    for key in ITEM_KEYS[field]:
        value = entry.get(key)
        if isinstance(value, str):
            return value.strip()
    return ""


def _item_list(value: Any) -> list[Any] | None:
    """The list of items in a decoded value: a bare list, or under one of `LIST_KEYS`."""
    if isinstance(value, list):
        return value
    if isinstance(value, dict):
        for key in LIST_KEYS:
            if isinstance(value.get(key), list):
                return value[key]
    return None


def _domain_named(value: Any) -> str | None:
    named = value.get("domain") if isinstance(value, dict) else None
    if not isinstance(named, str):
        return None
    return DOMAIN_NAMES.get(named.strip().lower())


def _read_value(value: Any, domain: str, repairs: tuple[str, ...]) -> Decomposition | None:
    entries = _item_list(value)
    if entries is None:
        return None
    items = []
    for entry in entries:
        question = _text(entry, "question") if isinstance(entry, dict) else ""
        if question:
            items.append(RubricItem(_text(entry, "dimension"), question, _text(entry, "basis")))
    dropped = len(entries) - len(items)
    if entries and not items:
        return Decomposition(
            None, repairs=repairs, error=f"none of the {len(entries)} item(s) has a question"
        )
    if domain != AUTO:
        return Decomposition(tuple(items), domain, dropped, repairs)
    named = _domain_named(value)
    if named is None:
        return Decomposition(None, repairs=repairs, error=f"no domain named (one of {', '.join(DOMAINS)})")
    return Decomposition(tuple(items), named, dropped, repairs)


def read_decomposition(text: str | None, domain: str) -> Decomposition:
    """The items of a decomposition answer for `domain` (a domain, or `auto`)."""
    if text is None or not text.strip():
        return Decomposition(None, error="empty answer")
    first_problem: Decomposition | None = None
    for value, repairs in repaired_json_values(strip_think(text)):
        read = _read_value(value, domain, repairs)
        if read is not None and read.usable:
            return read
        first_problem = first_problem or read
    if first_problem is not None:
        return first_problem
    return Decomposition(None, error='no JSON list of items ({"items": [...]})')


@dataclass(frozen=True)
class Cleaning:
    """Keep (True) or remove (False) per item in order; None: unusable (`error` says why)."""

    keep: tuple[bool, ...] | None
    repairs: tuple[str, ...] = ()
    error: str | None = None

    @property
    def usable(self) -> bool:
        return self.keep is not None


def _judgments(value: Any, n: int) -> tuple[tuple[bool, ...] | None, str | None]:
    entries = value.get("results") if isinstance(value, dict) else value
    if not isinstance(entries, list):
        return None, 'no list of results ({"results": [...]})'
    found: dict[int, bool] = {}
    for entry in entries:
        if not isinstance(entry, dict):
            return None, "a result is not an object"
        index, word = entry.get("id"), entry.get("judgment", entry.get("judgement"))
        if isinstance(index, str) and index.strip().isdigit():
            index = int(index)
        if isinstance(index, bool) or not isinstance(index, int) or not 1 <= index <= n:
            return None, f"result id {index!r} is not an item number 1..{n}"
        keep = KEEP_WORDS.get(word.strip().lower()) if isinstance(word, str) else None
        if keep is None:
            return None, f"item {index}: judgment {word!r} is neither keep nor remove"
        if found.get(index, keep) != keep:
            return None, f"item {index} is judged both keep and remove"
        found[index] = keep
    missing = [i for i in range(1, n + 1) if i not in found]
    if missing:
        return None, f"no judgment for item(s) {', '.join(map(str, missing))}"
    return tuple(found[i] for i in range(1, n + 1)), None


def read_cleaning(text: str | None, n: int) -> Cleaning:
    """Keep or remove for each of `n` items, from a cleaning answer."""
    if text is None or not text.strip():
        return Cleaning(None, error="empty answer")
    first_error: str | None = None
    for value, repairs in repaired_json_values(strip_think(text)):
        keep, error = _judgments(value, n)
        if keep is not None:
            return Cleaning(keep, repairs)
        first_error = first_error or error
    return Cleaning(None, error=first_error or 'no JSON list of results ({"results": [...]})')


_PUNCTUATION = {"P", "S"}  # punctuation and symbols: not part of what a question asks


def question_key(question: str) -> str:
    """A question's text for duplicate detection: NFKC, case-folded, without whitespace,
    punctuation or symbols ("Is it loud?" and "is it  loud" are the same question)."""
    text = unicodedata.normalize("NFKC", question).casefold()
    return "".join(c for c in text if not c.isspace() and unicodedata.category(c)[0] not in _PUNCTUATION)


def dedupe(items: Sequence[RubricItem]) -> tuple[list[RubricItem], int]:
    """The items without repeated questions (the first kept), and how many were dropped."""
    seen: set[str] = set()
    kept = []
    for item in items:
        key = question_key(item.question)
        if key not in seen:
            seen.add(key)
            kept.append(item)
    return kept, len(items) - len(kept)


def cap(items: Sequence[RubricItem], max_items: int) -> tuple[list[RubricItem], int]:
    """The first `max_items` items, and how many were cut."""
    return list(items[:max_items]), max(0, len(items) - max_items)


def fallback_item(caption: str) -> RubricItem:
    """The single holistic item of a caption none of whose items survived: the caption itself."""
    dimension = "整体" if _CJK_RE.search(caption) else "overall"
    text = caption.strip()
    return RubricItem(dimension, text, text)
