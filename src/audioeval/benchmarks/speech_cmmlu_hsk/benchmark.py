"""SpeechCMMLU and SpeechHSK (UltraEval-Audio's Chinese spoken multiple-choice sets) as one
`Benchmark` family (`benchmarks/contract.py`): its specs (speech-cmmlu*, speech-hsk*, in
`specs/`), scored by the generic scorers."""

from __future__ import annotations

from importlib import resources

from audioeval.benchmarks.contract import Benchmark

BENCHMARK = Benchmark(
    name="speech_cmmlu_hsk",
    description="SpeechCMMLU and SpeechHSK: Chinese spoken multiple-choice questions",
    specs=resources.files("audioeval.benchmarks.speech_cmmlu_hsk").joinpath("specs"),
)
