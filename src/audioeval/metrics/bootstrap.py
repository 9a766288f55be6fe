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
