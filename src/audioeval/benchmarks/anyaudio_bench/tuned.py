"""judge-eval's pair summary at a threshold its records hold no verdict at.

The run's pair summary (`metrics/pair_summary.py`) computes the figures at the threshold each
row's record holds its verdict at (`items_scorer.py`: the default or `--threshold`, known
before judging). Two cases have no such verdict: a threshold tuned after judging (`--tune-on`:
the best accuracy on the scored rows of the dev split, a second benchmark of the same run,
`metrics.binary_judge.tune_threshold`), and a folder judged before judge-eval's metrics were
declared (its records hold the score alone). For these the export has the engine's pair
summary computed again over the same records, each row's verdict at the threshold
(`AnyAudioItemsScorer.labelled`): the same metrics over the same rows in the same order, so
the same resamples (the draws depend only on the row count and the seed) and every figure
computed as a run computes it. What it gives is formatted by `summary.py` like the run's.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from audioeval.benchmarks.anyaudio_bench.figures import METRICS
from audioeval.benchmarks.anyaudio_bench.items_scorer import AnyAudioItemsScorer
from audioeval.benchmarks.anyaudio_bench.rows import JudgeEvalRow, is_scored, label_yes
from audioeval.benchmarks.pair_figures import PairFigures
from audioeval.core.record import SampleRecord
from audioeval.judge.rubric_items import VALUE
from audioeval.metrics import binary_judge as bj
from audioeval.metrics.corpus import get_metric
from audioeval.metrics.pair_summary import PairMetrics, summarise_records

TAXONOMY = ("subset", "type")


def tuned_threshold(rows: Iterable[JudgeEvalRow]) -> bj.TunedThreshold:
    """The threshold with the best accuracy on the scored rows of a dev split
    (`metrics.binary_judge.tune_threshold`); ValueError when no row is scored."""
    scored = [r for r in rows if is_scored(r)]
    return bj.tune_threshold([float(r.score or 0.0) for r in scored], [label_yes(r) for r in scored])


def _at(rec: SampleRecord, scorer: AnyAudioItemsScorer) -> SampleRecord:
    """The record with its row's verdict at the scorer's threshold (a failed one as it is)."""
    scores = rec.scores or {}
    name = next((k for k, score in scores.items() if VALUE in score.stats), None)
    if rec.error is not None or name is None:
        return rec
    return replace(rec, scores={**scores, name: scorer.labelled(scores[name], rec.sample)})


def pair_at(
    records: Sequence[SampleRecord], expected_ids: Sequence[str], threshold: float, *, n_resamples: int, seed: int
) -> PairFigures:
    """The pair summary's figures of the judged rows' records, each row's verdict at `threshold`."""
    scorer = AnyAudioItemsScorer(threshold=threshold)
    plan = PairMetrics([get_metric(m) for m in METRICS], TAXONOMY)
    at = [_at(rec, scorer) for rec in records]
    summary = summarise_records(plan, at, expected_ids=expected_ids, resamples=n_resamples, seed=seed)
    return PairFigures.of(summary)
