"""AnyAudio-Judge Bench as a `Benchmark` (`benchmarks/contract.py`): its scorer
(`anyaudio_items`: `items_scorer.py`) and exporter; its command (`judge-eval`) is still a CLI
module of its own (cli/judge_eval_commands.py) until it becomes a `Preset` (benchmarks/preset.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from audioeval.benchmarks.contract import Benchmark
from audioeval.scoring.base import DeferredFactory


def _write_exports(folder: Path, export: Any) -> Any:
    from audioeval.benchmarks.anyaudio_bench.export import write_exports

    return write_exports(folder, export)


def _items_scorer() -> Any:
    from audioeval.benchmarks.anyaudio_bench.items_scorer import AnyAudioItemsScorer

    return AnyAudioItemsScorer


BENCHMARK = Benchmark(
    name="anyaudio_bench",
    description="how well a judge tells matching audio-caption pairs from hard negatives",
    scorers={"anyaudio_items": DeferredFactory(_items_scorer)},
    exporters={"judge_eval": _write_exports},
)
