"""UltraEval-Audio's text rules as a `Benchmark` (`benchmarks/contract.py`): the `ultraeval`
scoring profile (`profile.py`); the libraries its rules need load when first used."""

from __future__ import annotations

from audioeval.benchmarks.contract import Benchmark
from audioeval.benchmarks.ultraeval.profile import ULTRAEVAL
from audioeval.benchmarks.ultraeval.result_file import FORMAT as RESULTS

BENCHMARK = Benchmark(
    name="ultraeval",
    description="UltraEval-Audio's text conventions as the `ultraeval` profile (--profile ultraeval)",
    profiles=(ULTRAEVAL,),
    prediction_formats={"ultraeval_results": RESULTS},
)
