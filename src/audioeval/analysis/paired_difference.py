"""The difference of two pairs' headline on one benchmark, with its paired-bootstrap CI and
p-value: what the viewer's compare page shows at its top.

Computed by the machinery of `audioeval leaderboard` (`leaderboard_runs.py`), nothing new: each
pair's headline statistics per sample (`score_table.cell_stats`, failed outputs counted as
the summary counts them), the sample ids both scored with the same content hash
(`leaderboard_runs._paired_ids`), one draw of those ids for both pairs
(`score_table.resampled_metrics`), the percentile interval of the differences
(`metrics/bootstrap.percentile_ci`) and the same two-sided p-value as the leaderboard's.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TypedDict

import numpy as np

from audioeval.analysis.leaderboard_runs import CONFIDENCE, METHOD, _paired_ids
from audioeval.analysis.score_table import PairCell, Plans, cell_stats, resampled_metrics
from audioeval.core.record import SampleRecord
from audioeval.metrics.bootstrap import percentile_ci


class PairedDifference(TypedDict, total=False):
    """A − B of a headline (`paired_difference`): both values, the difference with its CI and
    p-value, the samples, how it was computed; `reason` where it cannot be (or has no CI)."""

    a: float
    b: float
    difference: float
    ci: list[float | None] | None
    p: float | None
    n: int
    method: str
    n_resamples: int
    reason: str


PairRecords = tuple[str, Path, Path, Mapping[str, SampleRecord]]
"""(model, run directory, pair folder, its latest records by id)."""


def paired_difference(
    benchmark: str,
    headline: str,
    a: PairRecords,
    b: PairRecords,
    *,
    resamples: int = 1000,
    seed: int = 0,
) -> PairedDifference:
    """A − B of `headline` (in its shown scale: % for a fraction) over the samples both pairs
    scored: `{a, b, difference, ci, p, n, method, n_resamples}`, or with `reason` when it cannot
    be computed. `a`/`b`: (model, run directory, pair folder, its latest records by id), two
    pairs of `benchmark` (of one run or of two)."""
    plans: Plans = {}
    latest = {a[2]: dict(a[3]), b[2]: dict(b[3])}
    found = []
    for model, run_dir, folder, _ in (a, b):
        cell = PairCell(model, f"{benchmark}:{headline}", run_dir, folder, benchmark, headline)
        stats = cell_stats(cell, plans, latest)
        if isinstance(stats, str):
            return {"reason": f"{model}: {stats}"}
        found.append(stats)
    ids = _paired_ids(found)
    if not ids:
        return {"reason": "no sample scored by both with the same content hash"}
    aligned = [s.over(ids) for s in found]
    ones = np.ones((1, len(ids)), dtype=np.int64)
    observed = [
        float(np.asarray(f(ones)).reshape(-1)[0]) * s.scale for f, s in zip(aligned, found, strict=True)
    ]
    out: PairedDifference = {
        "a": observed[0],
        "b": observed[1],
        "difference": observed[0] - observed[1],
        "n": len(ids),
        "method": METHOD,
    }
    if resamples <= 0:
        return {**out, "ci": None, "p": None, "reason": "no resamples"}
    drawn = resampled_metrics(aligned, len(ids), resamples=resamples, seed=seed)
    diff = drawn[0] * found[0].scale - drawn[1] * found[1].scale
    diff = diff[np.isfinite(diff)]
    if not diff.size:
        return {**out, "ci": None, "p": None, "reason": "no resample has both values"}
    lo, hi = percentile_ci(diff, CONFIDENCE)
    sign = np.sign(round(out["difference"], 9))
    flips = int((np.sign(diff) != sign).sum()) if sign else diff.size
    return {**out, "ci": [lo, hi], "p": min(1.0, 2.0 * flips / diff.size), "n_resamples": int(diff.size)}
