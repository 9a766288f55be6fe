"""MMAR-Rubrics scores of a group of `mcq score` items: the mean score of the eligible items
judged, its bootstrap CI, and the judgements that failed. The one figure of `mcq_summary.json`
not yet computed by the pair summary (a rubric score has no corpus metric: only eligible items
hold one)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from audioeval.metrics.breakdown import summarise

Row = dict[str, Any]


def rubric_group(members: Sequence[Row], *, n_resamples: int, seed: int) -> dict[str, Any]:
    """The MMAR-Rubrics scores of a group's eligible items: n, mean, CI, failed judgements."""
    rubric_rows = [r for r in members if r.get("rubric_score") is not None]
    rs = summarise(rubric_rows, ["rubric_score"], n_resamples=n_resamples, seed=seed)
    return {
        "n": len(rubric_rows),
        "score": rs["rubric_score"],
        "ci": rs["rubric_score_ci"],
        "failed": sum(1 for r in members if r.get("rubric_failed")),
    }
