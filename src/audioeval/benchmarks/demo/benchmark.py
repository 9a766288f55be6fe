"""The embedded demo sets as one `Benchmark` family (`benchmarks/contract.py`): their specs
(demo-*, in `specs/`) and the data they read (`demo_data/`, by paths relative to the spec)."""

from __future__ import annotations

from importlib import resources

from audioeval.benchmarks.contract import Benchmark

BENCHMARK = Benchmark(
    name="demo",
    description="tiny embedded demo sets that run offline (their data in demo_data/)",
    specs=resources.files("audioeval.benchmarks.demo").joinpath("specs"),
)
