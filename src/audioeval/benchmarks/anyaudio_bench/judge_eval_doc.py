"""The documents of `audioeval judge-eval`, typed once: the settings its preset hands the
exporter (`JudgeEvalSettings`, kept in the summary for a rescore), `judge_eval_summary.json`
(`JudgeEvalSummary`, written by `export.py` from `summary.judge_eval_summary`) with its
blocks, and a line of `per_row.jsonl` (`RowLine`). The console table and the preset read them."""

from __future__ import annotations

from typing import NotRequired, TypedDict

from audioeval.core.errors import ErrorRecord
from audioeval.metrics.judge_reliability import ReliabilityBlock


class RowFields(TypedDict):
    """A bench row as a summary row (`summary.JudgeEvalRow`, as `unscored.jsonl` keeps it)."""

    uuid: str
    subset: str
    type: str
    label: str | bool
    score: float | None
    failed: bool


class JudgeEvalSettings(TypedDict, total=False):
    """What the preset tells the export (`PairExport.run_info["judge_eval"]`): the bench, the
    judge model, the threshold given (None: the mode's default, or tuned) and where it comes
    from, the dev pair's records and ids with `--tune-on`, the mode; in a run also the rows
    with an empty rubric and the malformed rows (the summary keeps the rest, `SETTINGS`)."""

    bench: str
    judge_model: str | None
    threshold: float | None
    threshold_source: str | None
    dev_records: str | None
    dev_ids: str | None
    mode: str
    unscored_rows: list[RowFields]
    skipped_rows: list[ErrorRecord]


class GroupFigures(TypedDict):
    """The figures of one group of scored rows (`overall`, a subset): n, the yes and no
    labels, accuracy and balanced accuracy (%) with their 95 % CIs, AUROC (0–1) with its CI
    or the reason it is undefined, the share of rows the judge said yes to (%), the mean score."""

    n: int
    n_yes: int
    n_no: int
    accuracy: float | None
    accuracy_ci: list[float] | None
    balanced_accuracy: float | None
    balanced_accuracy_ci: list[float] | None
    auroc: float | None
    auroc_ci: list[float] | None
    auroc_reason: str | None
    yes_rate: float | None
    mean_score: float | None


class SubsetFigures(GroupFigures):
    """A subset's figures, with its rows never judged (`unscored`) and those the judge failed."""

    unscored: int
    failed: int


class OverallFigures(GroupFigures):
    """The pooled figures, `accuracy_pooled` (the official `overall_acc` is pooled) and the
    macro average of the subsets' accuracies (ours), each with its CI."""

    accuracy_pooled: float | None
    accuracy_pooled_ci: list[float] | None
    accuracy_macro: float | None
    accuracy_macro_ci: list[float] | None


class TypeFigures(TypedDict):
    n: int
    accuracy: float | None
    accuracy_ci: list[float] | None


class Listed(TypedDict):
    n: int
    ids: list[str]


class OfficialFigures(TypedDict):
    """What AnyAudio-Judge's `evaluate_benchmark.py` reports for these rows, unrounded."""

    source: str
    mode: str | None
    threshold: float
    per_subset_acc: dict[str, float | None]
    overall_acc: float | None
    per_subset_mean_score: dict[str, float | None]
    overall_mean_score: float | None
    n_samples: int


class ThresholdBlock(TypedDict):
    """The threshold, where it comes from, and when tuned the dev rows and the accuracy there."""

    value: float
    source: str
    dev_n: NotRequired[int]
    dev_accuracy: NotRequired[float | None]


class BootstrapSettings(TypedDict):
    n_resamples: int
    seed: int
    confidence: float


class Skipped(TypedDict):
    n: int
    rows: list[ErrorRecord]


class JudgeEvalSummary(TypedDict):
    """`judge_eval_summary.json` (see `summary.py` for each block)."""

    n: int
    n_scored: int
    subsets: dict[str, SubsetFigures]
    overall: OverallFigures
    types: dict[str, TypeFigures]
    unscored: Listed
    failed: Listed
    official: OfficialFigures
    threshold: ThresholdBlock
    ece: float | None
    ece_bins: int
    units: dict[str, str]
    bootstrap: BootstrapSettings
    bench: NotRequired[str | None]
    judge_model: NotRequired[str | None]
    settings: NotRequired[JudgeEvalSettings]
    reliability: NotRequired[dict[str, ReliabilityBlock]]
    skipped: NotRequired[Skipped]


class ItemLine(TypedDict):
    """A rubric item of a row as judged: its dimension, question, P(yes) and how it was read."""

    dimension: str | None
    question: str | None
    p_yes: float | None
    method: str | None


class RowLine(RowFields):
    """A line of `per_row.jsonl`: the row as judged, every item's P(yes), the judge's error."""

    items: list[ItemLine]
    error: str | None
