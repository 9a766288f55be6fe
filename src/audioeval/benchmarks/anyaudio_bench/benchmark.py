"""AnyAudio-Judge Bench as a `Benchmark` (`benchmarks/contract.py`): its scorer
(`anyaudio_items`: `items_scorer.py`), exporter, preset (`audioeval judge-eval`: `preset.py`)
and console table (`console_table.py`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from audioeval.benchmarks.anyaudio_bench.preset import JUDGE_EVAL
from audioeval.benchmarks.contract import Benchmark
from audioeval.metrics.declaration import MeanDeclaration
from audioeval.scoring.base import DeferredFactory


def _write_exports(folder: Path, export: Any) -> Any:
    from audioeval.benchmarks.anyaudio_bench.export import write_exports

    return write_exports(folder, export)


def _console_table(figures: Any) -> Any:
    from audioeval.benchmarks.anyaudio_bench.console_table import console_table

    return console_table(figures)


def _items_scorer() -> Any:
    from audioeval.benchmarks.anyaudio_bench.items_scorer import AnyAudioItemsScorer

    return AnyAudioItemsScorer


BENCHMARK = Benchmark(
    name="anyaudio_bench",
    description="how well a judge tells matching audio-caption pairs from hard negatives",
    scorers={"anyaudio_items": DeferredFactory(_items_scorer)},
    exporters={"judge_eval": _write_exports},
    presets=(JUDGE_EVAL,),
    console_table=_console_table,
    metrics=(
        # a row's label (1 yes, 0 no) and, at the run's threshold, whether the judge said yes
        MeanDeclaration("label_yes", "yes labels", "fraction"),
        MeanDeclaration("said_yes", "yes rate", "fraction"),
    ),
)
