"""Corpus metrics from summed per-sample statistics, with percentile bootstrap CIs.

| metric        | stats keys (scorer)                                        | unit     | better |
|---------------|------------------------------------------------------------|----------|--------|
| `wer`, `cer`  | substitutions, deletions, insertions, ref_len (wer, cer)   | fraction | lower  |
| `bleu`        | sys_len, ref_len, correct[4], total[4] (bleu)              | score    | higher |
| `chrf`        | counts, char_order, word_order, beta (chrf)                | score    | higher |
| `accuracy`    | correct (accuracy, includes, mcq_match)                    | fraction | higher |
| `includes`    | correct (includes)                                         | fraction | higher |
| `macro_f1`    | pred, gold (accuracy, includes)                            | fraction | higher |
| `rouge_l`     | rouge_l (rouge_l, coco_rouge_l): the mean                  | fraction | higher |
| `mean_wer`, `mean_cer` | wer, cer (asr_wer, asr_cer under `profile: ultraeval`): the mean of per-sample rates | fraction | lower |
| `bleu_1`…`bleu_4` | bleu_testlen, bleu_reflen, bleu_guess, bleu_correct (coco_bleu): pycocoevalcap's Bleu_n of the sums | fraction | higher |
| `cider_d`     | candidate_tokens, reference_tokens (cider_d, spice)²       | score    | higher |
| `meteor`      | meteor_stats (meteor): the jar's METEOR of the sums        | fraction | higher |
| `spice`       | spice (spice): the mean of defined F                       | fraction | higher |
| `spider`      | spice, candidate_tokens, reference_tokens (spice)²         | score    | higher |
| `balanced_accuracy` | correct, label_yes (anyaudio_items): the mean recall of the classes present | fraction | higher |
| `auroc`       | rubric_score, label_yes (anyaudio_items)²: ties count one half, NaN without both classes | score | higher |
| `ece`         | rubric_score, label_yes (anyaudio_items): calibration error over 10 bins of the score | score | lower |
| `macro_accuracy` | correct, macro_group (anyaudio_items)²: the mean of the groups' accuracies | fraction | higher |
| `mean:<key>`  | <key> (any scorer): the mean of defined values             | score¹   | higher |
| `micro:<key>` | <key> = [numerator, denominator] (any scorer): Σ numerators / Σ denominators | fraction¹ | higher |

¹ "mos" when the key contains "mos"; a benchmark declares its own `mean:<key>` metrics with
their display name and unit (`Benchmark.metrics`: MMAE's `mean:ifr` is `IFR`, in percent), and
`mean:robust_correct` (`mcq_robust`) is declared with them, a share of the items (`fraction`:
`metrics/declaration.BUILT_IN`).
² A metric of the whole set (`of_counts`): CIDEr-D's
document frequencies come from the evaluated set's references, so each bootstrap resample
recomputes them from its own draws (`metrics/cider_d.py`); SPIDEr = (CIDEr-D + SPICE) / 2.
WER is total edits over total reference words, not
the mean of per-sample rates (DESIGN principle 4). A metric whose denominator is zero is
undefined: `compute` returns NaN and `aggregate` reports None.

A metric is declared once, here or by its benchmark (`Benchmark.metrics`, registered in
`METRICS` when the benchmarks load): its name (the key in every `summary.json`), its display
name (what every table, board, page and console shows: `EMR` for `mean:em`), its unit, its
direction, its aggregation and the per-sample value it is made of (`PerSample`: MMAE's
per-sample `IFR` is a 0–1 rate, its metric `mean:ifr` a percentage, so each sample's value is
× 100 in the metric's unit). Every pair summary's metric block carries the declaration
(`CorpusMetric.declaration`), and everything that shows a metric reads it from there
(`declaration.shown_name`; units: `report/units.py`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from functools import partial
from typing import Any, TypedDict

import numpy as np

from audioeval.core.registry import Registry
from audioeval.core.sample import Taxonomy
from audioeval.metrics.binary_judge import (
    auroc_of_counts,
    balanced_accuracy_table,
    ece_table,
    macro_accuracy_of_counts,
)
from audioeval.metrics.bootstrap import percentile_ci, resample_counts
from audioeval.metrics.cider_d import cider_d_of_counts, spider_of_counts
from audioeval.metrics.coco_bleu import coco_bleu_table
from audioeval.metrics.declaration import (
    AGGREGATIONS,
    MEAN_PREFIX,
    MICRO_PREFIX,
    UNDECLARED,
    UNITS,
    Aggregation,
    MeanDeclaration,
    MicroDeclaration,
    PerSample,
    Unit,
    declared_since,
    undeclared_display,
)
from audioeval.metrics.grouping import group_by, taxonomy_groups
from audioeval.metrics.macro_f1 import macro_f1_table
from audioeval.metrics.meteor_sums import meteor_table
from audioeval.metrics.sacrebleu_sums import bleu_table, chrf_table
from audioeval.metrics.stat_table import (
    OfCounts,
    Prepared,
    Stats,
    defined_mean,
    edit_rate,
    fraction_correct,
    pooled_ratio,
    ratio,
)
from audioeval.metrics.summary_blocks import MetricDeclaration
from audioeval.metrics.summary_blocks import PerSampleJson as PerSampleJson  # declared with the blocks


@dataclass(frozen=True)
class CorpusMetric:
    """A corpus metric, declared once: its name, direction, unit, how it is computed from
    stats, its display name, its aggregation and the per-sample value it is made of.

    `prepare(stats_list)` returns an (n, k) table of per-sample statistics and a reduce
    function from summed rows to values; see `metrics.stat_table`. A metric of the whole set
    has `of_counts(stats_list)` instead: a function of the samples' draw counts
    (`stat_table.OfCounts`); its `prepare` raises ValueError (`whole_set_metric`).
    `display` defaults to the name without `mean:`; `per_sample` to that key, scale 1;
    `aggregation` to what `prepare` / `of_counts` are.
    """

    name: str
    higher_is_better: bool
    unit: Unit  # or UNDECLARED: a plugin's `mean:` metric nobody declares
    prepare: Callable[[Sequence[Stats]], Prepared]
    of_counts: Callable[[Sequence[Stats]], OfCounts] | None = None
    display: str = ""
    per_sample: PerSample | None = None
    aggregation: Aggregation | None = field(default=None)

    def __post_init__(self) -> None:
        if self.unit not in UNITS and self.unit != UNDECLARED:
            raise ValueError(f"metric {self.name!r}: unit {self.unit!r} is not one of {', '.join(UNITS)}")
        short = self.name.removeprefix(MEAN_PREFIX)
        if not self.display:
            object.__setattr__(self, "display", undeclared_display(self.name))
        if self.per_sample is None:
            object.__setattr__(self, "per_sample", PerSample(short))
        if self.aggregation is None:
            object.__setattr__(self, "aggregation", _aggregation_of(self.prepare, self.of_counts))
        elif self.aggregation not in AGGREGATIONS:
            raise ValueError(
                f"metric {self.name!r}: aggregation {self.aggregation!r} is not one of {', '.join(AGGREGATIONS)}"
            )

    def declaration(self) -> MetricDeclaration:
        """What a pair summary's metric block says of the metric beside its value."""
        assert self.per_sample is not None
        return {
            "display": self.display,
            "higher_is_better": self.higher_is_better,
            "unit": self.unit,
            "aggregation": self.aggregation,
            "per_sample": {"key": self.per_sample.key, "scale": self.per_sample.scale},
        }

    def statistic(self, stats_list: Sequence[Stats]) -> OfCounts:
        """The metric as a function of draw counts (m, n) -> (m,) values, for any metric."""
        if self.of_counts is not None:
            return self.of_counts(stats_list)
        table, reduce = self.prepare(stats_list)
        return lambda counts: reduce(np.asarray(counts, dtype=np.float64) @ table)

    def compute(self, stats_list: Sequence[Stats]) -> float:
        """The metric over all samples (NaN when undefined, e.g. no samples)."""
        if not stats_list:
            return math.nan
        if self.of_counts is not None:
            return float(self.of_counts(stats_list)(np.ones((1, len(stats_list))))[0])
        table, reduce = self.prepare(stats_list)
        return float(reduce(table.sum(axis=0, keepdims=True))[0])


def _aggregation_of(
    prepare: Callable[[Sequence[Stats]], Prepared], of_counts: Callable[[Sequence[Stats]], OfCounts] | None
) -> Aggregation:
    if of_counts is not None:
        return "whole_set"
    return "mean" if isinstance(prepare, partial) and prepare.func is defined_mean else "corpus"


def whole_set_metric(
    name: str, higher_is_better: bool, unit: Unit, of_counts: Callable[[Sequence[Stats]], OfCounts], **kw: Any
) -> CorpusMetric:
    """A metric computed from the whole list of per-sample stats (not from summed rows)."""

    def no_table(stats_list: Sequence[Stats]) -> Prepared:
        raise ValueError(
            f"metric {name!r} is computed from the whole set of samples, not from summed "
            "statistics: use CorpusMetric.statistic"
        )

    return CorpusMetric(name, higher_is_better, unit, no_table, of_counts, **kw)


class MetricValueJson(TypedDict):
    """A `MetricValue` as JSON (`MetricValue.as_dict`)."""

    value: float | None
    ci_low: float | None
    ci_high: float | None
    n: int
    total: float | None
    count: float | None


@dataclass(frozen=True)
class MetricValue:
    """A metric's value over a set of samples, its bootstrap CI and the sample count.

    `value`, `ci_low` and `ci_high` are None when undefined (no samples, zero denominator).
    For a metric that is a ratio of summed statistics (accuracy, a mean of defined values, an
    error rate), `value = total / count`: `total` (the correct answers, the sum of the defined
    values) and `count` (the samples, the defined values, the reference words); else None.
    """

    value: float | None
    ci_low: float | None
    ci_high: float | None
    n: int
    total: float | None = None
    count: float | None = None

    def as_dict(self) -> MetricValueJson:
        return MetricValueJson(**asdict(self))


METRICS: Registry[CorpusMetric] = Registry(
    "metric",
    [
        (m.name, m)
        for m in (
            CorpusMetric("wer", False, "fraction", partial(edit_rate, metric="wer")),
            CorpusMetric("cer", False, "fraction", partial(edit_rate, metric="cer")),
            CorpusMetric("bleu", True, "score", bleu_table),
            CorpusMetric("chrf", True, "score", chrf_table),
            CorpusMetric("accuracy", True, "fraction", partial(fraction_correct, metric="accuracy")),
            CorpusMetric("includes", True, "fraction", partial(fraction_correct, metric="includes")),
            CorpusMetric("macro_f1", True, "fraction", macro_f1_table),
            CorpusMetric("rouge_l", True, "fraction", partial(defined_mean, key="rouge_l", metric="rouge_l")),
            # Seed-TTS-eval's TTS WER: the mean of per-utterance rates (docs/fidelity.md)
            CorpusMetric(
                "mean_wer", False, "fraction", partial(defined_mean, key="wer", metric="mean_wer"),
                per_sample=PerSample("wer"),
            ),
            CorpusMetric(
                "mean_cer", False, "fraction", partial(defined_mean, key="cer", metric="mean_cer"),
                per_sample=PerSample("cer"),
            ),
            # Audio captioning (COCO caption metrics): docs/benchmarks.md, "Caption metrics"
            *(
                CorpusMetric(f"bleu_{k}", True, "fraction", partial(coco_bleu_table, order=k))
                for k in range(1, 5)
            ),
            whole_set_metric("cider_d", True, "score", cider_d_of_counts),
            CorpusMetric("meteor", True, "fraction", meteor_table),
            CorpusMetric("spice", True, "fraction", partial(defined_mean, key="spice", metric="spice")),
            whole_set_metric("spider", True, "score", spider_of_counts),
            # A judge scored against yes/no labels (judge-eval): metrics/binary_judge.py
            CorpusMetric("balanced_accuracy", True, "fraction", balanced_accuracy_table),
            whole_set_metric("auroc", True, "score", auroc_of_counts, display="AUROC"),
            CorpusMetric("ece", False, "score", ece_table, display="ECE"),
            whole_set_metric("macro_accuracy", True, "fraction", macro_accuracy_of_counts),
        )
    ],
    spec_names=True,
    also_known=("mean:<stats key>", "micro:<stats key>"),
)


def mean_metric(
    key: str,
    *,
    higher_is_better: bool = True,
    unit: Unit | None = None,
    display: str = "",
    per_sample: PerSample | None = None,
) -> CorpusMetric:
    """`mean:<key>`: the mean of a per-sample stats value, ignoring None/NaN. A benchmark
    declares its own with its display name and unit (`Benchmark.metrics`); one nobody declares
    is a `score` (a `mos` when the key says so), shown under its key."""
    unit = unit or ("mos" if "mos" in key.lower() else "score")
    return CorpusMetric(
        f"{MEAN_PREFIX}{key}",
        higher_is_better,
        unit,
        partial(defined_mean, key=key, metric=MEAN_PREFIX + key),
        display=display,
        per_sample=per_sample,
    )


def declared_metric(declaration: MeanDeclaration) -> CorpusMetric:
    """A benchmark's declared `mean:<key>` or `micro:<key>` as the metric that computes it."""
    make = micro_metric if isinstance(declaration, MicroDeclaration) else mean_metric
    return make(
        declaration.key,
        higher_is_better=declaration.higher_is_better,
        unit=declaration.unit,
        display=declaration.display,
        per_sample=declaration.per_sample,
    )


def registered(name: str) -> CorpusMetric | None:
    """The metric of that name in the registry (the benchmarks' declarations taken in first)."""
    for declaration in declared_since():
        METRICS.register(declaration.name, declared_metric(declaration))
    return METRICS.find(name)


def all_metrics() -> list[tuple[str, CorpusMetric]]:
    """Every declared metric by name, the benchmarks' declarations taken in."""
    registered("")
    return METRICS.items()


def micro_metric(
    key: str,
    *,
    higher_is_better: bool = True,
    unit: Unit | None = None,
    display: str = "",
    per_sample: PerSample | None = None,
) -> CorpusMetric:
    """`micro:<key>`: Σ numerators / Σ denominators of a per-sample stats pair `[num, den]`
    (a rate over the units inside the samples, e.g. rubrics, rather than over samples): a
    share (`fraction`) unless `unit` says otherwise. A benchmark declares its own with their
    display names (`MicroDeclaration`); one nobody declares is shown as `<key> (micro)`."""
    name = f"{MICRO_PREFIX}{key}"
    return CorpusMetric(
        name,
        higher_is_better,
        unit or "fraction",
        partial(pooled_ratio, key=key, metric=name),
        display=display,
        per_sample=per_sample or PerSample(key),
    )


def get_metric(name: str, *, where: str = "", field: str = "metrics", unit: str | None = None) -> CorpusMetric:
    """The declared metric, or the plain `mean:<key>` / `micro:<key>` of a key nobody declares
    (in `unit` when given); unknown names raise InputError with suggestions."""
    declared = registered(name) if isinstance(name, str) else None
    if declared is not None:
        return declared
    for prefix, make in ((MEAN_PREFIX, mean_metric), (MICRO_PREFIX, micro_metric)):
        if isinstance(name, str) and name.startswith(prefix) and len(name) > len(prefix):
            if unit is not None and unit not in (*UNITS, UNDECLARED):
                raise ValueError(f"metric {name!r}: unit {unit!r} is not one of {UNITS}")
            return make(name[len(prefix) :], unit=unit)
    return METRICS.get(name, where=where, field=field)


def display_of(name: str) -> str:
    """The display name a metric is declared with (its name without `mean:` when nobody
    declares it); a summary's block says it too (`declaration.shown_name`)."""
    declared = registered(name)
    return declared.display if declared is not None else undeclared_display(name)


def _none_if_nan(x: float | None) -> float | None:
    return None if x is None or math.isnan(x) else float(x)


def aggregate(
    metric: CorpusMetric | str,
    stats_list: Sequence[Stats],
    *,
    resamples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
) -> MetricValue:
    """The metric over all samples with a percentile bootstrap CI over samples.

    Each resample recomputes the metric from resampled summed statistics (so a corpus WER's
    CI is of the corpus WER, not of a mean of rates), or, for a metric of the whole set, from
    the resample's draw counts (the same draws). `resamples=0` gives no CI.
    """
    return aggregate_all([(metric, stats_list)], resamples=resamples, seed=seed, confidence=confidence)[0]


def aggregate_all(
    jobs: Sequence[tuple[CorpusMetric | str, Sequence[Stats]]],
    *,
    resamples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
) -> list[MetricValue]:
    """`aggregate` of each (metric, stats list), each value and CI exactly its own call's.

    A resample's draw counts depend only on the number of samples and the seed
    (`bootstrap.resample_counts`), so the jobs with as many samples (the metrics of one group,
    groups of one size) share them: drawn once per sample count, chunk by chunk, each chunk
    given to every job of that count before the next is drawn. The jobs of one count are
    prepared (their statistics tables) only when their count's turn comes.
    """
    out: list[MetricValue | None] = [None] * len(jobs)
    by_count: dict[int, list[tuple[int, CorpusMetric, Sequence[Stats]]]] = {}
    for slot, (metric, stats_list) in enumerate(jobs):
        m = metric if isinstance(metric, CorpusMetric) else get_metric(metric)
        if not stats_list:
            out[slot] = MetricValue(None, None, None, 0)
        else:
            by_count.setdefault(len(stats_list), []).append((slot, m, stats_list))
    for n, group in by_count.items():  # one sample count at a time: its tables, then dropped
        prepared = [(slot, _Resampled.of(m, stats_list, resamples)) for slot, m, stats_list in group]
        resampled = [(slot, job) for slot, job in prepared if resamples > 0 and job.value is not None]
        start = 0
        for counts in resample_counts(n, n_resamples=resamples, seed=seed) if resampled else ():
            shared = counts.view()
            shared.flags.writeable = False  # one job's statistic cannot change another's draws
            for _, job in resampled:
                job.take(shared, start)
            start += len(counts)
        for slot, job in prepared:
            lo, hi = job.ci(confidence) if resamples > 0 and job.value is not None else (None, None)
            out[slot] = MetricValue(job.value, lo, hi, n, *job.ratio_terms())
    return [mv for mv in out if mv is not None]


@dataclass
class _Resampled:
    """One metric over one stats list: its value, then its resampled values chunk by chunk
    (`resampled_sums` of its table, or `resampled_statistic` of a whole-set metric)."""

    value: float | None
    resamples: int
    table: np.ndarray | None = None
    reduce: Callable[[np.ndarray], np.ndarray] | None = None
    statistic: OfCounts | None = None
    sums: np.ndarray | None = None
    parts: list[np.ndarray] | None = None

    @classmethod
    def of(cls, m: CorpusMetric, stats_list: Sequence[Stats], resamples: int) -> _Resampled:
        if m.of_counts is not None:
            statistic = m.of_counts(stats_list)
            value = _none_if_nan(float(statistic(np.ones((1, len(stats_list))))[0]))
            return cls(value, resamples, statistic=statistic, parts=[])
        table, reduce = m.prepare(stats_list)
        value = _none_if_nan(float(reduce(table.sum(axis=0, keepdims=True))[0]))
        return cls(value, resamples, table, reduce)

    def ratio_terms(self) -> tuple[float | None, float | None]:
        """(total, count) of a ratio of summed statistics (`stat_table.ratio`), else (None, None)."""
        if self.reduce is not ratio or self.table is None:
            return None, None
        total, count = (float(x) for x in self.table[:, :2].sum(axis=0))
        return total, count

    def take(self, counts: np.ndarray, start: int) -> None:
        if self.statistic is not None:
            assert self.parts is not None
            values = np.asarray(self.statistic(counts), dtype=np.float64).reshape(len(counts), -1)
            self.parts.append(values)
            return
        assert self.table is not None
        if self.sums is None:
            self.sums = np.empty((self.resamples, self.table.shape[1]), dtype=np.float64)
        self.sums[start : start + len(counts)] = counts @ self.table

    def ci(self, confidence: float) -> tuple[float | None, float | None]:
        if self.statistic is not None:
            assert self.parts is not None
            return percentile_ci(np.concatenate(self.parts)[:, 0], confidence)
        assert self.reduce is not None and self.sums is not None
        return percentile_ci(self.reduce(self.sums), confidence)


Record = tuple[Taxonomy, Stats]
MISSING_GROUP = "(missing)"


def breakdown(
    metric: CorpusMetric | str,
    records: Sequence[Record],
    keys: Sequence[str],
    **kwargs: Any,
) -> dict[str, dict[str, MetricValue]]:
    """`{key: {group: MetricValue}}` for each taxonomy key.

    `records` are (taxonomy, stats) pairs. A taxonomy value that is a list puts the sample
    in each of its distinct groups; a sample without the key is in group "(missing)". Keyword
    arguments go to `aggregate` (resamples, seed, confidence).
    """
    m = metric if isinstance(metric, CorpusMetric) else get_metric(metric)
    out: dict[str, dict[str, MetricValue]] = {}
    for key in keys:
        groups = group_by(records, lambda rec, k=key: taxonomy_groups(rec[0].get(k), missing=MISSING_GROUP))
        out[key] = {
            name: aggregate(m, [stats for _, stats in members], **kwargs)
            for name, members in sorted(groups.items())
        }
    return out
