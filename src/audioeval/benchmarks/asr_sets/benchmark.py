"""The speech recognition sets as one `Benchmark` family (`benchmarks/contract.py`): its specs
(librispeech-*, commonvoice-*, fleurs-*, aishell1-test, wenetspeech-*, tedlium-test, in
`specs/`), scored by the generic scorers."""

from __future__ import annotations

from importlib import resources

from audioeval.benchmarks.contract import Benchmark

BENCHMARK = Benchmark(
    name="asr_sets",
    description="speech recognition: LibriSpeech, Common Voice, FLEURS, AISHELL-1, WenetSpeech, TED-LIUM",
    specs=resources.files("audioeval.benchmarks.asr_sets").joinpath("specs"),
)
