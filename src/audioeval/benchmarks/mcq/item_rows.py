"""The lines an `mcq score` folder holds per item, as typed documents, and the one function
that makes each from a record: `per_item.jsonl` (`ItemRow`: `item_row`), `disagreements.jsonl`
(`DisagreementRow`: `aggregate.disagreements`) and `rubrics/results.jsonl` (`RubricResult`:
`export.rubric_results`). Every reader (the summary's groups and counts, the console, the
tests) reads these types."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypedDict, cast

from audioeval.benchmarks.mcq.rubric_scorer import SCORER_NAME as RUBRIC_SCORER
from audioeval.benchmarks.mcq.rubric_scorer import RubricJudgement
from audioeval.core.record import SampleRecord, Score
from audioeval.core.sample import Sample
from audioeval.postprocess.options import LETTERS
from audioeval.scoring.base import Prediction
from audioeval.scoring.mcq_match import McqMatchScorer
from audioeval.scoring.mcq_robust import McqRobustScorer, answer_index


class ItemRow(TypedDict, total=False):
    """One line of `per_item.jsonl`. After `line` come the item's groups under their taxonomy
    keys (its benchmark's axes: `modality`, `category`, …; a key named like a later field
    keeps its place and takes the later value). An item without a prediction has `official`,
    `robust` and `unparseable` None and no reasons; `rubric_score` and `rubric_failed` only
    for an item eligible for MMAR-Rubrics (`rubric_score` None when its judgement failed)."""

    id: str
    line: int | None
    answer: str
    prediction: str | None
    answer_letter: str | None
    official: int | None
    official_reason: str
    robust: int | None
    robust_choice: str | None
    robust_method: str | None
    robust_reason: str
    unparseable: int | None
    rubric_score: float | None
    rubric_failed: bool


class DisagreementRow(TypedDict):
    """One line of `disagreements.jsonl`: an item the two modes score differently, with what
    each mode saw (the `ItemRow` fields of that name)."""

    id: str
    line: int | None
    answer: str | None
    answer_letter: str | None
    prediction: str | None
    official: int | None
    official_reason: str | None
    robust: int | None
    robust_choice: str | None
    robust_method: str | None
    robust_reason: str | None


class RubricResult(RubricJudgement, total=False):
    """One line of `rubrics/results.jsonl`: an eligible item's MMAR-Rubrics judgement (the
    stored detail, less `eligible`) with its id, sample hash and judge model."""

    id: str
    sample_sha256: str
    judge_model: str | None


def _rule_scores(sample: Sample) -> dict[str, Score]:
    """The official and robust scores of a record that holds none (its judgement failed)."""
    prediction = sample.fields["prediction"]
    pred = Prediction(text=prediction, raw=prediction)
    return {scorer.name: scorer.score(pred, sample) for scorer in (McqMatchScorer(), McqRobustScorer())}


def rubric_detail(rec: SampleRecord) -> RubricJudgement | None:
    """The stored MMAR-Rubrics judgement of a record (scored or failed), if it has one."""
    detail = rec.judge.get(RUBRIC_SCORER)
    return cast(RubricJudgement, detail) if detail else None


def item_row(rec: SampleRecord) -> ItemRow:
    """The per-item row of one record: groups, both modes' outcome and why, rubric score."""
    fields = rec.sample.fields
    choices, answer, prediction = fields["choices"], fields["answer"], fields.get("prediction")
    ai = answer_index(answer, choices)
    row = cast(
        ItemRow,
        {  # the item's groups between `line` and `answer` (see `ItemRow`)
            "id": rec.id,
            "line": fields.get("line"),
            **rec.taxonomy,
            "answer": answer,
            "prediction": prediction,
            "answer_letter": None if ai is None else LETTERS[ai],
        },
    )
    if prediction is None:
        row.update(official=None, robust=None, unparseable=None)
        return row
    scores = rec.scores or _rule_scores(rec.sample)
    official, robust = scores["mcq_match"], scores["mcq_robust"]
    row.update(
        official=int(official.stats["correct"]),
        official_reason=official.detail["reason"],
        robust=int(robust.stats["robust_correct"]),
        robust_choice=robust.detail["choice"],
        robust_method=robust.detail["method"],
        robust_reason=robust.detail["reason"],
        unparseable=int(robust.stats["unparseable"]),
    )
    detail = rubric_detail(rec)
    if detail and detail.get("eligible"):
        row["rubric_score"] = None if detail.get("failed") else detail.get("score")
        row["rubric_failed"] = bool(detail.get("failed"))
    return row


def rubric_results(records: Sequence[SampleRecord], judge_model: str | None) -> list[RubricResult]:
    """One line per eligible item: whether it matched and was judged, every judge call, score."""
    out: list[RubricResult] = []
    for rec in records:
        detail = rubric_detail(rec)
        if detail and detail.get("eligible"):
            body = {k: v for k, v in detail.items() if k != "eligible"}
            out.append(
                cast(
                    RubricResult,
                    {"id": rec.id, "sample_sha256": rec.sample_sha256, "judge_model": judge_model, **body},
                )
            )
    return out
