"""Caption decomposition into rubric items as a `Benchmark` (`benchmarks/contract.py`), named
`caption_rubrics` (`rubric_items` is the generic judged scorer of `judge/`): its
scorer (`rubric_decompose`, `audioeval rubric decompose`, loaded when first built), its
exporter and its preset (`audioeval rubric decompose`: `preset.py`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from audioeval.benchmarks.contract import Benchmark
from audioeval.benchmarks.rubric_items.preset import DECOMPOSE
from audioeval.scoring.base import DeferredFactory


def _write_exports(folder: Path, export: Any) -> Any:
    from audioeval.benchmarks.rubric_items.decompose_export import write_exports

    return write_exports(folder, export)


def _decompose_scorer() -> Any:
    from audioeval.benchmarks.rubric_items.decompose_scorer import RubricDecomposeScorer

    return RubricDecomposeScorer


BENCHMARK = Benchmark(
    name="caption_rubrics",
    description="captions decomposed by a text LLM into atomic yes/no rubric items",
    scorers={"rubric_decompose": DeferredFactory(_decompose_scorer)},
    exporters={"rubric_decompose": _write_exports},
    presets=(DECOMPOSE,),
)
