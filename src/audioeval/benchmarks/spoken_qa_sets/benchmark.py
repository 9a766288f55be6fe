"""The spoken question and chat sets of UltraEval-Audio as one `Benchmark` family
(`benchmarks/contract.py`): its specs (llama-questions, speech-triviaqa, speech-web-
questions, speech-alpaca-eval, in `specs/`), scored by the generic scorers."""

from __future__ import annotations

from importlib import resources

from audioeval.benchmarks.contract import Benchmark

BENCHMARK = Benchmark(
    name="spoken_qa_sets",
    description="spoken questions (LLaMA-Questions, TriviaQA, WebQuestions) and spoken chat (AlpacaEval)",
    specs=resources.files("audioeval.benchmarks.spoken_qa_sets").joinpath("specs"),
)
