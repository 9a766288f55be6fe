"""Percentile bootstrap confidence intervals: the one bootstrap of every metric.

Means of per-sample values (`bootstrap_mean_ci`), means of 0/1 outcomes drawn at once as
binomials (`binary_mean_ci`), and metrics of summed statistics (`resampled_sums`, then
`percentile_ci` of the metric recomputed per resample).
"""

from __future__ import annotations

import numpy as np


def bootstrap_mean_ci(
    values: np.ndarray | list[float],
    *,
    confidence: float = 0.95,
    n_resamples: int = 1000,
    seed: int = 0,
) -> tuple[float | None, float | None]:
    """(low, high) of the mean by resampling samples with replacement.

    NaN values mark samples where the metric is undefined: they are resampled with the rest
    (their group membership is random too) and ignored in each resample's mean. Returns
    (None, None) when no value is defined.
    """
    arr = np.asarray(values, dtype=np.float64)
    defined = ~np.isnan(arr)
    if not defined.any():
        return None, None
    if defined.sum() == 1 or np.nanmin(arr) == np.nanmax(arr):
        m = float(np.nanmean(arr))
        return m, m
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, arr.size, size=(n_resamples, arr.size))
    picked = arr[idx]
    counts = (~np.isnan(picked)).sum(axis=1)
    sums = np.nansum(picked, axis=1)
    means = sums[counts > 0] / counts[counts > 0]
    return percentile_ci(means, confidence)


def binary_mean_ci(
    correct: int, n: int, *, confidence: float = 0.95, n_resamples: int = 1000, seed: int = 0
) -> tuple[float | None, float | None]:
    """(low, high) of the mean of n 0/1 outcomes, `correct` of them 1.

    Each resample's mean is drawn as Binomial(n, correct/n) / n, which has exactly the
    distribution of the mean of n outcomes resampled with replacement and costs
    O(resamples) rather than O(resamples × n). (None, None) for no outcome.
    """
    if n <= 0:
        return None, None
    p = correct / n
    if p in (0.0, 1.0):
        return p, p
    draws = np.random.default_rng(seed).binomial(n, p, size=n_resamples) / n
    return percentile_ci(draws, confidence)


def resampled_sums(
    table: np.ndarray,
    *,
    n_resamples: int = 1000,
    seed: int = 0,
    max_cells: int = 4_000_000,
) -> np.ndarray:
    """(n_resamples, k) column sums of `table` (n, k) over samples drawn with replacement.

    A metric that is a function of summed statistics (WER, BLEU, macro-F1) is then
    recomputed per resample from k numbers, never from the samples. Each resample's draw
    counts (how often each sample was drawn) multiply the table; resamples are drawn in
    chunks of at most `max_cells` indices to bound memory, and the result depends only on
    the seed and the table.
    """
    n, k = table.shape
    rng = np.random.default_rng(seed)
    out = np.empty((n_resamples, k), dtype=np.float64)
    chunk = max(1, min(n_resamples, max_cells // max(n, 1)))
    index_type = np.int32 if n < 2**31 else np.int64
    counts = np.empty((chunk, n), dtype=np.float64)
    for start in range(0, n_resamples, chunk):
        c = min(chunk, n_resamples - start)
        idx = rng.integers(0, n, size=(c, n), dtype=index_type)
        for i, row in enumerate(idx):
            counts[i] = np.bincount(row, minlength=n)
        out[start : start + c] = counts[:c] @ table
    return out


def percentile_ci(values: np.ndarray, confidence: float = 0.95) -> tuple[float | None, float | None]:
    """(low, high) percentiles of resampled metric values, ignoring NaN (undefined) ones."""
    defined = values[~np.isnan(values)]
    if not defined.size:
        return None, None
    alpha = (1.0 - confidence) / 2.0
    lo, hi = np.quantile(defined, [alpha, 1.0 - alpha])
    return float(lo), float(hi)
