"""Corpus metrics from summed per-sample statistics, with percentile bootstrap CIs.

| metric        | stats keys (scorer)                                        | unit     | better |
|---------------|------------------------------------------------------------|----------|--------|
| `wer`, `cer`  | substitutions, deletions, insertions, ref_len (wer, cer)   | fraction | lower  |
| `bleu`        | sys_len, ref_len, correct[4], total[4] (bleu)              | score    | higher |
| `chrf`        | counts, char_order, word_order, beta (chrf)                | score    | higher |
| `accuracy`    | correct (accuracy, includes, mcq_match)                    | fraction | higher |
| `includes`    | correct (includes)                                         | fraction | higher |
| `macro_f1`    | pred, gold (accuracy, includes)                            | fraction | higher |
| `rouge_l`     | rouge_l (rouge_l): the mean                                | fraction | higher |
| `mean:<key>`  | <key> (any scorer): the mean of defined values             | score¹   | higher |

¹ "mos" when the key contains "mos". WER is total edits over total reference words, not
the mean of per-sample rates (DESIGN principle 4). A metric whose denominator is zero is
undefined: `compute` returns NaN and `aggregate` reports None.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from functools import partial
from typing import Any

from audioeval.core.registry import Registry
from audioeval.metrics.bootstrap import percentile_ci, resampled_sums
from audioeval.metrics.grouping import group_by, taxonomy_groups
from audioeval.metrics.macro_f1 import macro_f1_table
from audioeval.metrics.sacrebleu_sums import bleu_table, chrf_table
from audioeval.metrics.stat_table import Prepared, Stats, defined_mean, edit_rate, fraction_correct

UNITS = ("fraction", "percent", "score", "mos")
MEAN_PREFIX = "mean:"


@dataclass(frozen=True)
class CorpusMetric:
    """A corpus metric: its name, direction, unit, and how it is computed from stats.

    `prepare(stats_list)` returns an (n, k) table of per-sample statistics and a reduce
    function from summed rows to values; see `metrics.stat_table`.
    """

    name: str
    higher_is_better: bool
    unit: str
    prepare: Callable[[Sequence[Stats]], Prepared]

    def compute(self, stats_list: Sequence[Stats]) -> float:
        """The metric over all samples (NaN when undefined, e.g. no samples)."""
        if not stats_list:
            return math.nan
        table, reduce = self.prepare(stats_list)
        return float(reduce(table.sum(axis=0, keepdims=True))[0])


@dataclass(frozen=True)
class MetricValue:
    """A metric's value over a set of samples, its bootstrap CI and the sample count.

    `value`, `ci_low` and `ci_high` are None when undefined (no samples, zero denominator).
    """

    value: float | None
    ci_low: float | None
    ci_high: float | None
    n: int

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


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
        )
    ],
    spec_names=True,
    also_known=("mean:<stats key>",),
)


def mean_metric(key: str, *, higher_is_better: bool = True, unit: str | None = None) -> CorpusMetric:
    """`mean:<key>`: the mean of a per-sample stats value, ignoring None/NaN."""
    unit = unit or ("mos" if "mos" in key.lower() else "score")
    return CorpusMetric(
        f"{MEAN_PREFIX}{key}",
        higher_is_better,
        unit,
        partial(defined_mean, key=key, metric=MEAN_PREFIX + key),
    )


def get_metric(name: str, *, where: str = "", field: str = "metrics") -> CorpusMetric:
    """The registered metric, or `mean:<key>`; unknown names raise InputError with suggestions."""
    if isinstance(name, str) and name.startswith(MEAN_PREFIX) and len(name) > len(MEAN_PREFIX):
        return mean_metric(name[len(MEAN_PREFIX) :])
    return METRICS.get(name, where=where, field=field)


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
    CI is of the corpus WER, not of a mean of rates). `resamples=0` gives no CI.
    """
    m = metric if isinstance(metric, CorpusMetric) else get_metric(metric)
    if not stats_list:
        return MetricValue(None, None, None, 0)
    table, reduce = m.prepare(stats_list)
    value = _none_if_nan(float(reduce(table.sum(axis=0, keepdims=True))[0]))
    lo = hi = None
    if resamples > 0 and value is not None:
        lo, hi = percentile_ci(reduce(resampled_sums(table, n_resamples=resamples, seed=seed)), confidence)
    return MetricValue(value, lo, hi, len(stats_list))


Record = tuple[Mapping[str, Any], Stats]
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
