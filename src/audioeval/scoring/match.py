"""Label matching: exact match (`accuracy`) and gold-in-prediction (`includes`).

Both normalise the prediction and every gold label with the same chain (default `strip`,
then case folding unless `ignore_case` is false). The gold comes from the `answer` field
or the one named by `field`: a string, or a list of acceptable labels.

`stats` = `{"correct": 0|1, "pred": label|None, "gold": label}` (labels normalised), so
corpus accuracy is the mean of `correct` and macro-F1 can be computed from pred/gold pairs.
`gold` is the label matched, or the first gold label when none matched; `pred` is None
when post-processing found no answer.

`accuracy` compares by `match`: "exact" (the default), "prefix" (the prediction starts with
the gold) or "exist" (the gold occurs in the prediction); an empty gold label matches nothing
but an empty prediction under "exact". A scoring `profile` other than the default
(`scoring/profiles.py`) compares by the profile's `accuracy_match` hook instead, which may
rewrite the prediction (`ultraeval`: UltraEval-Audio's `EM` / `PrefixMatch` / `ExistMatch`,
benchmarks/ultraeval/label_rules.py); `stats["pred"]` holds the rewritten prediction, so
macro-F1 sees the profile's labels too.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from audioeval.core.sample import Sample
from audioeval.postprocess.step_library import StepSpec
from audioeval.postprocess.steps import PostprocessChain, SpecItem
from audioeval.scoring.base import Prediction, Score, Scorer, as_normaliser
from audioeval.scoring.fields import text_list
from audioeval.scoring.profiles import DEFAULT_PROFILE, get_profile, profile_hook
from audioeval.scoring.scorer_hooks import ScorerSignature

Normaliser = PostprocessChain | Sequence[SpecItem] | None
MATCHES = ("exact", "prefix", "exist")


class MatchSignature(ScorerSignature, total=False):
    field: str
    normaliser: list[StepSpec] | str
    ignore_case: bool
    match: str  # accuracy: exact, prefix or contains
    profile: str
    whole_words: bool  # includes


class _LabelScorer(Scorer):
    name = ""
    light = True  # a string match: scored on the event loop (`Scorer.light`)

    def __init__(self, field: str, normaliser: Normaliser, ignore_case: bool) -> None:
        self.field = field
        self.normaliser = as_normaliser(normaliser, default=["strip"])
        self.ignore_case = ignore_case

    def label(self, text: str) -> str:
        out = self.normaliser.normalise(text)
        return out.casefold() if self.ignore_case else out

    def matches(self, pred: str, gold: str) -> bool:
        raise NotImplementedError

    def signature(self) -> MatchSignature:
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
    """`accuracy`: the normalised prediction matches a normalised gold label (`match`)."""

    name = "accuracy"
    metrics = ("accuracy",)
    extra_metrics = ("macro_f1",)

    def __init__(
        self,
        *,
        field: str = "answer",
        normaliser: Normaliser = None,
        ignore_case: bool | None = None,
        match: str = "exact",
        profile: str = DEFAULT_PROFILE,
    ) -> None:
        if match not in MATCHES:
            raise ValueError(f"match must be one of {', '.join(MATCHES)}, got {match!r}")
        self._their_match = profile_hook(profile, lambda p: p.accuracy_match, "accuracy")
        if profile != DEFAULT_PROFILE and (normaliser is not None or ignore_case is not None):
            raise ValueError(
                f"profile {profile!r} compares labels by its `match` rule: drop `normaliser` and `ignore_case`"
            )
        super().__init__(field, normaliser, True if ignore_case is None else ignore_case)
        self.match = match
        self.profile = profile

    def signature(self) -> MatchSignature:
        sig = super().signature()
        if self.match != "exact":
            sig["match"] = self.match
        if self.profile != DEFAULT_PROFILE:
            texts = get_profile(self.profile).accuracy_texts or {}
            sig.update(profile=self.profile, match=self.match, normaliser=texts.get(self.match, self.match))
            del sig["ignore_case"]
        return sig

    def matches(self, pred: str, gold: str) -> bool:
        if self.match == "exact":
            return pred == gold
        if not gold:
            return False
        return pred.startswith(gold) if self.match == "prefix" else gold in pred

    def score(self, prediction: Prediction, sample: Sample) -> Score:
        if self.profile == DEFAULT_PROFILE:
            return super().score(prediction, sample)
        raw = sample.get(self.field)
        numeric = isinstance(raw, int | float) and not isinstance(raw, bool)
        golds = text_list(sample, self.field, self.name)
        if prediction.text is None:
            stats = {"correct": 0, "pred": None, "gold": self._their_match(self.match, "", golds[0], numeric)[2]}
            return Score({self.name: 0.0}, stats, {"missing": True, "outcome": prediction.outcome})
        results = [self._their_match(self.match, prediction.text, g, numeric) for g in golds]
        hit, pred, gold = next((r for r in results if r[0]), results[0])
        stats = {"correct": int(hit), "pred": pred, "gold": gold}
        return Score({self.name: float(hit)}, stats, {"golds": golds})


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

    def signature(self) -> MatchSignature:
        return {**super().signature(), "whole_words": self.whole_words}

    def matches(self, pred: str, gold: str) -> bool:
        if not gold:
            return False
        if self.whole_words:
            return re.search(rf"(?<!\w){re.escape(gold)}(?!\w)", pred) is not None
        return gold in pred
