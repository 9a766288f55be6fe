"""`keyword_hit`: the fraction of a sample's keywords (its `keywords` field: a list, or words
separated by commas) that the answer contains, case-insensitively, as whole words."""

from __future__ import annotations

import re
from typing import Any

from audioeval.core.record import Score
from audioeval.core.sample import Sample
from audioeval.scoring.base import Prediction, Scorer


class KeywordHitScorer(Scorer):
    """Per sample: `hits` of `keywords`; the corpus figure is the mean of the per-sample fractions.
    Every other hook (`rescore`, `failed_output_score`, …) keeps `Scorer`'s default."""

    name = "keyword_hit"
    metrics = ("mean:keyword_hit",)  # declared by the benchmark (`__init__.py`): a fraction

    def __init__(self, *, field: str = "keywords") -> None:
        self.field = field

    def signature(self) -> dict[str, Any]:
        return {"scorer": self.name, "field": self.field, "match": "whole words, any case"}

    def score(self, prediction: Prediction, sample: Sample) -> Score:
        raw = sample.get(self.field) or []
        items = raw.split(",") if isinstance(raw, str) else raw
        keywords = [str(k).strip().lower() for k in items if str(k).strip()]
        if not keywords:
            raise ValueError(f"sample {sample.id} has no {self.field}")
        text = (prediction.text or "").lower()
        hits = [k for k in keywords if re.search(rf"(?<!\w){re.escape(k)}(?!\w)", text)]
        fraction = len(hits) / len(keywords)
        stats = {"keyword_hit": fraction, "hits": len(hits), "keywords": len(keywords)}
        return Score({"keyword_hit": fraction}, stats, {"hit": hits, "missing": prediction.text is None})
