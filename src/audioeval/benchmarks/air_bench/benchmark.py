"""AIR-Bench as a `Benchmark` (`benchmarks/contract.py`): its specs (`specs/air-bench-*.yaml`),
its scorers (`air_bench_foundation`, the official foundation rule; `airbench_chat`, the chat
judge) and their prompts (`templates/`)."""

from __future__ import annotations

from importlib import resources
from typing import Any

from audioeval.benchmarks.contract import Benchmark
from audioeval.scoring.base import DeferredFactory


def _foundation() -> Any:
    from audioeval.benchmarks.air_bench.foundation_scorer import AirBenchFoundationScorer

    return AirBenchFoundationScorer


def _chat_judge() -> Any:
    from audioeval.benchmarks.air_bench.chat_judge import AirBenchChatScorer

    return AirBenchChatScorer


BENCHMARK = Benchmark(
    name="air_bench",
    description="AIR-Bench: audio foundation questions and judged open-ended audio chat",
    specs=resources.files("audioeval.benchmarks.air_bench").joinpath("specs"),
    scorers={
        "air_bench_foundation": DeferredFactory(_foundation),
        "airbench_chat": DeferredFactory(_chat_judge),
    },
    template_folders=(("audioeval.benchmarks.air_bench", "templates"),),
    task_scorers={"audio_chat": ("airbench_chat",)},
)
