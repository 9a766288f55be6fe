"""A pair's summary with every (metric, group) bootstrapped in one `corpus.aggregate_all` call,
pinned to the former one `aggregate` call per metric per group: the same values and CIs to
the bit, the same groups in the same order, the samples in the benchmark's order whichever
failed, and nothing that JSON cannot hold (no NaN)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from audioeval.core.record import FailureKind, SampleRecord, Score
from audioeval.core.sample import Sample
from audioeval.metrics.corpus import get_metric
from audioeval.metrics.grouping import group_by, taxonomy_groups
from audioeval.metrics.pair_summary import PairMetrics, failure_stats_for, stats_for, summarise_records
from tests.test_post_judging_bootstrap import old_aggregate

DECLARED = ("display", "aggregation", "per_sample")
"""What an overall metric block says of its metric's declaration (`CorpusMetric.declaration`)
beside the figures the former blocks held."""


def without_terms(blocks: dict[str, Any]) -> dict[str, Any]:
    """Metric blocks without the terms of a ratio (`total`, `count`) and the metric's declared
    display, aggregation and per-sample scale, which the former blocks lacked; where a block
    has the terms, its value is their ratio."""
    out = {}
    for name, block in blocks.items():
        if "total" in block:
            assert block["count"] > 0 and block["value"] == block["total"] / block["count"]
        out[name] = {k: v for k, v in block.items() if k not in ("total", "count", *DECLARED)}
    return out


def old_blocks(plan: PairMetrics, members: list[SampleRecord], resamples: int, seed: int):
    """The former `_metric_block` loops of `summarise_records`, over the records in the
    metrics (`members`: scored ones and counted failed outputs) in the benchmark's order."""

    def stats_of(m: Any, rec: SampleRecord) -> Any:
        return stats_for(plan, m, rec.scores or {}) if rec.ok else failure_stats_for(plan, m, rec)

    def block(m: Any, recs: list[SampleRecord]) -> dict[str, Any]:
        stats = [s for s in (stats_of(m, r) for r in recs) if s is not None]
        mv = old_aggregate(m, stats, resamples=resamples, seed=seed)
        ci = None if mv.ci_low is None else [mv.ci_low, mv.ci_high]
        return {
            "value": mv.value,
            "ci": ci,
            "n": mv.n,
            "higher_is_better": m.higher_is_better,
            "unit": m.unit,
        }

    def groups(recs: list[SampleRecord], key: str) -> dict[str, list[SampleRecord]]:
        return group_by(recs, lambda rec: taxonomy_groups(rec.taxonomy.get(key)))

    metrics = {m.name: block(m, members) for m in plan.metrics}
    breakdowns = {}
    for key in plan.taxonomy:
        by_group = groups(members, key)
        breakdowns[key] = {g: {m.name: block(m, by_group[g]) for m in plan.metrics} for g in sorted(by_group)}
    return metrics, breakdowns


def _records(seed: int, n: int = 150) -> list[SampleRecord]:
    rng = random.Random(seed)
    out = []
    for k in range(n):
        taxonomy: dict[str, Any] = {"modality": rng.choice(["speech", "music", "sound"])}
        if rng.random() < 0.9:
            taxonomy["ops"] = rng.sample(["add", "remove", "alter"], rng.randint(0, 2))
        sample = Sample(f"s{k:03d}", taxonomy=taxonomy)
        stats = {
            "ifr": None if rng.random() < 0.15 else 100.0 * rng.randint(0, 3) / 3,
            "em": None if rng.random() < 0.4 else 100.0 * rng.randint(0, 1),
            "correct": rng.random() < 0.6,
            "substitutions": rng.randint(0, 2),
            "deletions": rng.randint(0, 1),
            "insertions": rng.randint(0, 1),
            "ref_len": rng.randint(1, 8),
        }
        rec = SampleRecord(sample.id, sample, scores={"judge": Score({}, stats)})
        roll = rng.random()
        if roll < 0.1:  # no usable output: counts with its failure scores
            rec = SampleRecord(
                sample.id, sample, error="no output", failure=FailureKind.NO_OUTPUT, output_failed=True
            )
            zero = {**stats, "ifr": 0.0, "em": 0.0, "correct": False, "deletions": stats["ref_len"]}
            rec.failure_scores = {"judge": Score({}, zero)}
        elif roll < 0.15:  # the judge failed: counted, never in a metric
            rec = SampleRecord(
                sample.id, sample, error="judge: 1 of 3 rubric(s) failed", failure=FailureKind.JUDGE
            )
        out.append(rec)
    return out


PLAN = PairMetrics(
    [get_metric("mean:ifr"), get_metric("mean:em"), get_metric("accuracy"), get_metric("wer")],
    taxonomy=["modality", "ops", "absent"],
    feeds={"mean:ifr": ["judge"], "mean:em": ["judge"], "accuracy": ["judge"], "wer": ["judge"]},
)


@pytest.mark.parametrize(("seed", "exclude"), [(0, False), (1, True), (2, False)])
def test_summary_equals_one_aggregate_per_metric_and_group(seed: int, exclude: bool) -> None:
    records = _records(seed)
    ids = [r.id for r in records] + ["never-run"]
    got = summarise_records(
        PLAN, records, expected_ids=ids, resamples=300, seed=seed, exclude_failed_outputs=exclude
    )
    members = [r for r in records if r.ok or (r.output_failed and not exclude)]
    metrics, breakdowns = old_blocks(PLAN, members, 300, seed)
    assert without_terms(got["metrics"]) == metrics
    assert {k: {g: without_terms(b) for g, b in gs.items()} for k, gs in got["breakdowns"].items()} == breakdowns
    assert list(got["breakdowns"]["modality"]) == sorted(got["breakdowns"]["modality"])
    assert got["breakdowns"]["absent"] == {}
    json.dumps(got, allow_nan=False)  # no NaN reaches a summary


def test_summary_without_resamples_or_records() -> None:
    records = _records(3, 20)
    got = summarise_records(PLAN, records, resamples=0)
    metrics, breakdowns = old_blocks(PLAN, [r for r in records if r.ok or r.output_failed], 0, 0)  # by id
    assert without_terms(got["metrics"]) == metrics
    assert {k: {g: without_terms(b) for g, b in gs.items()} for k, gs in got["breakdowns"].items()} == breakdowns
    assert all(b["ci"] is None for b in got["metrics"].values())
    empty = summarise_records(PLAN, [], expected_ids=["a"])
    assert all(b == {**b, "value": None, "ci": None, "n": 0} for b in empty["metrics"].values())
    assert empty["breakdowns"] == {"modality": {}, "ops": {}, "absent": {}}


def test_a_partly_scored_record_is_in_the_metrics_and_counted_failed_not_as_a_failed_output() -> None:
    """A record whose judged scorer failed but kept what its benchmark scores (MMAE: the rubrics
    judged when one failed, `JudgeFailed.partial`) enters the metrics in its place in the
    benchmark's order, is counted in `failed`, and is no failed output (the list of failed
    outputs once grew by every partly scored record)."""
    recs = _records(4, 40)
    partial = recs[5]
    partial.failed("judge: 1 of 3 rubric(s) failed", FailureKind.JUDGE)
    partial.scores = {"judge": Score({}, {"ifr": 50.0, "em": None, "correct": True, "substitutions": 0,
                                          "deletions": 0, "insertions": 0, "ref_len": 3})}  # fmt: skip
    got = summarise_records(PLAN, recs, resamples=50, seed=2)
    members = [r for r in recs if r.ok or r.output_failed or r is partial]
    as_scored = SampleRecord(partial.id, partial.sample, scores=partial.scores)
    metrics, _ = old_blocks(PLAN, [as_scored if r is partial else r for r in members], 50, 2)
    assert without_terms(got["metrics"]) == metrics
    assert partial.id not in got["failed_outputs"]["ids"]
    assert got["failed_outputs"]["n"] == sum(1 for r in recs if r.output_failed)
    assert got["failed"] == sum(1 for r in recs if not r.ok)
