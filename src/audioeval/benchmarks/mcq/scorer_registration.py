"""Registers the MMAR-Rubrics judge (`mmar_rubrics`, `mcq score --rubrics`) with the scorer registry.

Imported by `benchmarks/scorer_plugins.py`; the scorer module itself loads when first built.
"""

from __future__ import annotations

from audioeval.scoring.base import register_scorer

register_scorer("mmar_rubrics", "audioeval.benchmarks.mcq.rubric_scorer:McqRubricScorer")
