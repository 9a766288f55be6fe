"""A benchmark's own files, exported from the records of one benchmark × model pair.

Some benchmarks publish files of their own beside the run's summaries (MMAE:
`results.jsonl`, `per_sample.json`, `taxonomy.json`, `skipped.json`,
`failed_outputs.json`). They are exports of the record stream, never a second store: the
engine writes them, whole and atomically, at the end of every run and of every rescore,
from the pair's records. An exporter is registered under the name of the scorer whose
records it reads, by module path, and imported only when a pair has that scorer.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from audioeval.benchmarks.resolved import ResolvedBenchmark
from audioeval.core.errors import InputError
from audioeval.core.record import SampleRecord
from audioeval.core.registry import Registry

EXPORTERS: Registry[str] = Registry(
    "exporter", [("mmae_rubrics", "audioeval.benchmarks.mmae.exports:write_exports")]
)
"""Scorer name -> "module:function" of the exporter of its pairs."""


@dataclass
class PairExport:
    """What an exporter reads: the pair's records and the settings its figures depend on."""

    bench: ResolvedBenchmark
    records: list[SampleRecord]  # the valid records, in file order
    expected_ids: list[str]  # the benchmark's samples, in order
    skipped: list[InputError] = field(default_factory=list)  # inputs that could not be read
    stored: int = 0  # how many of `records` were there before this run (0: a rescore)
    resamples: int = 1000
    seed: int = 0
    exclude_missing: bool = False
    judge_model: str | None = None
    judged: bool = True  # False when rescoring: nothing was judged
    run_info: dict[str, Any] = field(default_factory=dict)  # written as the files' "run" block


Exporter = Callable[[Path, PairExport], None]


def exporter_for(bench: ResolvedBenchmark) -> Exporter | None:
    """The exporter of the first of the benchmark's scorers that has one."""
    for scorer in bench.scorers:
        target = EXPORTERS.find(scorer.name)
        if target is not None:
            module, _, name = target.partition(":")
            fn: Exporter = getattr(importlib.import_module(module), name)
            return fn
    return None
