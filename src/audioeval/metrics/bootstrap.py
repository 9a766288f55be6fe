"""Percentile bootstrap confidence intervals for the mean of per-sample values."""

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
    alpha = (1.0 - confidence) / 2.0
    lo, hi = np.quantile(means, [alpha, 1.0 - alpha])
    return float(lo), float(hi)


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
