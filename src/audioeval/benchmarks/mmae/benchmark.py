"""MMAE as a `Benchmark` (`benchmarks/contract.py`): its rubric judge (`mmae_rubrics`, task
`audio_edit`, loaded when first built), its exporter, its preset `mmae score` and tools
`mmae baseline` / `mmae synth` (`preset.py`, as data), its console table (`console_table.py`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from audioeval.benchmarks.contract import Benchmark
from audioeval.benchmarks.mmae.console_table import console_table
from audioeval.benchmarks.mmae.preset import BASELINE, SCORE, SYNTH
from audioeval.scoring.base import DeferredFactory


def _write_exports(folder: Path, export: Any) -> Any:
    from audioeval.benchmarks.mmae.exports import write_exports

    return write_exports(folder, export)


def _rubric_scorer() -> Any:
    from audioeval.benchmarks.mmae.rubric_scorer import MmaeRubricScorer

    return MmaeRubricScorer


def _old_output_hint(folder: Path) -> str | None:
    """An `mmae score` folder of an earlier audioeval: its signature and results, no run.json."""
    if (folder / "signature.json").is_file() and (folder / "results.jsonl").is_file():
        return (
            f"{folder} was written by an `mmae score` of an earlier audioeval, before its output "
            "folders were run directories; score it again with `audioeval mmae score`"
        )
    return None


BENCHMARK = Benchmark(
    name="mmae",
    description="instruction-based audio editing judged by multiple-choice rubrics",
    scorers={"mmae_rubrics": DeferredFactory(_rubric_scorer)},
    exporters={"mmae_rubrics": _write_exports},
    presets=(SCORE,),
    tools=(BASELINE, SYNTH),
    console_table=console_table,
    old_output_hint=_old_output_hint,
)
