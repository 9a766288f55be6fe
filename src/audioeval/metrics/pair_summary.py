"""The summary of one benchmark × model from its records: corpus metrics with CIs, taxonomy
breakdowns, and the counts of what was scored, what failed and why (by `FailureKind`).

Only the latest record of each sample id counts (a rerun's record supersedes a failed one).
Each metric reads the sufficient statistics of the scorer it belongs to.
A sample whose taxonomy value is a list is in the group of each of its values. A cross
breakdown the benchmark declares (`PairMetrics.crosses`: modality × complexity) puts a sample
in the group `a|b` of each pair of its groups; the summary names its keys (`crosses`).

A sample the system under test failed (the model call failed or returned nothing, or its
output audio cannot be read) is a failed output: its record's `failure_scores` enter the
metrics (a full deletion for WER, wrong for accuracy, every rubric 0 for MMAE), and
`failed_outputs` counts them beside the headline. With `exclude_failed_outputs` they stay
out of the metrics (and are still counted). Other failures (a prompt that cannot be
rendered, a judge without enough valid answers, a sample that cannot be scored) are ours
or the input's: counted in `failed`, never in a metric, except what the sample's scorers did
score: a failed record that keeps scores (another scorer's, or the part of a judged scorer's
that its benchmark scores, e.g. MMAE's rubrics judged when one failed) enters the metrics
those feed, and is still counted in `failed` (a rerun judges it again).

The samples enter each metric in the benchmark's sample order (the bootstrap resamples by
position, so the same records give the same CIs, whichever failed).

A pair whose outputs are audio also gets `output_health` (`metrics/output_health.py`): each
output measured once (silent, clipped, DC offset; truncated, padded or the input unchanged
where the output is a version of its input), the problems counted with their samples.

A pair with judged scorers also gets `reliability`: for each, how reliable its judge was
(valid answers, agreement, position bias, …: `metrics/judge_reliability.py`), read from the
stored judge answers of the latest records, failed judgements included, so a rescore
computes it again with no judge call.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from audioeval.core.record import FailureKind, SampleRecord, Score, ScoreStats, latest_records
from audioeval.metrics.corpus import CorpusMetric, MetricValue, aggregate_all
from audioeval.metrics.grouping import group_by, taxonomy_groups
from audioeval.metrics.judge_reliability import ReliabilitySource, records_reliability
from audioeval.metrics.output_health import records_health
from audioeval.metrics.stat_table import Stats
from audioeval.metrics.summary_blocks import Breakdowns, MetricBlock, PairSummary
from audioeval.metrics.usage_totals import usage_totals
from audioeval.store.json_items import gc_paused


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
    groups: Mapping[str, GroupOrder] = field(default_factory=dict)
    """Taxonomy key -> (fixed groups, order of the others) as the benchmark declares them:
    the fixed groups first, in order, each with a block even when empty; the others `sorted`
    or `first_seen` (in the benchmark's sample order). A key not named: every group sorted."""
    excluded_failed_outputs: bool = False
    """The benchmark's own rule: samples without a usable output stay out of the metrics
    (still counted), as `exclude_failed_outputs` asks for a whole run."""
    crosses: Mapping[str, Sequence[str]] = field(default_factory=dict)
    """Cross breakdown name -> the taxonomy keys it crosses (each group `a|b`, in the order
    of the first key's groups, then the second's, as each key's breakdown lists them)."""
    output_health: str = ""
    """Measure the health of each audio output (`metrics/output_health.py`): `output` alone,
    `input` also against the sample's input clip; "" not measured (text output)."""


def stats_for(plan: PairMetrics, metric: CorpusMetric, scores: Mapping[str, Score]) -> Stats | None:
    for scorer in plan.feeds.get(metric.name, ()):
        if scorer in scores:
            return scores[scorer].stats or None  # none: the scorer left the sample out
    merged: ScoreStats = {}
    for result in scores.values():
        merged.update(result.stats)
    return merged or None


def is_failed_output(rec: SampleRecord) -> bool:
    """Whether a failed record is the system's failure: no usable output (see the module doc)."""
    if rec.error is None:
        return False
    return rec.output_failed or rec.failure in (
        FailureKind.MODEL,
        FailureKind.NO_OUTPUT,
        FailureKind.BAD_OUTPUT,
    )


def failure_stats_for(plan: PairMetrics, metric: CorpusMetric, rec: SampleRecord) -> Stats | None:
    """The stats a failed output counts for in this metric, or None when its scorer has none."""
    return _declared_stats(plan, metric, rec.failure_scores or {})


def partial_stats_for(plan: PairMetrics, metric: CorpusMetric, rec: SampleRecord) -> Stats | None:
    """The stats a partly scored record (a judged scorer failed, the others scored) counts for
    in this metric: those of a scorer that feeds it and did score, else None."""
    return _declared_stats(plan, metric, rec.scores or {})


def _declared_stats(plan: PairMetrics, metric: CorpusMetric, scores: Mapping[str, Score]) -> Stats | None:
    _, _, key = metric.name.partition(":")
    if key:  # mean:<key>: any scorer whose stats hold the key
        return next((e.stats for e in scores.values() if key in e.stats), None)
    return next((scores[s].stats for s in plan.feeds.get(metric.name, ()) if s in scores), None)


GroupOrder = tuple[Sequence[str], str]


def _number(x: float) -> float | int:
    return int(x) if float(x).is_integer() else x


def _metric_block(metric: CorpusMetric, mv: MetricValue) -> MetricBlock:
    block: MetricBlock = {
        "value": mv.value,
        "ci": None if mv.ci_low is None else [mv.ci_low, mv.ci_high],
        "n": mv.n,
        "higher_is_better": metric.higher_is_better,
        "unit": metric.unit,
    }
    if mv.total is not None and mv.count is not None:  # value = total / count
        block["total"], block["count"] = _number(mv.total), _number(mv.count)
    return block


def summarise_records(
    plan: PairMetrics,
    records: Iterable[SampleRecord],
    *,
    expected_ids: Iterable[str] | None = None,
    resamples: int = 1000,
    seed: int = 0,
    exclude_failed_outputs: bool = False,
) -> PairSummary:
    """Counts, metrics with CIs and breakdowns of a pair's records (see the module doc)."""
    with gc_paused():  # many small acyclic objects (stats, votes): collector passes only cost time
        return _summarise(plan, records, expected_ids, resamples, seed, exclude_failed_outputs)


def _summarise(
    plan: PairMetrics,
    records: Iterable[SampleRecord],
    expected_ids: Iterable[str] | None,
    resamples: int,
    seed: int,
    exclude_failed_outputs: bool,
) -> PairSummary:
    records = records if isinstance(records, list) else list(records)
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
    exclude_failed_outputs = exclude_failed_outputs or plan.excluded_failed_outputs
    outcomes = Counter(r.processed.outcome if r.processed is not None else "ok" for r in scored)
    members = records_in_metrics(plan, latest.values(), exclude_failed_outputs=exclude_failed_outputs)
    metrics, breakdowns = _metric_blocks(plan, members, resamples, seed)
    kinds = Counter(str(r.failure or FailureKind.MODEL) for r in failed)
    summary: PairSummary = {
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
    if plan.crosses:
        summary["crosses"] = {name: list(keys) for name, keys in plan.crosses.items()}
    if plan.judges:
        summary["reliability"] = records_reliability(plan.judges, latest.values())
    if plan.output_health:
        health = records_health(latest.values(), plan.output_health)
        if health is not None:
            summary["output_health"] = health
    # every record, a sample asked again included: what the pair's requests used
    summary["usage"] = usage_totals(records, judged=bool(plan.judges) or any(r.judge for r in records))
    return summary


def _metric_blocks(
    plan: PairMetrics,
    members: Sequence[SampleRecord],
    resamples: int,
    seed: int,
) -> tuple[dict[str, MetricBlock], Breakdowns]:
    """(metrics, breakdowns): each metric over all samples in the metrics (`members`, in the
    benchmark's order) and over each taxonomy group and cross group.

    Each record's stats are looked up once per metric; every (metric, group) is then one job
    of `corpus.aggregate_all`, whose jobs of equal sample counts share their resample draws
    (each CI is exactly what its own `aggregate` call gives)."""
    stats = {m.name: [record_stats(plan, m, r) for r in members] for m in plan.metrics}
    groups: list[tuple[str | None, str | None, Sequence[int]]] = [(None, None, range(len(members)))]
    by_key: dict[str, dict[str, list[int]]] = {}
    for key in plan.taxonomy:
        positions = _groups(members, key)
        order = _group_order(plan.groups.get(key), members, key, set(positions))
        by_key[key] = {g: positions.get(g, []) for g in order}
    for name, keys in plan.crosses.items():
        by_key[name] = _cross(members, [by_key[k] for k in keys])
    for key, key_groups in by_key.items():
        groups += [(key, g, idx) for g, idx in key_groups.items()]
    jobs: list[tuple[CorpusMetric, list[Stats]]] = []
    for _, _, idx in groups:
        for m in plan.metrics:
            column = stats[m.name]
            jobs.append((m, [s for s in (column[i] for i in idx) if s is not None]))
    values = iter(aggregate_all(jobs, resamples=resamples, seed=seed))
    metrics: dict[str, MetricBlock] = {}
    breakdowns: Breakdowns = {key: {} for key in by_key}
    for key, g, _ in groups:
        blocks = {m.name: _metric_block(m, next(values)) for m in plan.metrics}
        if key is None:  # the overall blocks also say how each metric is declared (shown)
            metrics = {m.name: {**blocks[m.name], **m.declaration()} for m in plan.metrics}
        else:
            breakdowns[key][g] = blocks
    return metrics, breakdowns


def records_in_metrics(
    plan: PairMetrics, latest: Iterable[SampleRecord], *, exclude_failed_outputs: bool = False
) -> list[SampleRecord]:
    """The records a pair's metrics are computed over, in the order given: the scored ones,
    the failed outputs unless excluded (by the run or by the benchmark's rule), and the failed
    ones that kept scores (a judged scorer failed, what the others or its benchmark scored
    counts). Every reader of a pair's figures selects them here (`record_stats` for each)."""
    exclude = exclude_failed_outputs or plan.excluded_failed_outputs
    out = []
    for r in latest:
        if r.ok or (is_failed_output(r) and not exclude) or (r.scores and not is_failed_output(r)):
            out.append(r)
    return out


def record_stats(plan: PairMetrics, metric: CorpusMetric, rec: SampleRecord) -> Stats | None:
    """What one record in the metrics adds to `metric`: a scored sample's stats, a failed
    output's failure stats, a partly scored record's stats of the scorers that scored."""
    if rec.ok:
        return stats_for(plan, metric, rec.scores or {})
    if is_failed_output(rec):
        return failure_stats_for(plan, metric, rec)
    return partial_stats_for(plan, metric, rec)


def _cross(members: Sequence[SampleRecord], parts: Sequence[Mapping[str, list[int]]]) -> dict[str, list[int]]:
    """The groups `a|b|…` of a cross of keys (each key's groups `parts`, in their order): the
    members in each group of every key, the empty crossings left out."""
    out: dict[str, list[int]] = {}
    for names in itertools.product(*(list(p) for p in parts)):
        common = set(parts[0][names[0]])
        for p, name in zip(parts[1:], names[1:], strict=True):
            common &= set(p[name])
        if common:
            out["|".join(names)] = sorted(common)
    return out


def _group_order(
    declared: GroupOrder | None, in_order: Sequence[SampleRecord], key: str, present: set[str]
) -> list[str]:
    """The groups of one key in the order the benchmark declares (`PairMetrics.groups`):
    `present` (the groups of the samples in the metrics), `in_order` (those samples, in the
    benchmark's order) for `first_seen`."""
    fixed, order = declared if declared is not None else ((), "sorted")
    if order == "first_seen":
        rest = list(group_by(in_order, lambda r: taxonomy_groups(r.taxonomy.get(key))))
    else:
        rest = sorted(present)
    return list(dict.fromkeys([*fixed, *rest]))


def _groups(recs: Sequence[SampleRecord], key: str) -> dict[str, list[int]]:
    """The positions of the records in each group of a taxonomy key."""
    return group_by(range(len(recs)), lambda i: taxonomy_groups(recs[i].taxonomy.get(key)))
