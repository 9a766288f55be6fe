"""A judge-eval row: one bench sample as judged (uuid, subset, type, label, the judge's score,
whether the judge failed). A row without a score is never scored: an empty rubric is
`unscored`, a judge failure `failed`; both are counted and listed by uuid."""

from __future__ import annotations

import math
from typing import NamedTuple

from audioeval.benchmarks.anyaudio_bench.judge_eval_doc import RowFields
from audioeval.benchmarks.anyaudio_bench.schema import is_unscored
from audioeval.core.sample import Sample
from audioeval.postprocess.yes_no import read_label


class JudgeEvalRow(NamedTuple):
    """One bench sample as judged: `score` is None when unscored or failed."""

    uuid: str
    subset: str
    type: str
    label: str | bool
    score: float | None
    failed: bool = False

    def fields(self) -> RowFields:
        return RowFields(
            uuid=self.uuid, subset=self.subset, type=self.type, label=self.label, score=self.score, failed=self.failed
        )


def judge_eval_row(sample: Sample, score: float | None, *, failed: bool = False) -> JudgeEvalRow:
    """The summary row of a bench Sample (`loading.load_bench`) and the judge's score of it
    (None when unscored or failed); an unscored sample's score is ignored."""
    f = sample.fields
    if is_unscored(sample):
        score, failed = None, False
    return JudgeEvalRow(sample.id, str(f["subset"]), str(f["type"]), str(f["label"]), score, failed)


def is_scored(row: JudgeEvalRow) -> bool:
    return not row.failed and row.score is not None and not math.isnan(row.score)


def label_yes(row: JudgeEvalRow) -> bool:
    """The row's label as a bool; ValueError for a label other than yes/no."""
    yes = read_label(row.label)
    if yes is None:
        raise ValueError(f"row {row.uuid!r}: label must be yes or no, got {row.label!r}")
    return yes


def correct(row: JudgeEvalRow, threshold: float) -> bool:
    """Whether the row's verdict at `threshold` (yes at or above it) matches its label."""
    return bool(row.score is not None and row.score >= threshold) == label_yes(row)
