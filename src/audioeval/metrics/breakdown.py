"""Means of per-sample metrics over taxonomy groups, each with its count and a bootstrap CI."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from audioeval.metrics.bootstrap import bootstrap_means_ci_groups
from audioeval.metrics.grouping import group_by

Row = Mapping[str, Any]
GroupKeys = Callable[[Row], Sequence[str]]


def summarise(
    rows: Sequence[Row],
    metrics: Sequence[str],
    *,
    scale: float = 100.0,
    confidence: float = 0.95,
    n_resamples: int = 1000,
    seed: int = 0,
    digits: int = 2,
) -> dict[str, Any]:
    """`{"n": …, METRIC: mean × scale, METRIC + "_n": defined count, METRIC + "_ci": [lo, hi]}`.

    A metric value of None is undefined for that sample and left out of that metric's mean.
    """
    kw = {
        "scale": scale,
        "confidence": confidence,
        "n_resamples": n_resamples,
        "seed": seed,
        "digits": digits,
    }
    return summarise_groups([rows], metrics, **kw)[0]


def summarise_groups(
    groups: Sequence[Sequence[Row]],
    metrics: Sequence[str],
    *,
    scale: float = 100.0,
    confidence: float = 0.95,
    n_resamples: int = 1000,
    seed: int = 0,
    digits: int = 2,
) -> list[dict[str, Any]]:
    """`summarise` of each group of rows, each exactly its own call's: the resample indices
    are drawn once per group size and shared by the metrics of every group of that size
    (`bootstrap.bootstrap_means_ci_groups`)."""
    columns = [
        [
            np.array([np.nan if r.get(name) is None else float(r[name]) for r in rows], dtype=np.float64)
            for name in metrics
        ]
        for rows in groups
    ]
    cis = bootstrap_means_ci_groups(columns, confidence=confidence, n_resamples=n_resamples, seed=seed)
    return [
        _summary(len(rows), metrics, cols, group_cis, scale, digits)
        for rows, cols, group_cis in zip(groups, columns, cis, strict=True)
    ]


def _summary(
    n: int,
    metrics: Sequence[str],
    columns: list[np.ndarray],
    cis: list[tuple[float | None, float | None]],
    scale: float,
    digits: int,
) -> dict[str, Any]:
    out: dict[str, Any] = {"n": n}
    for name, vals, (lo, hi) in zip(metrics, columns, cis, strict=True):
        defined = int((~np.isnan(vals)).sum())
        mean = float(np.nanmean(vals)) if defined else None
        out[name] = None if mean is None else round(mean * scale, digits)
        out[f"{name}_n"] = defined
        out[f"{name}_ci"] = (
            None if lo is None or hi is None else [round(lo * scale, digits), round(hi * scale, digits)]
        )
    return out


def grouped(rows: Sequence[Row], group_keys: GroupKeys) -> dict[str, list[Row]]:
    """The rows of each group, groups by name: a row belongs to every group its `group_keys` lists."""
    return dict(sorted(group_by(rows, group_keys).items()))


def breakdown(
    rows: Sequence[Row],
    metrics: Sequence[str],
    group_keys: GroupKeys,
    **kwargs: Any,
) -> dict[str, dict[str, Any]]:
    """Summaries per group; a row belongs to every group its `group_keys` lists."""
    groups = grouped(rows, group_keys)
    return dict(zip(groups, summarise_groups(list(groups.values()), metrics, **kwargs), strict=True))
