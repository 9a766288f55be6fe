"""Per-sample statistics as a numeric table whose column sums determine a corpus metric.

Most corpus metrics are functions of summed per-sample statistics: a metric's `prepare`
turns the stats dicts into an (n, k) table and a `reduce` that maps summed rows (m, k) to m
metric values (NaN where undefined). The point value reduces the column sums; a bootstrap
resample reduces the sums over a resampled set of rows. A metric of the whole set (`OfCounts`)
is computed from the stats list for given draw counts of the samples instead.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from audioeval.core.json_value import JsonValue

Stats = Mapping[str, JsonValue]
"""One sample's sufficient statistics as a metric reads them (`core/record.Score.stats`)."""
Reduce = Callable[[np.ndarray], np.ndarray]
Prepared = tuple[np.ndarray, Reduce]
OfCounts = Callable[[np.ndarray], np.ndarray]
"""A metric of the whole set: draw counts (m, n), how often each of n samples is in each of m
resamples (all 1: the set itself), to m values. For metrics that are no function of summed
rows (CIDEr-D's document frequencies come from the evaluated set's references)."""


def column(stats_list: Sequence[Stats], key: str, metric: str) -> list[JsonValue]:
    """The values of one stats key, or a ValueError naming the metric and the sample."""
    out = []
    for i, stats in enumerate(stats_list):
        if key not in stats:
            raise ValueError(
                f"metric {metric!r} needs stats key {key!r}; sample #{i} has {sorted(stats)} "
                "(is the metric paired with the right scorer?)"
            )
        out.append(stats[key])
    return out


def ratio(sums: np.ndarray) -> np.ndarray:
    """Column 0 over column 1 of each row; NaN where the denominator is 0."""
    num, den = sums[:, 0], sums[:, 1]
    out = np.full(num.shape, np.nan)
    np.divide(num, den, out=out, where=den > 0)
    return out


def edit_rate(stats_list: Sequence[Stats], metric: str = "wer") -> Prepared:
    """(substitutions + deletions + insertions, reference length): total edits over total words."""
    cols = [column(stats_list, k, metric) for k in ("substitutions", "deletions", "insertions", "ref_len")]
    s, d, i, n = (np.asarray(c, dtype=np.float64) for c in cols)
    return np.column_stack([s + d + i, n]), ratio


def fraction_correct(stats_list: Sequence[Stats], metric: str = "accuracy") -> Prepared:
    """(correct, 1): the share of samples marked correct."""
    correct = np.asarray([float(c) for c in column(stats_list, "correct", metric)], dtype=np.float64)
    return np.column_stack([correct, np.ones_like(correct)]), ratio


def defined_mean(stats_list: Sequence[Stats], key: str, metric: str) -> Prepared:
    """(value, 1) per sample, (0, 0) where the value is None or NaN: the mean of defined values."""
    values = [None if v is None else float(v) for v in column(stats_list, key, metric)]
    ok = np.asarray([v is not None and not math.isnan(v) for v in values], dtype=bool)
    vals = np.asarray([v if d else 0.0 for v, d in zip(values, ok, strict=True)], dtype=np.float64)
    return np.column_stack([vals, ok.astype(np.float64)]), ratio


def pooled_ratio(stats_list: Sequence[Stats], key: str, metric: str) -> Prepared:
    """(numerator, denominator) per sample from `stats[key]`, a pair of numbers (e.g. the
    rubrics a sample passed and those it had scored): the sum of numerators over the sum of
    denominators, a micro average over the units inside the samples."""
    rows = []
    for i, pair in enumerate(column(stats_list, key, metric)):
        if not isinstance(pair, list | tuple) or len(pair) != 2:
            raise ValueError(
                f"metric {metric!r}: sample #{i} has {key} = {pair!r}, not [numerator, denominator]"
            )
        rows.append((float(pair[0]), float(pair[1])))
    return np.asarray(rows, dtype=np.float64).reshape(len(rows), 2), ratio


def row_by_row(fn: Callable[[np.ndarray], float]) -> Reduce:
    """A `Reduce` from a function of one row of sums (for BLEU and chrF)."""

    def reduce(sums: np.ndarray) -> np.ndarray:
        return np.asarray([fn(row) for row in sums], dtype=np.float64)

    return reduce


def weighted_defined_mean(values: Sequence[JsonValue]) -> OfCounts:
    """The mean of the defined values (None and NaN left out) under draw counts (m, n)."""
    floats = [math.nan if v is None else float(v) for v in values]
    ok = np.asarray([not math.isnan(v) for v in floats], dtype=np.float64)
    vals = np.asarray([v if d else 0.0 for v, d in zip(floats, ok, strict=True)], dtype=np.float64)
    return lambda counts: ratio(np.column_stack([counts @ vals, counts @ ok]))
