"""The audio classification sets as one `Benchmark` family (`benchmarks/contract.py`): its
specs (gtzan-genre, meld-*, nsynth-instrument, tess-emotion, vocalsound, voxceleb1-gender,
in `specs/`), scored by the generic scorers."""

from __future__ import annotations

from importlib import resources

from audioeval.benchmarks.contract import Benchmark

BENCHMARK = Benchmark(
    name="classification_sets",
    description="audio classification: genre, emotion, sentiment, instrument, vocal sound, gender",
    specs=resources.files("audioeval.benchmarks.classification_sets").joinpath("specs"),
)
