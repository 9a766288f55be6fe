"""MMAR-Rubrics scores of a group of `mcq score` items as `mcq_summary.json` shows them: the
pair summary's `mean:rubric_score` (the mean over the eligible items judged, its bootstrap CI
and n, computed by the engine), and the judgements that failed (counted from the rows)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, TypedDict

if TYPE_CHECKING:
    from audioeval.benchmarks.mcq.item_rows import ItemRow
    from audioeval.benchmarks.pair_figures import Figure

RUBRIC = "mean:rubric_score"


class RubricGroup(TypedDict):
    """`mcq_summary.json`'s `rubric` block of a group: the eligible items judged (`n`), their
    mean rubric score and its CI in percent, and how many judgements failed."""

    n: int
    score: float | None
    ci: list[float | None] | None
    failed: int


def _percent(x: float | None) -> float | None:
    return None if x is None else round(x * 100, 2)


def rubric_group(block: Figure, members: Sequence[ItemRow]) -> RubricGroup:
    """The MMAR-Rubrics scores of a group: the pair summary's block of `mean:rubric_score`
    (n, score and CI in percent) and the failed judgements of its members."""
    ci = block.ci
    return {
        "n": block.n,
        "score": _percent(block.value),
        "ci": None if not ci or ci[0] is None else [_percent(ci[0]), _percent(ci[1])],
        "failed": sum(1 for r in members if r.get("rubric_failed")),
    }
