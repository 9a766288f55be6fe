"""The audio captioning sets as one `Benchmark` family (`benchmarks/contract.py`): its specs
(audiocaps-test, clotho-eval, wavcaps-*, in `specs/`), scored by the generic scorers."""

from __future__ import annotations

from importlib import resources

from audioeval.benchmarks.contract import Benchmark

BENCHMARK = Benchmark(
    name="caption_sets",
    description="audio captioning: AudioCaps, Clotho, WavCaps (COCO caption metrics)",
    specs=resources.files("audioeval.benchmarks.caption_sets").joinpath("specs"),
)
