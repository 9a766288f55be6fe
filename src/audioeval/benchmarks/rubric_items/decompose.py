"""Reading the answers of `rubric decompose`, and what is done with the items.

- `read_decomposition`: a decomposition answer -> items `{dimension, question, basis}`, read
  exactly as the AnyAudio-Judge decomposer reads it (`benchmarks/anyaudio_bench/
  decomposition_reader.py`: its JSON repairs, `Question_List` / `question_list` / `判断题列表`,
  `Dimension`|`维度`, `Question`|`题目`, `Basis`|`依据`; empty questions kept). An answer
  with no decodable JSON gives no item (`unparsed`, counted; the official's silent `[]`,
  after which the fallback item stands in); a JSON value that is not an object is unusable
  (the official raises). For `auto` (ours), the domain the model named under `domain`.
- `read_cleaning`: a cleaning answer -> keep / remove per item, as the official reads it
  (`anyaudio_bench/cleaning_reader.py`: ids from 0, a missing id keeps, an unknown verdict
  removes).
- `dedupe` (normalised question text) and `cap`: ours, off by default (the official has
  neither); `fallback_item` (the caption itself as the single item when nothing survives).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from audioeval.benchmarks.anyaudio_bench.cleaning_reader import keep_flags
from audioeval.benchmarks.anyaudio_bench.decomposition_reader import fix_json, read_items
from audioeval.benchmarks.rubric_items.decompose_prompts import AUTO, DOMAINS
from audioeval.postprocess.think_tags import strip_think

ITEM_KEYS = {
    "dimension": ("dimension", "维度"),
    "question": ("question", "题目"),
    "basis": ("basis", "依据"),
}
DOMAIN_NAMES = {
    **{d: d for d in DOMAINS},
    "语音": "speech",
    "声音": "sound",
    "音效": "sound",
    "音乐": "music",
    "混合": "mix",
}


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
    domain named (auto), the JSON repair step needed, whether no JSON decoded (`unparsed`:
    no item, as the official reads it)."""

    items: tuple[RubricItem, ...] | None
    domain: str | None = None
    repairs: tuple[str, ...] = ()
    error: str | None = None
    unparsed: bool = False

    @property
    def usable(self) -> bool:
        return self.items is not None


def _domain_named(value: Any) -> str | None:
    named = value.get("domain") if isinstance(value, dict) else None
    if not isinstance(named, str):
        return None
    return DOMAIN_NAMES.get(named.strip().lower())


def read_decomposition(text: str | None, domain: str) -> Decomposition:
    """The items of a decomposition answer for `domain` (a domain, or `auto`)."""
    if text is None or not text.strip():
        return Decomposition(None, error="empty answer")
    answer = strip_think(text).strip()
    read = read_items(answer)
    repairs = () if read.step in (None, "clean") else (read.step,)
    if read.items is None:
        return Decomposition(None, repairs=repairs, error=read.error)
    items = tuple(RubricItem(i["dimension"], i["question"], i["basis"]) for i in read.items)
    if domain != AUTO:
        return Decomposition(items, domain, repairs=repairs, unparsed=not read.parsed)
    named = _domain_named(fix_json(answer)[0]) if read.parsed else None
    if read.parsed and named is None:
        return Decomposition(None, repairs=repairs, error=f"no domain named (one of {', '.join(DOMAINS)})")
    return Decomposition(items, named, repairs=repairs, unparsed=not read.parsed)


@dataclass(frozen=True)
class Cleaning:
    """Keep (True) or remove (False) per item in order; None: unusable (`error` says why)."""

    keep: tuple[bool, ...] | None
    repairs: tuple[str, ...] = ()
    error: str | None = None

    @property
    def usable(self) -> bool:
        return self.keep is not None


def read_cleaning(text: str | None, n: int) -> Cleaning:
    """Keep or remove for each of `n` items (ids from 0), from a cleaning answer."""
    if text is None or not text.strip():
        return Cleaning(None, error="empty answer")
    keep, error = keep_flags(strip_think(text), n)
    return Cleaning(keep, error=error)


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
    """The single holistic item of a caption none of whose items survived (official §3.4):
    dimension 整体 ("overall"), question and basis the caption itself."""
    return RubricItem("整体", caption, caption)  # the official's holistic item: "overall" in Chinese
