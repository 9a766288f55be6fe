"""MMAE as a `Benchmark` (`benchmarks/contract.py`): its rubric judge (`mmae_rubrics`, task
`audio_edit`, loaded when first built), its rubrics answered by measurement (`mmae_verifiers`,
`mmae score --judge verifiers`), its rates IFR, CR, EMR and the editing board (`metrics.py`),
its exporter, its preset `mmae score` and tools
`mmae baseline` / `mmae synth` (`preset.py`, as data), its console table (`console_table.py`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from audioeval.adapters.predictions import PredictionsRead
from audioeval.benchmarks.contract import Benchmark
from audioeval.benchmarks.mmae.console_table import console_table
from audioeval.benchmarks.mmae.metrics import CR, EDITING_BOARD, EMR, IFR, MICRO_RATES, RATES
from audioeval.benchmarks.mmae.preset import BASELINE, SCORE, SYNTH
from audioeval.benchmarks.prediction_formats import Loader, PredictionFormat, json_items
from audioeval.benchmarks.sources.source_formats import SourceFormat, SourceRequest
from audioeval.core.errors import InputError
from audioeval.core.sample import Sample
from audioeval.scoring.base import DeferredFactory

FORMAT = "mmae"
"""The name of MMAE's file format, as a source type (its metadata) and as a predictions
format (its edited audio)."""


def _write_exports(folder: Path, export: Any) -> Any:
    from audioeval.benchmarks.mmae.exports import write_exports

    return write_exports(folder, export)


def _rubric_scorer() -> Any:
    from audioeval.benchmarks.mmae.rubric_scorer import MmaeRubricScorer

    return MmaeRubricScorer


def _verifier_scorer() -> Any:
    from audioeval.benchmarks.mmae.verifier_scorer import MmaeVerifierScorer

    return MmaeVerifierScorer


def _read_metadata(asked: SourceRequest) -> tuple[list[Sample], list[InputError]]:
    from audioeval.benchmarks.mmae.source import load_mmae_samples

    return load_mmae_samples(asked.path, audio_root=asked.audio_root, limit=asked.limit)


def _edited_audio(key: str | None) -> Loader:
    from audioeval.benchmarks.mmae.loading import edited_audio_by_id

    if key is not None:
        raise InputError(
            "MMAE predictions hold one output per item: no prediction key", field="prediction_key"
        )

    def read(path: Path) -> PredictionsRead:
        return PredictionsRead(*edited_audio_by_id(path))

    return read


def _is_prediction(item: Any) -> bool:
    """An MMAE predictions item: an id and the conversation whose last turn is the edit."""
    return isinstance(item, dict) and "id" in item and isinstance(item.get("messages"), list)


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
    scorers={
        "mmae_rubrics": DeferredFactory(_rubric_scorer),
        "mmae_verifiers": DeferredFactory(_verifier_scorer),
    },
    metrics=(*RATES, *MICRO_RATES),
    boards=(EDITING_BOARD,),
    exporters={"mmae_rubrics": _write_exports, "mmae_verifiers": _write_exports},
    source_types={
        FORMAT: SourceFormat(
            _read_metadata,
            "an MMAE metadata file (JSON list or JSONL): instructions, input clips, rubric MCQs",
            checks_inputs=True,  # the clips its rubrics name: a sample with a missing one is skipped
        )
    },
    prediction_formats={
        FORMAT: PredictionFormat(
            _edited_audio,
            "audio",
            frozenset({"audio_edit"}),
            json_items(_is_prediction),
            '{"id", "messages"} items whose last assistant turn holds the edited audio',
        )
    },
    task_scorers={"audio_edit": ("mmae_rubrics",)},
    presets=(SCORE,),
    tools=(BASELINE, SYNTH),
    console_table=console_table,
    old_output_hint=_old_output_hint,
    definitions={
        IFR.name: "IFR, instruction-following rate: per edited clip, the mean score of its"
        ' "Instruction Following" rubrics (did the edit do what was asked); the mean over clips'
        " × 100.",
        CR.name: "CR, consistency rate: per edited clip, the mean score of its other rubrics (is"
        " what should stay unchanged unchanged); the mean over clips × 100. A clip without such a"
        " rubric (an extraction) is left out of CR.",
        EMR.name: "EMR, exact-match rate: the share of clips × 100 whose every rubric scored 1."
        " A clip with a failed rubric and every scored one at 1 is undetermined and left out.",
    },
)
