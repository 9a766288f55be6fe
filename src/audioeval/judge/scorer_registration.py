"""Registers the judge's scorer of open answers (`qa_judge`) with the scorer registry.

Imported by `benchmarks/scorer_plugins.py`; the scorer module itself loads when first built.
"""

from __future__ import annotations

from audioeval.scoring.base import register_scorer

register_scorer("qa_judge", "audioeval.judge.qa_judge:QaJudgeScorer")
