"""Seed-TTS-Eval and CV3-Eval voice-clone sets as one `Benchmark` family
(`benchmarks/contract.py`): its specs (seed-tts-eval-*, cv3-eval-*, in `specs/`), scored by
the generic scorers."""

from __future__ import annotations

from importlib import resources

from audioeval.benchmarks.contract import Benchmark

BENCHMARK = Benchmark(
    name="tts_sets",
    description="voice cloning (Seed-TTS-Eval, CV3-Eval): ASR WER/CER of the output and speaker SIM",
    specs=resources.files("audioeval.benchmarks.tts_sets").joinpath("specs"),
)
