"""The speech translation sets as one `Benchmark` family (`benchmarks/contract.py`): its specs
(covost2-*, in `specs/`), scored by the generic scorers."""

from __future__ import annotations

from importlib import resources

from audioeval.benchmarks.contract import Benchmark

BENCHMARK = Benchmark(
    name="ast_sets",
    description="speech translation: CoVoST 2 en-zh and zh-en",
    specs=resources.files("audioeval.benchmarks.ast_sets").joinpath("specs"),
)
