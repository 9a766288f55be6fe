"""Which MMAR items get a reasoning-rubric score, and what the judge is shown for each.

An item is eligible when it has a prediction and a valid `rubric` (5 items in the current
MMAR JSONL), a `question` and a reference `thinking`; `--rubric-meta` can supply those by
id (the metadata wins, as in the official script). Eligible items whose answer fails the
official match score 0 with no judge call (`rubric_scorer.py`). A malformed rubric is
reported and the item left unjudged.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypedDict

from audioeval.benchmarks.mcq.loading import McqItem
from audioeval.benchmarks.mcq.rubric_prompt import parse_rubric
from audioeval.core.errors import InputError

RUBRIC_FIELDS = ("rubric", "thinking", "question")


class RubricFields(TypedDict):
    """The judge's inputs of an eligible item, put on its sample: the rubric as written (a
    list of items, checked by `rubric_prompt.parse_rubric`), the question and the reference
    reasoning (the item's `thinking`)."""

    rubric: list[Any]
    question: str
    reference: str


@dataclass
class RubricPlan:
    """The judge's inputs of each eligible item (sample fields `rubric`, `question`,
    `reference`), the items without a rubric, and the malformed ones."""

    fields: dict[str, RubricFields] = field(default_factory=dict)
    without_rubric: int = 0
    skipped: list[InputError] = field(default_factory=list)


def plan_rubrics(
    items: Sequence[McqItem], file: str, meta: Mapping[str, McqItem] | None = None
) -> RubricPlan:
    """Eligible items in file order; a malformed rubric is reported and the item skipped."""
    plan = RubricPlan()
    for item in items:
        if item.prediction is None:
            continue
        rec = dict(item.record)  # the item as written: its own fields, the metadata's over them
        if meta and item.id in meta:
            given = meta[item.id].record
            rec.update({k: given[k] for k in RUBRIC_FIELDS if k in given})
        if rec.get("rubric") is None:
            plan.without_rubric += 1
            continue
        where = {"file": file, "line": item.line, "sample_id": item.id}
        try:
            parse_rubric(rec["rubric"])
        except ValueError as exc:
            plan.skipped.append(InputError(str(exc), field="rubric", **where))
            continue
        question, reference = rec.get("question"), rec.get("thinking")
        if not isinstance(question, str) or not isinstance(reference, str):
            name = "question" if not isinstance(question, str) else "thinking"
            plan.skipped.append(InputError("needed for rubric judging: a string", field=name, **where))
            continue
        plan.fields[item.id] = RubricFields(rubric=rec["rubric"], question=question, reference=reference)
    return plan


def load_rubric_meta(path: str | Path) -> dict[str, McqItem]:
    """MMAR metadata items by id, whose records supply `rubric`, `thinking` and `question`."""
    from audioeval.benchmarks.mcq.definitions import MMAR
    from audioeval.benchmarks.mcq.loading import load_mcq_file

    meta = load_mcq_file(path, MMAR, require_predictions=False)
    return {item.id: item for item in meta.items}
