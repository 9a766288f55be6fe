"""The summary of one benchmark × model: corpus metrics with CIs, taxonomy breakdowns,
and the counts of what was scored, what failed and why.

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
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from audioeval.benchmarks.resolved import ResolvedBenchmark
from audioeval.metrics.corpus import CorpusMetric, aggregate
from audioeval.metrics.grouping import group_by, taxonomy_groups

# Metrics computed from another scorer's statistics than their own name.
METRIC_SCORERS: dict[str, tuple[str, ...]] = {
    "accuracy": ("accuracy", "mcq_match"),
    "macro_f1": ("accuracy", "mcq_match"),
    "wer": ("wer", "asr_wer"),
    "cer": ("cer", "asr_cer"),
    "includes": ("includes", "asr_includes"),
}


def latest_records(records: Iterable[Mapping[str, Any]]) -> dict[str, Mapping[str, Any]]:
    latest: dict[str, Mapping[str, Any]] = {}
    for rec in records:
        if rec.get("id") is not None:
            latest[str(rec["id"])] = rec
    return latest


ADDED_TO_AVERAGE = ("mean:utmos",)
"""Metrics that join a generation task's average when a spec's scorers bring them (UTMOS enters
the paper's average as 20 × MOS, like DNSMOS)."""


def average_metrics(bench: ResolvedBenchmark) -> list[str]:
    """The metrics of a generation task's average that this benchmark computes: the task's
    (less those whose scorer the spec dropped), then any of ADDED_TO_AVERAGE it has."""
    if not bench.task.average:
        return []
    names = [m.name for m in bench.metrics]
    kept = [m for m in bench.task.average if m in names]
    return kept + [m for m in ADDED_TO_AVERAGE if m in names and m not in kept]


def _stats_for(metric: CorpusMetric, rec: Mapping[str, Any]) -> Mapping[str, Any] | None:
    scores: Mapping[str, Any] = rec.get("scores") or {}
    base = metric.name.split(":", 1)[0]
    for scorer in METRIC_SCORERS.get(base, (base,)):
        if scorer in scores:
            return scores[scorer]["stats"]
    merged: dict[str, Any] = {}
    for result in scores.values():
        merged.update(result.get("stats") or {})
    return merged or None


def is_failed_output(rec: Mapping[str, Any]) -> bool:
    """Whether a failed record is the system's failure: no usable output (see the module doc)."""
    if rec.get("error") is None:
        return False
    if rec.get("output_failed"):
        return True
    out = rec.get("output")
    if not isinstance(out, Mapping):
        return False  # the prompt could not be rendered: the input's failure
    return out.get("error") is not None or (out.get("text") is None and out.get("audio_path") is None)


def _failure_stats_for(metric: CorpusMetric, rec: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The stats a failed output counts for in this metric, or None when its scorer has none."""
    scores: Mapping[str, Any] = rec.get("failure_scores") or {}
    base, _, key = metric.name.partition(":")
    if key:  # mean:<key>: any scorer whose stats hold the key
        return next((e["stats"] for e in scores.values() if key in (e.get("stats") or {})), None)
    for scorer in METRIC_SCORERS.get(base, (base,)):
        if scorer in scores:
            stats: Mapping[str, Any] = scores[scorer]["stats"]
            return stats
    return None


def _metric_block(
    metric: CorpusMetric,
    recs: list[Mapping[str, Any]],
    resamples: int,
    seed: int,
    failed_outputs: Sequence[Mapping[str, Any]] = (),
) -> dict[str, Any]:
    stats = [s for s in (_stats_for(metric, r) for r in recs) if s is not None]
    stats += [s for s in (_failure_stats_for(metric, r) for r in failed_outputs) if s is not None]
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


def summarise_pair(
    bench: ResolvedBenchmark,
    records: Iterable[Mapping[str, Any]],
    *,
    expected_ids: Iterable[str] | None = None,
    resamples: int = 1000,
    seed: int = 0,
    exclude_failed_outputs: bool = False,
) -> dict[str, Any]:
    latest = latest_records(records)
    if expected_ids is not None:
        wanted = set(expected_ids)
        latest = {k: v for k, v in latest.items() if k in wanted}
    scored = [r for r in latest.values() if r.get("error") is None and r.get("scores") is not None]
    failed = [r for r in latest.values() if r.get("error") is not None]
    no_output = [r for r in failed if is_failed_output(r)]
    counted = [] if exclude_failed_outputs else no_output
    outcomes = Counter((r.get("processed") or {}).get("outcome", "ok") for r in scored)
    metrics = {m.name: _metric_block(m, scored, resamples, seed, counted) for m in bench.metrics}
    breakdowns: dict[str, Any] = {}
    for key in bench.spec.taxonomy:
        ok, bad = _groups(scored, key), _groups(counted, key)
        breakdowns[key] = {
            g: {
                m.name: _metric_block(m, ok.get(g, []), resamples, seed, bad.get(g, []))
                for m in bench.metrics
            }
            for g in sorted(set(ok) | set(bad))
        }
    errors = Counter(_error_kind(str(r["error"])) for r in failed)
    return {
        "benchmark": bench.name,
        "task": bench.spec.task,
        "headline": bench.headline,
        "output": bench.task.output,
        "average_metrics": average_metrics(bench),
        "n": len(latest) if expected_ids is None else len(set(expected_ids)),
        "scored": len(scored),
        "failed": len(failed),
        "failed_outputs": {
            "n": len(no_output),
            "in_headline": "excluded" if exclude_failed_outputs else "counted",
            "ids": [str(r.get("id")) for r in no_output],
        },
        "missing": 0 if expected_ids is None else len(set(expected_ids) - set(latest)),
        "unparseable": outcomes.get("unparseable", 0),
        "failure_kinds": dict(errors),
        "first_failure": (
            {"id": str(failed[0].get("id")), "error": str(failed[0]["error"])} if failed else None
        ),
        "metrics": metrics,
        "breakdowns": breakdowns,
    }


def _groups(recs: list[Mapping[str, Any]], key: str) -> dict[str, list[Mapping[str, Any]]]:
    return group_by(recs, lambda rec: taxonomy_groups((rec.get("taxonomy") or {}).get(key)))


def _error_kind(error: str) -> str:
    for prefix in ("prompt", "input", "cannot score", "timed out", "worker crashed", "replay"):
        if error.startswith(prefix):
            return prefix
    if "HTTP" in error:
        return "http"
    return "other"
