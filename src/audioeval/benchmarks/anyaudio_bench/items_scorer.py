"""The `rubric_items` scorer as AnyAudio-Judge's own code judges a bench row (scorer
`anyaudio_items`, the one `audioeval judge-eval` uses).

Two differences from the generic `rubric_items` (`judge/rubric_items.py`), both the
official's (`shared/reference/official-rules.md` §3.6-3.7):
- `all_at_once` (the official generate mode) lists the items with ids from 0 and reads the
  answer with the official reader (`generate_reader.py`): items it leaves unparsed drop out
  of the row's score, answers are taken by position when the JSON is not a list;
- an item with an empty question is judged, as the official keeps it.

`per_item` (the official logits mode) is the generic one. It records under its own name
(`anyaudio_items`; the judge-eval export also reads records of `rubric_items`, which
judge-eval used before); the signature names the reader.
"""

from __future__ import annotations

from audioeval.benchmarks.anyaudio_bench.generate_reader import OFFICIAL_READER
from audioeval.judge.rubric_items import RubricItemsScorer

SCORER_NAME = "anyaudio_items"


class AnyAudioItemsScorer(RubricItemsScorer):
    """`rubric_items` with AnyAudio-Judge's generate-mode reader and its empty questions."""

    scorer_name = SCORER_NAME
    all_at_once_reader = OFFICIAL_READER
    empty_questions = True
