"""Registers the MMAE rubric judge (`mmae_rubrics`, task `audio_edit`) with the scorer registry.

Imported by `benchmarks/scorer_plugins.py`; the scorer module itself loads when first built.
"""

from __future__ import annotations

from audioeval.scoring.base import register_scorer

register_scorer("mmae_rubrics", "audioeval.benchmarks.mmae.rubric_scorer:MmaeRubricScorer")
