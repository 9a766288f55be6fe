"""The blocks of a pair's `summary.json`, typed: what `metrics/pair_summary.summarise_records`
writes (and the engine's header before it), declared here, apart from the computation, so that
everything that reads a summary (boards, tables, pages, exports) imports the document's types
and no statistic. The judge reliability block (`judge_reliability.ReliabilityBlock`) and the
output health block (`output_health.OutputHealth`) are declared beside the code computing them.
"""

from __future__ import annotations

from typing import TypedDict

from audioeval.metrics.judge_reliability import ReliabilityBlock
from audioeval.metrics.output_health import OutputHealth
from audioeval.metrics.usage_totals import CostTotals, UsageTotals


class PerSampleJson(TypedDict):
    """The per-sample value a metric is made of, as its block says: the key of `Score.values`
    and the factor to the metric's unit."""

    key: str
    scale: float


class MetricDeclaration(TypedDict):
    """What a pair summary's metric block says of the metric beside its value."""

    display: str
    higher_is_better: bool
    unit: str
    aggregation: str
    per_sample: PerSampleJson


class MetricBlock(TypedDict, total=False):
    """One corpus metric of a pair, over all its samples or one group of a breakdown: the
    value, its CI (`[low, high]`, None without resamples), the samples in it, its direction
    and unit; `total` / `count` where the value is their ratio. The overall block also says
    how the metric is declared (`display`, `aggregation`, `per_sample`: `CorpusMetric`)."""

    value: float | None
    ci: list[float] | None
    n: int
    higher_is_better: bool
    unit: str
    total: float
    count: float
    display: str
    aggregation: str
    per_sample: PerSampleJson


Breakdowns = dict[str, dict[str, dict[str, MetricBlock]]]
"""`breakdowns[key][group][metric]`: each metric over each group of a taxonomy key or cross."""


class FailedOutputs(TypedDict):
    """The samples without a usable output (the system's failure), and whether they are in
    the headline (`counted`: as their failure scores) or `excluded` from it."""

    n: int
    in_headline: str
    ids: list[str]


class FirstFailure(TypedDict):
    """The first failed sample of the pair, and its error (one line)."""

    id: str
    error: str


class PairSummary(TypedDict, total=False):
    """A pair's `summary.json` (`<run>/<benchmark>/<model>/summary.json`, and each entry of a
    run summary's `results`): the counts, metrics and breakdowns `summarise_records` computes,
    after the header the engine writes before them (benchmark, model, folder, task, headline,
    output, family) and the digests of the pair files it was computed from (`files_sha256`;
    `content_sha256`: its own, `store/run_summaries.py`)."""

    benchmark: str
    model: str
    folder: str
    task: str
    headline: str | None
    output: str
    family: str
    n: int
    scored: int
    failed: int
    failed_outputs: FailedOutputs
    missing: int
    unparseable: int
    failure_kinds: dict[str, int]
    first_failure: FirstFailure | None
    metrics: dict[str, MetricBlock]
    breakdowns: Breakdowns
    crosses: dict[str, list[str]]
    reliability: dict[str, ReliabilityBlock]
    output_health: OutputHealth
    usage: UsageTotals  # what its model's and its judge's requests used (`metrics/usage_totals.py`)
    cost: CostTotals  # what they cost, with --prices (`engine/run_costs.py`)
    files_sha256: dict[str, str | None]
    content_sha256: str
