"""Percentile bootstrap confidence intervals: the one bootstrap of every metric.

Means of per-sample values (`bootstrap_mean_ci`), means of 0/1 outcomes drawn at once as
binomials (`binary_mean_ci`), metrics of summed statistics (`resampled_sums`, then
`percentile_ci` of the metric recomputed per resample), and any other statistic recomputed
from each resample's draw counts (`resampled_statistic`: AUROC, balanced accuracy).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

import numpy as np

MAX_DRAW_CELLS = 16_000_000
"""The most resample indices drawn at once (128 MB of int64)."""


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
    return bootstrap_means_ci([values], confidence=confidence, n_resamples=n_resamples, seed=seed)[0]


def bootstrap_means_ci(
    columns: list[np.ndarray] | list[list[float]],
    *,
    confidence: float = 0.95,
    n_resamples: int = 1000,
    seed: int = 0,
) -> list[tuple[float | None, float | None]]:
    """`bootstrap_mean_ci` of each column (same length) of one set of samples, the resample
    indices drawn once for all of them: each column's CI is exactly its own call's."""
    return bootstrap_means_ci_groups([columns], confidence=confidence, n_resamples=n_resamples, seed=seed)[0]


def bootstrap_means_ci_groups(
    groups: Sequence[Sequence[np.ndarray | Sequence[float]]],
    *,
    confidence: float = 0.95,
    n_resamples: int = 1000,
    seed: int = 0,
) -> list[list[tuple[float | None, float | None]]]:
    """`bootstrap_means_ci` of each group of columns (a breakdown's groups), each CI exactly
    its own call's. The resample indices of a column depend only on its length and the seed,
    so they are drawn once per length for every group and column of that length (the
    groups of one size share them), then dropped."""
    out: list[list[tuple[float | None, float | None]]] = []
    by_size: dict[int, list[tuple[int, int, np.ndarray, np.ndarray]]] = {}
    for g, columns in enumerate(groups):
        cis: list[tuple[float | None, float | None]] = []
        for c, values in enumerate(columns):
            arr = np.asarray(values, dtype=np.float64)
            defined = ~np.isnan(arr)
            if not defined.any():
                cis.append((None, None))
                continue
            if defined.sum() == 1 or np.nanmin(arr) == np.nanmax(arr):
                m = float(np.nanmean(arr))
                cis.append((m, m))
                continue
            cis.append((None, None))  # resampled below
            by_size.setdefault(arr.size, []).append((g, c, arr, defined))
        out.append(cis)
    for size, resampled in by_size.items():
        # drawn in chunks of rows (the same draws as one (n_resamples, size) array), so memory
        # stays under MAX_DRAW_CELLS indices whatever the resamples and the set's size
        rng = np.random.default_rng(seed)
        rows = max(1, min(n_resamples, MAX_DRAW_CELLS // size))
        means: list[list[np.ndarray]] = [[] for _ in resampled]
        for start in range(0, n_resamples, rows):
            idx = rng.integers(0, size, size=(min(rows, n_resamples - start), size))
            for k, (_, _, arr, defined) in enumerate(resampled):
                means[k].append(_resampled_means(arr, defined, idx))
            del idx
        for k, (g, c, _, _) in enumerate(resampled):
            drawn = means[k][0] if len(means[k]) == 1 else np.concatenate(means[k])
            out[g][c] = percentile_ci(drawn, confidence)
    return out


def _resampled_means(arr: np.ndarray, defined: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """The mean of the defined values of each resample (rows of `idx`) that has one.

    The values drawn are gathered by `take` (what `arr[idx]` gives, faster). With undefined
    (NaN) values: NaN drawn as 0 in the sums, left out of the counts, which is what `np.nansum`
    and counting `~np.isnan` over the drawn values give, bit for bit (nansum sums a copy with
    NaN set to 0 the same way), in two passes instead of five."""
    if defined.all():
        return arr.take(idx).sum(axis=1) / arr.size
    sums = np.where(defined, arr, 0.0).take(idx).sum(axis=1)
    counts = defined.take(idx).sum(axis=1)
    return sums[counts > 0] / counts[counts > 0]


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


ROW_BINCOUNT_MIN = 1000
"""From this many samples, `resample_counts` counts each resample's draws apart (faster than
one bincount of the whole chunk's shifted draws, whose copy costs more than the calls saved);
the counts are the same either way."""


def resample_counts(
    n: int, *, n_resamples: int = 1000, seed: int = 0, max_cells: int = 4_000_000
) -> Iterator[np.ndarray]:
    """Chunks (c, n) of resamples: how often each of n samples is drawn with replacement in
    each resample, `n_resamples` rows in all, in at most `max_cells` indices a chunk.

    The draws depend only on `n`, the seed and the order of the rows; a chunk is a view of a
    buffer that the next chunk overwrites, so use it before asking for the next.
    """
    rng = np.random.default_rng(seed)
    chunk = max(1, min(n_resamples, max_cells // max(n, 1)))
    index_type = np.int32 if n < 2**31 else np.int64
    counts = np.empty((chunk, n), dtype=np.float64)
    offsets = np.arange(chunk, dtype=np.int64)[:, None] * n
    for start in range(0, n_resamples, chunk):
        c = min(chunk, n_resamples - start)
        idx = rng.integers(0, n, size=(c, n), dtype=index_type)
        if n >= ROW_BINCOUNT_MIN:  # a bincount per row: no shifted copy of the chunk's draws
            for row, drawn in zip(counts[:c], idx, strict=True):
                row[:] = np.bincount(drawn, minlength=n)
        else:  # one bincount over the chunk: row i's draws shifted by i × n count into row i
            flat = np.add(idx, offsets[:c], dtype=np.int64).ravel()
            counts[:c] = np.bincount(flat, minlength=c * n).reshape(c, n)
        yield counts[:c]


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
    counts (`resample_counts`) multiply the table, so memory stays bounded and the result
    depends only on the seed and the table.
    """
    n, k = table.shape
    out = np.empty((n_resamples, k), dtype=np.float64)
    start = 0
    for counts in resample_counts(n, n_resamples=n_resamples, seed=seed, max_cells=max_cells):
        out[start : start + len(counts)] = counts @ table
        start += len(counts)
    return out


def resampled_statistic(
    n: int,
    statistic: Callable[[np.ndarray], np.ndarray],
    *,
    n_resamples: int = 1000,
    seed: int = 0,
    max_cells: int = 4_000_000,
) -> np.ndarray:
    """(n_resamples, k) values of a statistic of n samples, recomputed on every resample.

    `statistic` takes a chunk of draw counts (c, n) (`resample_counts`: the weight of each
    sample in each resample) and returns (c, k) values, NaN where undefined (a resample with
    no positive sample has no AUROC); `percentile_ci` of a column ignores those. For
    statistics that are not sums of per-sample numbers (AUROC, balanced accuracy).
    """
    parts = [
        np.asarray(statistic(counts), dtype=np.float64).reshape(len(counts), -1)
        for counts in resample_counts(n, n_resamples=n_resamples, seed=seed, max_cells=max_cells)
    ]
    return np.concatenate(parts) if parts else np.empty((0, 0), dtype=np.float64)


def percentile_ci(values: np.ndarray, confidence: float = 0.95) -> tuple[float | None, float | None]:
    """(low, high) percentiles of resampled metric values, ignoring NaN (undefined) ones."""
    defined = values[~np.isnan(values)]
    if not defined.size:
        return None, None
    alpha = (1.0 - confidence) / 2.0
    lo, hi = np.quantile(defined, [alpha, 1.0 - alpha])
    return float(lo), float(hi)
