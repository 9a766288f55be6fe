"""Label matching: exact match (`accuracy`) and gold-in-prediction (`includes`).

Both normalise the prediction and every gold label with the same chain (default `strip`,
then case folding unless `ignore_case` is false). The gold comes from the `answer` field
or the one named by `field`: a string, or a list of acceptable labels.

`stats` = `{"correct": 0|1, "pred": label|None, "gold": label}` (labels normalised), so
corpus accuracy is the mean of `correct` and macro-F1 can be computed from pred/gold pairs.
`gold` is the label matched, or the first gold label when none matched; `pred` is None
when post-processing found no answer.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from audioeval.core.sample import Sample
from audioeval.postprocess.steps import PostprocessChain, SpecItem
from audioeval.scoring.base import Prediction, Score, as_normaliser
from audioeval.scoring.fields import text_list

Normaliser = PostprocessChain | Sequence[SpecItem] | None


class _LabelScorer:
    name = ""

    def __init__(self, field: str, normaliser: Normaliser, ignore_case: bool) -> None:
        self.field = field
        self.normaliser = as_normaliser(normaliser, default=["strip"])
        self.ignore_case = ignore_case

    def label(self, text: str) -> str:
        out = self.normaliser.normalise(text)
        return out.casefold() if self.ignore_case else out

    def matches(self, pred: str, gold: str) -> bool:
        raise NotImplementedError

    def signature(self) -> dict[str, Any]:
        return {
            "scorer": self.name,
            "field": self.field,
            "normaliser": self.normaliser.describe(),
            "ignore_case": self.ignore_case,
        }

    def score(self, prediction: Prediction, sample: Sample) -> Score:
        golds = [self.label(g) for g in text_list(sample, self.field, self.name)]
        if prediction.text is None:
            stats = {"correct": 0, "pred": None, "gold": golds[0]}
            return Score({self.name: 0.0}, stats, {"missing": True, "outcome": prediction.outcome})
        pred = self.label(prediction.text)
        hit = next((g for g in golds if self.matches(pred, g)), None)
        stats = {"correct": int(hit is not None), "pred": pred, "gold": golds[0] if hit is None else hit}
        return Score({self.name: float(hit is not None)}, stats, {"golds": golds})


class AccuracyScorer(_LabelScorer):
    """`accuracy`: the normalised prediction equals a normalised gold label."""

    name = "accuracy"
    metrics = ("accuracy",)
    extra_metrics = ("macro_f1",)

    def __init__(
        self, *, field: str = "answer", normaliser: Normaliser = None, ignore_case: bool = True
    ) -> None:
        super().__init__(field, normaliser, ignore_case)

    def matches(self, pred: str, gold: str) -> bool:
        return pred == gold


class IncludesScorer(_LabelScorer):
    """`includes`: a normalised gold label occurs in the normalised prediction.

    With `whole_words`, the gold must not be part of a longer word ("no" is not in "not").
    An empty gold label matches nothing.
    """

    name = "includes"
    metrics = ("includes",)

    def __init__(
        self,
        *,
        field: str = "answer",
        normaliser: Normaliser = None,
        ignore_case: bool = True,
        whole_words: bool = False,
    ) -> None:
        super().__init__(field, normaliser, ignore_case)
        self.whole_words = whole_words

    def signature(self) -> dict[str, Any]:
        return {**super().signature(), "whole_words": self.whole_words}

    def matches(self, pred: str, gold: str) -> bool:
        if not gold:
            return False
        if self.whole_words:
            return re.search(rf"(?<!\w){re.escape(gold)}(?!\w)", pred) is not None
        return gold in pred
