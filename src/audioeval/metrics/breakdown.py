"""Means of per-sample metrics over taxonomy groups, each with its count and a bootstrap CI."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from audioeval.metrics.bootstrap import bootstrap_means_ci
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
    out: dict[str, Any] = {"n": len(rows)}
    columns = [
        np.array([np.nan if r.get(name) is None else float(r[name]) for r in rows], dtype=np.float64)
        for name in metrics
    ]
    # One draw of resample indices for the group, shared by its metrics (each CI is its own call's).
    cis = bootstrap_means_ci(columns, confidence=confidence, n_resamples=n_resamples, seed=seed)
    for name, vals, (lo, hi) in zip(metrics, columns, cis, strict=True):
        defined = int((~np.isnan(vals)).sum())
        mean = float(np.nanmean(vals)) if defined else None
        out[name] = None if mean is None else round(mean * scale, digits)
        out[f"{name}_n"] = defined
        out[f"{name}_ci"] = (
            None if lo is None or hi is None else [round(lo * scale, digits), round(hi * scale, digits)]
        )
    return out


def breakdown(
    rows: Sequence[Row],
    metrics: Sequence[str],
    group_keys: GroupKeys,
    **kwargs: Any,
) -> dict[str, dict[str, Any]]:
    """Summaries per group; a row belongs to every group its `group_keys` lists."""
    groups = group_by(rows, group_keys)
    return {key: summarise(members, metrics, **kwargs) for key, members in sorted(groups.items())}
