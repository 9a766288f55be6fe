"""VoiceBench as a `Benchmark` (`benchmarks/contract.py`): its specs (`specs/voicebench-*.yaml`),
its scorers (`voicebench_mcq`, `bbh_match`, `refusal`, and the judges `voicebench_open` and
`voicebench_qa`) and its judge prompts (`templates/`)."""

from __future__ import annotations

from importlib import resources
from typing import Any

from audioeval.benchmarks.contract import Benchmark
from audioeval.benchmarks.voicebench.output_file import FORMAT as VOICEBENCH_OUTPUTS
from audioeval.scoring.base import DeferredFactory


def _mcq() -> Any:
    from audioeval.benchmarks.voicebench.mcq_scorer import VoiceBenchMcqScorer

    return VoiceBenchMcqScorer


def _bbh() -> Any:
    from audioeval.benchmarks.voicebench.bbh_match import BbhMatchScorer

    return BbhMatchScorer


def _refusal() -> Any:
    from audioeval.benchmarks.voicebench.refusal import RefusalScorer

    return RefusalScorer


def _open_judge() -> Any:
    from audioeval.benchmarks.voicebench.open_judge import VoiceBenchOpenScorer

    return VoiceBenchOpenScorer


def _qa_judge() -> Any:
    from audioeval.benchmarks.voicebench.qa_judge import VoiceBenchQaScorer

    return VoiceBenchQaScorer


BENCHMARK = Benchmark(
    name="voicebench",
    description="VoiceBench: spoken instructions answered, each subset scored by its official rule",
    specs=resources.files("audioeval.benchmarks.voicebench").joinpath("specs"),
    scorers={
        "voicebench_mcq": DeferredFactory(_mcq),
        "bbh_match": DeferredFactory(_bbh),
        "refusal": DeferredFactory(_refusal),
        "voicebench_open": DeferredFactory(_open_judge),
        "voicebench_qa": DeferredFactory(_qa_judge),
    },
    template_folders=(("audioeval.benchmarks.voicebench", "templates"),),
    prediction_formats={"voicebench_outputs": VOICEBENCH_OUTPUTS},
)
