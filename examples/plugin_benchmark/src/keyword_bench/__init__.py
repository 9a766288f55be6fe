"""An example audioeval benchmark plugin: the `Benchmark` that the entry point names."""

from __future__ import annotations

from importlib import resources

from audioeval.benchmarks.contract import Benchmark
from audioeval.metrics.declaration import MeanDeclaration
from keyword_bench.formats import PREDICTION_FORMATS, SOURCE_TYPES
from keyword_bench.scorer import KeywordHitScorer

BENCHMARK = Benchmark(
    name="keyword_demo",
    description="captions of three tiny clips, scored by the keywords they contain",
    specs=resources.files(__name__).joinpath("specs"),
    scorers={"keyword_hit": KeywordHitScorer},
    source_types=SOURCE_TYPES,  # its data file format, named in the spec's `source.type`
    prediction_formats=PREDICTION_FORMATS,  # its file of captions produced elsewhere
    # The mean of its scorer's per-sample fractions, declared once: shown as "keyword hit",
    # a fraction (0–1: shown as a percentage, put on the boards' 0–100 scale as 100 × it).
    # A `mean:` metric of a plugin that nobody declares stays off the boards.
    metrics=(MeanDeclaration("keyword_hit", "keyword hit", "fraction"),),
)
