"""The registered exporters of benchmark files (`pair_exports.py`), by name: a spec's
`exports:` is checked against them when it is resolved."""

from __future__ import annotations

from audioeval.core.registry import Registry

EXPORTERS: Registry[str] = Registry(
    "exporter",
    [
        ("mmae_rubrics", "audioeval.benchmarks.mmae.exports:write_exports"),
        ("mcq_score", "audioeval.benchmarks.mcq.export:write_exports"),
        ("judge_eval", "audioeval.benchmarks.anyaudio_bench.export:write_exports"),
        ("rubric_decompose", "audioeval.benchmarks.rubric_items.decompose_export:write_exports"),
    ],
)
"""Scorer or `exports:` name -> "module:function" of the exporter of its pairs."""
