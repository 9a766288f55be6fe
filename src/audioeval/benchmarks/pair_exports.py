"""A benchmark's own files, exported from the records of one benchmark × model pair.

Some benchmarks publish files of their own beside the run's summaries (MMAE:
`results.jsonl`, `per_sample.json`, `taxonomy.json`, `skipped.json`,
`failed_outputs.json`). They are exports of the record stream, never a second store: the
engine writes them, whole and atomically, at the end of every run and of every rescore,
from the pair's records. A benchmark lists its exporters as function objects
(`Benchmark.exporters`, `contract.py`), under the name of the scorer whose records it reads
(MMAE) or a name the benchmark spec gives in `exports:` (`mcq score`). What it returns is handed back to
the caller of the run or rescore (e.g. the figures `mcq score` prints).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from audioeval.benchmarks.resolved_benchmark import ResolvedBenchmark
from audioeval.core.errors import InputError
from audioeval.core.record import SampleRecord
from audioeval.metrics.summary_blocks import PairSummary

if TYPE_CHECKING:
    from audioeval.metrics.judge_reliability import ReliabilityBlock


@dataclass
class PairExport:
    """What an exporter reads: the pair's records and the settings its figures depend on."""

    bench: ResolvedBenchmark
    records: list[SampleRecord]  # the valid records, in file order
    expected_ids: list[str]  # the benchmark's samples, in order
    skipped: list[InputError] = field(default_factory=list)  # inputs that could not be read
    stored: int = 0  # how many of `records` were there before this run (0: a rescore)
    asked_ids: list[str] = field(default_factory=list)  # the samples this run asked (none: a rescore)
    resamples: int = 1000
    seed: int = 0
    exclude_missing: bool = False
    judge_model: str | None = None
    judged: bool = True  # False when rescoring: nothing was judged
    run_info: dict[str, Any] = field(default_factory=dict)  # written as the files' "run" block
    summary: PairSummary = field(default_factory=lambda: PairSummary())  # the pair's summary, as just written

    def reliability(self, scorer: str | None = None) -> dict[str, ReliabilityBlock]:
        """The pair summary's judge reliability `{scorer: block}` (of one scorer when named)."""
        blocks = self.summary.get("reliability") or {}
        return {k: v for k, v in blocks.items() if scorer in (None, k)}


Exporter = Callable[[Path, PairExport], Any]
"""Writes a benchmark's own files into a pair folder from the pair's records; what it returns
goes back to the caller of the run (`Benchmark.exporters`; found by `resolved.exporter_for`)."""
