"""judge-eval's summary of given rows, through the path a run takes: each judged row a record
with the scorer's stats (`anyaudio_items`), the engine's pair summary of the records at the
threshold (`tuned.pair_at`: the metrics the preset's spec names), then the formatter."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from audioeval.benchmarks.anyaudio_bench.items_scorer import AnyAudioItemsScorer
from audioeval.benchmarks.anyaudio_bench.judge_eval_doc import JudgeEvalSummary
from audioeval.benchmarks.anyaudio_bench.rows import JudgeEvalRow, is_scored
from audioeval.benchmarks.anyaudio_bench.summary import default_threshold, judge_eval_summary
from audioeval.benchmarks.anyaudio_bench.tuned import pair_at
from audioeval.benchmarks.plugins import load_benchmarks
from audioeval.core.record import FailureKind, SampleRecord, Score
from audioeval.core.sample import Sample
from audioeval.judge.rubric_items import VALUE
from audioeval.metrics.binary_judge import TunedThreshold


def row_records(rows: Sequence[JudgeEvalRow], threshold: float) -> list[SampleRecord]:
    """The records of the judged rows (the unscored ones are never judged: no record)."""
    scorer = AnyAudioItemsScorer(threshold=threshold)
    out = []
    for r in rows:
        if not r.failed and not is_scored(r):
            continue
        fields = {"label": r.label, "subset": r.subset, "type": r.type}
        sample = Sample(r.uuid, {}, fields, {"subset": r.subset, "type": r.type}, "bench.jsonl")
        rec = SampleRecord(r.uuid, sample)
        if r.failed:
            rec.failed("judge: no rubric item got a yes/no value", FailureKind.JUDGE)
        else:
            score = float(r.score or 0.0)
            rec.scores = {scorer.name: scorer.labelled(Score({VALUE: score}, {VALUE: score}), sample)}
        out.append(rec)
    return out


def rows_summary(
    rows: Sequence[JudgeEvalRow | tuple[Any, ...]],
    *,
    threshold: float | None = None,
    threshold_source: str = "default",
    n_resamples: int = 1000,
    seed: int = 0,
    mode: str = "per_item",
    tuning: TunedThreshold | None = None,
) -> JudgeEvalSummary:
    """`judge_eval_summary.json` of `rows` at `threshold` (default: the mode's)."""
    load_benchmarks()  # the benchmarks' metric declarations (`mean:label_yes`, `mean:said_yes`)
    all_rows = [JudgeEvalRow(*r) for r in rows]
    at = default_threshold(mode)[0] if threshold is None else threshold
    records = row_records(all_rows, at)
    pair = pair_at(records, [r.id for r in records], at, n_resamples=n_resamples, seed=seed)
    return judge_eval_summary(
        pair, all_rows, threshold=at, threshold_source=threshold_source, n_resamples=n_resamples, seed=seed,
        mode=mode, tuning=tuning,
    )  # fmt: skip
