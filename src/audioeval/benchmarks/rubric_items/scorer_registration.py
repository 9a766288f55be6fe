"""Registers the caption decomposer (`rubric_decompose`, `audioeval rubric decompose`) with the
scorer registry.

Imported by `benchmarks/scorer_plugins.py`; the scorer module itself loads when first built.
"""

from __future__ import annotations

from audioeval.scoring.base import register_scorer

register_scorer(
    "rubric_decompose", "audioeval.benchmarks.rubric_items.decompose_scorer:RubricDecomposeScorer"
)
