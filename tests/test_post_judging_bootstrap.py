"""The shared-draw bootstraps of the post-judging phases, pinned to the code they replaced:
`corpus.aggregate_all` (jobs of one sample count share their draw counts),
`bootstrap.bootstrap_means_ci_groups` (groups of one size share their resample indices). Each must give, to the bit, what one call per job or per
group of the former code gave: the references below are that code, kept as it was."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from audioeval.metrics.bootstrap import (
    bootstrap_means_ci,
    bootstrap_means_ci_groups,
    percentile_ci,
    resampled_statistic,
    resampled_sums,
)
from audioeval.metrics.corpus import (
    CorpusMetric,
    MetricValue,
    aggregate,
    aggregate_all,
    get_metric,
    whole_set_metric,
)

# -- the former code, as it was -------------------------------------------------------------


def old_means_ci(
    columns: list[Any], *, confidence: float = 0.95, n_resamples: int = 1000, seed: int = 0
) -> list:
    out: list[tuple[float | None, float | None]] = []
    idx: np.ndarray | None = None
    for values in columns:
        arr = np.asarray(values, dtype=np.float64)
        defined = ~np.isnan(arr)
        if not defined.any():
            out.append((None, None))
            continue
        if defined.sum() == 1 or np.nanmin(arr) == np.nanmax(arr):
            m = float(np.nanmean(arr))
            out.append((m, m))
            continue
        if idx is None or idx.shape[1] != arr.size:
            idx = np.random.default_rng(seed).integers(0, arr.size, size=(n_resamples, arr.size))
        picked = arr[idx]
        if defined.all():
            means = picked.sum(axis=1) / arr.size
        else:
            counts = (~np.isnan(picked)).sum(axis=1)
            sums = np.nansum(picked, axis=1)
            means = sums[counts > 0] / counts[counts > 0]
        out.append(percentile_ci(means, confidence))
    return out


def old_aggregate(
    m: CorpusMetric, stats_list: list[Any], *, resamples: int = 1000, seed: int = 0
) -> MetricValue:
    if not stats_list:
        return MetricValue(None, None, None, 0)
    if m.of_counts is not None:
        statistic = m.of_counts(stats_list)
        n = len(stats_list)
        value = float(statistic(np.ones((1, n)))[0])
        value_or_none = None if math.isnan(value) else value
        lo = hi = None
        if resamples > 0 and value_or_none is not None:
            draws = resampled_statistic(n, statistic, n_resamples=resamples, seed=seed)
            lo, hi = percentile_ci(draws[:, 0], 0.95)
        return MetricValue(value_or_none, lo, hi, n)
    table, reduce = m.prepare(stats_list)
    value = float(reduce(table.sum(axis=0, keepdims=True))[0])
    value_or_none = None if math.isnan(value) else value
    lo = hi = None
    if resamples > 0 and value_or_none is not None:
        lo, hi = percentile_ci(reduce(resampled_sums(table, n_resamples=resamples, seed=seed)), 0.95)
    return MetricValue(value_or_none, lo, hi, len(stats_list))


# -- inputs ---------------------------------------------------------------------------------


def _column(rng: np.random.Generator, n: int, kind: str) -> np.ndarray:
    if kind == "thirds":  # per-sample means of a few 0/1 rubrics: not exact in binary
        return rng.integers(0, 4, n) / rng.integers(1, 4, n).clip(min=1)
    if kind == "binary":
        return rng.integers(0, 2, n).astype(np.float64)
    if kind == "nan":
        col = rng.random(n)
        col[rng.random(n) < 0.3] = np.nan
        return col
    if kind == "all-nan":
        return np.full(n, np.nan)
    if kind == "constant":
        return np.full(n, 0.25)
    if kind == "one-defined":
        col = np.full(n, np.nan)
        col[n // 2 : n // 2 + 1] = 0.7
        return col
    raise AssertionError(kind)


KINDS = ("thirds", "binary", "nan", "all-nan", "constant", "one-defined")


def _groups(seed: int) -> list[list[np.ndarray]]:
    rng = np.random.default_rng(seed)
    sizes = [0, 1, 2, 7, 7, 40, 40, 41, 300, 7]  # several groups of one size
    return [[_column(rng, n, kind) for kind in rng.permutation(KINDS)[:3]] for n in sizes]


# -- tests ----------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_means_ci_groups_equal_one_call_per_group_of_the_former_code(seed: int) -> None:
    groups = _groups(seed)
    got = bootstrap_means_ci_groups(groups, n_resamples=300, seed=seed + 5)
    assert got == [old_means_ci(g, n_resamples=300, seed=seed + 5) for g in groups]
    assert bootstrap_means_ci(groups[5], n_resamples=300, seed=4) == old_means_ci(
        groups[5], n_resamples=300, seed=4
    )


def test_means_ci_columns_of_different_lengths_in_one_group() -> None:
    rng = np.random.default_rng(3)
    group = [_column(rng, 9, "nan"), _column(rng, 12, "thirds"), _column(rng, 9, "binary")]
    assert bootstrap_means_ci(group, n_resamples=200, seed=1) == old_means_ci(group, n_resamples=200, seed=1)


def test_means_ci_of_lists_with_nan_equals_arrays() -> None:
    values = [0.5, math.nan, 1.0, 0.0, math.nan, 1 / 3]
    assert bootstrap_means_ci([values], n_resamples=100) == old_means_ci([values], n_resamples=100)


def _stats(seed: int, n: int) -> list[dict[str, Any]]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        out.append(
            {
                "substitutions": int(rng.integers(0, 3)),
                "deletions": int(rng.integers(0, 2)),
                "insertions": int(rng.integers(0, 2)),
                "ref_len": int(rng.integers(0, 9)),
                "correct": bool(rng.integers(0, 2)),
                "ifr": None if rng.random() < 0.2 else 100.0 * float(rng.integers(0, 4)) / 3,
                "em": None if rng.random() < 0.5 else 100.0 * float(rng.integers(0, 2)),
            }
        )
    return out


def _count_weighted(stats_list: list[Any]) -> Any:
    """A whole-set metric: the draw-weighted mean of `ifr` (undefined ones left out)."""
    vals = np.array([0.0 if s["ifr"] is None else s["ifr"] for s in stats_list])
    ok = np.array([s["ifr"] is not None for s in stats_list], dtype=np.float64)

    def values(counts: np.ndarray) -> np.ndarray:
        den = counts @ ok
        return np.where(den > 0, (counts @ vals) / np.where(den > 0, den, 1.0), np.nan)

    return values


WHOLE = whole_set_metric("weighted_ifr", True, "score", _count_weighted)


def _figures(mv: MetricValue) -> tuple[Any, ...]:
    """What the former code computed: the value, its CI and n (the ratio's `total` and `count`
    came later, beside them)."""
    return (mv.value, mv.ci_low, mv.ci_high, mv.n)


def test_aggregate_all_equals_one_former_aggregate_per_job() -> None:
    metrics = [
        get_metric("wer"),
        get_metric("accuracy"),
        get_metric("mean:ifr"),
        get_metric("mean:em"),
        WHOLE,
    ]
    a, b, c = _stats(0, 60), _stats(1, 60), _stats(2, 23)
    undefined = [{**s, "em": None} for s in _stats(3, 10)]  # mean:em of no defined value: no CI
    jobs = [(m, s) for s in (a, b, c, [], undefined, a[:1]) for m in metrics]
    for resamples in (0, 200):
        got = aggregate_all(jobs, resamples=resamples, seed=7)
        assert list(map(_figures, got)) == [
            _figures(old_aggregate(m, s, resamples=resamples, seed=7)) for m, s in jobs
        ]
    assert _figures(aggregate("mean:ifr", a, resamples=200, seed=1)) == _figures(
        old_aggregate(get_metric("mean:ifr"), a, resamples=200, seed=1)
    )


def test_aggregate_all_over_draws_of_several_chunks() -> None:
    """4,500 samples × 1,000 resamples is more than one chunk of draw counts (4M cells)."""
    big = _stats(4, 4500)
    jobs = [(get_metric("mean:ifr"), big), (get_metric("wer"), big), (WHOLE, big)]
    assert list(map(_figures, aggregate_all(jobs, resamples=1000, seed=0))) == [
        _figures(old_aggregate(m, s, resamples=1000)) for m, s in jobs
    ]


def test_a_statistic_cannot_change_the_draws_other_jobs_share() -> None:
    def greedy(stats_list: list[Any]) -> Any:
        def values(counts: np.ndarray) -> np.ndarray:
            counts *= 2
            return counts.sum(axis=1)

        return values

    stats = _stats(5, 12)
    with pytest.raises(ValueError, match="read-only"):
        aggregate_all(
            [(get_metric("mean:ifr"), stats), (whole_set_metric("g", True, "score", greedy), stats)]
        )
