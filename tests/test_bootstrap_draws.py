"""The bootstrap's draws: vectorised counting gives each resample's draw counts exactly, and
CIs of several columns drawn once equal each column's own CI."""

from __future__ import annotations

import numpy as np
import pytest

from audioeval.metrics.bootstrap import bootstrap_mean_ci, bootstrap_means_ci, percentile_ci, resample_counts


def _counts_row_by_row(n: int, n_resamples: int, seed: int, max_cells: int) -> np.ndarray:
    """The definition: the same index draws as `resample_counts`, counted one row at a time."""
    rng = np.random.default_rng(seed)
    chunk = max(1, min(n_resamples, max_cells // n))
    rows = []
    for start in range(0, n_resamples, chunk):
        idx = rng.integers(0, n, size=(min(chunk, n_resamples - start), n), dtype=np.int32)
        rows += [np.bincount(row, minlength=n) for row in idx]
    return np.array(rows, dtype=np.float64)


@pytest.mark.parametrize(("n", "max_cells"), [(1, 4_000_000), (7, 4_000_000), (240, 4_000_000), (501, 2_000)])
def test_resample_counts_are_each_rows_draw_counts(n: int, max_cells: int) -> None:
    got = np.concatenate([c.copy() for c in resample_counts(n, n_resamples=300, seed=4, max_cells=max_cells)])
    assert got.shape == (300, n)
    assert np.array_equal(got, _counts_row_by_row(n, 300, 4, max_cells))
    assert np.all(got.sum(axis=1) == n)


def _mean_ci_by_definition(
    values: np.ndarray, n_resamples: int, seed: int
) -> tuple[float | None, float | None]:
    """Rows of indices drawn with replacement; each row's mean of its defined values."""
    if np.isnan(values).all():
        return None, None
    defined = values[~np.isnan(values)]
    if defined.size == 1 or defined.min() == defined.max():
        return float(defined.mean()), float(defined.mean())
    idx = np.random.default_rng(seed).integers(0, values.size, size=(n_resamples, values.size))
    picked = values[idx]
    means = [float(np.sum(r[~np.isnan(r)]) / np.sum(~np.isnan(r))) for r in picked if (~np.isnan(r)).any()]
    return percentile_ci(np.array(means))


def test_ci_of_columns_drawn_once_equals_each_columns_own_ci() -> None:
    rng = np.random.default_rng(2)
    n = 120
    holes = np.where(rng.random(n) < 0.3, np.nan, rng.integers(0, 2, n).astype(float))
    columns = [
        rng.random(n),
        holes,
        np.full(n, np.nan),  # undefined everywhere: no CI
        np.full(n, 0.5),  # constant: a point
        np.where(np.arange(n) == 3, 1.0, np.nan),  # one defined value: a point
    ]
    got = bootstrap_means_ci(columns, n_resamples=500, seed=9)
    assert got == [bootstrap_mean_ci(c, n_resamples=500, seed=9) for c in columns]
    for (low, high), column in zip(got, columns, strict=True):
        want = _mean_ci_by_definition(column, 500, 9)
        assert (low is None) == (want[0] is None)
        if low is not None:
            assert low == pytest.approx(want[0], rel=1e-12) and high == pytest.approx(want[1], rel=1e-12)
    assert got[2] == (None, None) and got[3] == (0.5, 0.5) and got[4] == (1.0, 1.0)
    low, high = got[0]
    assert low is not None and high is not None and low < float(np.mean(columns[0])) < high
