"""AudioBench's string match of a multiple-choice answer (AudioLLMs/AudioBench
`src/dataset_src/eval_methods/string_match.py`, `string_match_one_sample`), the figure its
`mmau_mini` set reports as `string_match`.

Texts become sets of word tokens (`\\b\\w+\\b`, lower case). A reply is right when it holds
every token of the answer and no token of a wrong choice, where a wrong choice's tokens are
those not in the answer (a choice whose tokens equal the answer's adds none); an empty reply
is wrong. The answer and choices are given without their `(A) ` prefixes (their `[4:]`).
"""

from __future__ import annotations

import re
from typing import Any

from audioeval.core.errors import InputError
from audioeval.core.record import Score
from audioeval.core.sample import Sample
from audioeval.scoring.base import Prediction, Scorer

NAME = "audiobench_string_match"
_WORD = re.compile(r"\b\w+\b")


def word_set(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def string_match(answer: str, reply: str, choices: list[str]) -> bool:
    """Their rule for one reply (the answer and choices without their `(A) ` prefixes)."""
    said, gold = word_set(reply), word_set(answer)
    if not said:
        return False
    wrong: set[str] = set()
    for choice in choices:
        tokens = word_set(choice)
        if tokens != gold:
            wrong |= tokens - gold
    return gold <= said and said.isdisjoint(wrong)


class StringMatchScorer(Scorer):
    """`audiobench_string_match`: 1 when the reply passes AudioBench's string match, else 0."""

    name = NAME
    metrics = (f"mean:{NAME}",)
    light = True

    def signature(self) -> dict[str, Any]:
        return {"scorer": NAME, "source": "AudioLLMs/AudioBench src/dataset_src/eval_methods/string_match.py"}

    def score(self, prediction: Prediction, sample: Sample) -> Score:
        answer, choices = sample.get("answer"), sample.get("choices")
        if not isinstance(answer, str) or not isinstance(choices, list):
            raise InputError(
                "needs the text `answer` and the list `choices`", sample_id=sample.id, field="answer"
            )
        hit = prediction.text is not None and string_match(answer, prediction.text, [str(c) for c in choices])
        return Score({NAME: float(hit)}, {NAME: float(hit)}, {})
