"""The AnyAudio-Judge generate-mode answer reader, as its code reads it (AAJ@5cd0eb0
`judge.py` `_parse_generate_answers` L85-115; `shared/reference/official-rules.md` §3.6,
implemented from that description). Our `all_at_once` mode is that generate mode.

`generate_answers(raw, n)`: the yes / no of each of `n` items (None: unparsed):
1. code fences removed, the text stripped, trailing commas before `}` or `]` removed;
2. every item starts unparsed. When that text decodes to a JSON **list**: each object entry
   whose `id` is an int in [0, n) (true / false count as 1 / 0; a string id is ignored) sets
   its item to `str(answer).strip().lower()` when that is yes or no, else back to unparsed;
   the last entry of an id wins. Nothing else is read (no fallback);
3. otherwise (no JSON, or JSON that is not a list): the **raw** text, fences included: every
   `"answer"\\s*:\\s*"(yes|no)"` (any case), assigned to the items **by position**, ids
   ignored.

The sample's score is then #yes / (#yes + #no) over the parsed items; unparsed items drop
out of the denominator; no parsed item: no score (the official NaN; here a counted judge
failure after `max_attempts` calls). `OFFICIAL_READER` is this reader as the `rubric_items`
scorer's `all_at_once` hook: the items listed with ids from 0, as the official prompt lists
them, and an answer usable when it parses at least one item.
"""

from __future__ import annotations

import re
from typing import Any

from audioeval.judge.rubric_items import AllAtOnceReader
from audioeval.store.bounded_json import loads

_FENCE_RE = re.compile(r"```(?:json)?\s*")
_TRAILING_COMMA_RE = re.compile(r",(\s*[}\]])")
_ANSWER_RE = re.compile(r'"answer"\s*:\s*"(yes|no)"', re.IGNORECASE)
_VERDICTS = ("yes", "no")


def _by_id(entries: list[Any], n: int) -> list[str | None]:
    answers: list[str | None] = [None] * n
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        index = entry.get("id")
        if isinstance(index, int) and 0 <= index < n:
            verdict = str(entry.get("answer", "")).strip().lower()
            answers[index] = verdict if verdict in _VERDICTS else None
    return answers


def _by_position(raw: str, n: int) -> list[str | None]:
    found = [m.lower() for m in _ANSWER_RE.findall(raw)][:n]
    return [*found, *([None] * (n - len(found)))]


def generate_answers(raw: str, n: int) -> list[str | None]:
    """The official reading of a generate-mode answer: yes / no / None (unparsed) per item."""
    text = _TRAILING_COMMA_RE.sub(r"\1", _FENCE_RE.sub("", raw).strip())
    try:
        value = loads(text)
    except ValueError:
        value = None
    if isinstance(value, list):
        return _by_id(value, n)
    return _by_position(raw, n)


def read_official(answer: str | None, n: int) -> list[str | None] | None:
    """The hook's reading: None when there is no answer or no item was parsed (the official
    scores it NaN; here it is asked again, then a counted failure)."""
    if answer is None:
        return None
    answers = generate_answers(answer, n)
    return answers if any(a is not None for a in answers) else None


OFFICIAL_READER = AllAtOnceReader(
    name="anyaudio-judge generate mode (official): ids from 0, unparsed items left out, "
    "answers by position when the JSON is not a list",
    first_id=0,
    read=read_official,
)
