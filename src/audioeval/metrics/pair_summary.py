"""The summary of one benchmark × model from its records: corpus metrics with CIs, taxonomy
breakdowns, and the counts of what was scored, what failed and why (by `FailureKind`).

Only the latest record of each sample id counts (a rerun's record supersedes a failed one).
Each metric reads the sufficient statistics of the scorer it belongs to.
A sample whose taxonomy value is a list is in the group of each of its values.

A sample the system under test failed (the model call failed or returned nothing, or its
output audio cannot be read) is a failed output: its record's `failure_scores` enter the
metrics (a full deletion for WER, wrong for accuracy, every rubric 0 for MMAE), and
`failed_outputs` counts them beside the headline. With `exclude_failed_outputs` they stay
out of the metrics (and are still counted). Other failures (a prompt that cannot be
rendered, a judge without enough valid answers, a sample that cannot be scored) are ours
or the input's: counted in `failed`, never in a metric.

A pair with judged scorers also gets `reliability`: for each, how reliable its judge was
(valid answers, agreement, position bias, …: `metrics/judge_reliability.py`), read from the
stored judge answers of the latest records, failed judgements included, so a rescore
computes it again with no judge call.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from audioeval.core.record import FailureKind, SampleRecord, Score, latest_records
from audioeval.metrics.corpus import CorpusMetric, aggregate
from audioeval.metrics.grouping import group_by, taxonomy_groups
from audioeval.metrics.judge_reliability import ReliabilitySource, records_reliability


@dataclass(frozen=True)
class PairMetrics:
    """What a pair's summary computes: the corpus metrics, the taxonomy keys of its breakdowns,
    and which scorers' statistics feed each metric (as the scorers declare them); a metric no
    scorer declares reads the statistics of every scorer of the sample. `judges`: the judged
    scorers whose reliability the summary reports."""

    metrics: Sequence[CorpusMetric]
    taxonomy: Sequence[str] = ()
    feeds: Mapping[str, Sequence[str]] = field(default_factory=dict)
    judges: Sequence[ReliabilitySource] = ()


def stats_for(
    plan: PairMetrics, metric: CorpusMetric, scores: Mapping[str, Score]
) -> Mapping[str, Any] | None:
    for scorer in plan.feeds.get(metric.name, ()):
        if scorer in scores:
            return scores[scorer].stats
    merged: dict[str, Any] = {}
    for result in scores.values():
        merged.update(result.stats)
    return merged or None


def is_failed_output(rec: SampleRecord) -> bool:
    """Whether a failed record is the system's failure: no usable output (see the module doc)."""
    if rec.error is None:
        return False
    return rec.output_failed or rec.failure in (FailureKind.MODEL, FailureKind.NO_OUTPUT)


def failure_stats_for(plan: PairMetrics, metric: CorpusMetric, rec: SampleRecord) -> Mapping[str, Any] | None:
    """The stats a failed output counts for in this metric, or None when its scorer has none."""
    scores = rec.failure_scores or {}
    _, _, key = metric.name.partition(":")
    if key:  # mean:<key>: any scorer whose stats hold the key
        return next((e.stats for e in scores.values() if key in e.stats), None)
    return next((scores[s].stats for s in plan.feeds.get(metric.name, ()) if s in scores), None)


def _metric_block(
    plan: PairMetrics,
    metric: CorpusMetric,
    recs: list[SampleRecord],
    resamples: int,
    seed: int,
    failed_outputs: Sequence[SampleRecord] = (),
) -> dict[str, Any]:
    stats = [s for s in (stats_for(plan, metric, r.scores or {}) for r in recs) if s is not None]
    stats += [s for s in (failure_stats_for(plan, metric, r) for r in failed_outputs) if s is not None]
    if not stats:
        return {
            "value": None,
            "ci": None,
            "n": 0,
            "higher_is_better": metric.higher_is_better,
            "unit": metric.unit,
        }
    mv = aggregate(metric, stats, resamples=resamples, seed=seed)
    ci = None if mv.ci_low is None else [mv.ci_low, mv.ci_high]
    return {
        "value": mv.value,
        "ci": ci,
        "n": mv.n,
        "higher_is_better": metric.higher_is_better,
        "unit": metric.unit,
    }


def summarise_records(
    plan: PairMetrics,
    records: Iterable[SampleRecord],
    *,
    expected_ids: Iterable[str] | None = None,
    resamples: int = 1000,
    seed: int = 0,
    exclude_failed_outputs: bool = False,
) -> dict[str, Any]:
    """Counts, metrics with CIs and breakdowns of a pair's records (see the module doc)."""
    latest = latest_records(records)
    # In the benchmark's sample order (else by id), never in the order samples finished: the
    # bootstrap resamples by position, so the same records give the same CIs on every run.
    if expected_ids is not None:
        expected_ids = list(expected_ids)
        latest = {k: latest[k] for k in dict.fromkeys(expected_ids) if k in latest}
    else:
        latest = dict(sorted(latest.items()))
    scored = [r for r in latest.values() if r.ok]
    failed = [r for r in latest.values() if r.error is not None]
    no_output = [r for r in failed if is_failed_output(r)]
    counted = [] if exclude_failed_outputs else no_output
    outcomes = Counter(r.processed.outcome if r.processed is not None else "ok" for r in scored)
    metrics = {m.name: _metric_block(plan, m, scored, resamples, seed, counted) for m in plan.metrics}
    breakdowns: dict[str, Any] = {}
    for key in plan.taxonomy:
        ok, bad = _groups(scored, key), _groups(counted, key)
        breakdowns[key] = {
            g: {
                m.name: _metric_block(plan, m, ok.get(g, []), resamples, seed, bad.get(g, []))
                for m in plan.metrics
            }
            for g in sorted(set(ok) | set(bad))
        }
    kinds = Counter(str(r.failure or FailureKind.MODEL) for r in failed)
    summary: dict[str, Any] = {
        "n": len(latest) if expected_ids is None else len(set(expected_ids)),
        "scored": len(scored),
        "failed": len(failed),
        "failed_outputs": {
            "n": len(no_output),
            "in_headline": "excluded" if exclude_failed_outputs else "counted",
            "ids": [r.id for r in no_output],
        },
        "missing": 0 if expected_ids is None else len(set(expected_ids) - set(latest)),
        "unparseable": outcomes.get("unparseable", 0),
        "failure_kinds": dict(kinds),
        "first_failure": {"id": failed[0].id, "error": str(failed[0].error)} if failed else None,
        "metrics": metrics,
        "breakdowns": breakdowns,
    }
    if plan.judges:
        summary["reliability"] = records_reliability(plan.judges, latest.values())
    return summary


def _groups(recs: list[SampleRecord], key: str) -> dict[str, list[SampleRecord]]:
    return group_by(recs, lambda rec: taxonomy_groups(rec.taxonomy.get(key)))
