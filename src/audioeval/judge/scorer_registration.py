"""Registers the judge's scorers (`qa_judge` for open answers, `rubric_items` for yes/no rubric
items) with the scorer registry.

Imported by `benchmarks/scorer_plugins.py`; the scorer module itself loads when first built.
"""

from __future__ import annotations

from audioeval.scoring.base import register_scorer

register_scorer("qa_judge", "audioeval.judge.qa_judge:QaJudgeScorer")
register_scorer("rubric_items", "audioeval.judge.rubric_items:RubricItemsScorer")
