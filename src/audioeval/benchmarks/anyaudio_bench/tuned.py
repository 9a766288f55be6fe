"""The judge-eval figures at a threshold tuned after judging (`judge-eval --tune-on DEV`).

The threshold is the one with the best accuracy on the dev split's scored rows
(`metrics.binary_judge.tune_threshold`), a second benchmark of the same run; the judged rows'
verdicts at it are known only once both pairs are judged, so no pair summary can compute the
figures that depend on it. They are computed here, from the judged rows and the dev rows, with
the statistics of `metrics/binary_judge.py` and the same resamples as the pair summary's (the
draws depend only on the row count and the seed): accuracy, balanced accuracy and the yes rate
of each group (overall, subset, type), the macro accuracy over subsets, the official accuracy.
Every other figure of the summary (counts, mean score, AUROC, ECE) is the pair summary's.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from audioeval.benchmarks.anyaudio_bench.rows import JudgeEvalRow, correct, is_scored, label_yes
from audioeval.metrics import binary_judge as bj

CONFIDENCE = 0.95


@dataclass(frozen=True)
class AtThreshold:
    """One group's figures at the tuned threshold, 0–1 (None: no scored row)."""

    n: int
    accuracy: float | None
    accuracy_ci: tuple[float | None, float | None]
    balanced_accuracy: float | None
    balanced_accuracy_ci: tuple[float | None, float | None]
    yes_rate: float | None


@dataclass(frozen=True)
class TunedFigures:
    """Every figure at the tuned threshold: overall, per subset and per type (0–1), the macro
    accuracy over subsets with its CI, and the official accuracy (100 ×, unrounded)."""

    threshold: float
    overall: AtThreshold
    subsets: dict[str, AtThreshold]
    types: dict[str, AtThreshold]
    macro: float | None
    macro_ci: tuple[float | None, float | None]


def tuned_threshold(rows: Iterable[JudgeEvalRow]) -> bj.TunedThreshold:
    """The threshold with the best accuracy on the scored rows of a dev split
    (`metrics.binary_judge.tune_threshold`); ValueError when no row is scored."""
    scored = [r for r in rows if is_scored(r)]
    return bj.tune_threshold([float(r.score or 0.0) for r in scored], [label_yes(r) for r in scored])


def _group(rows: Sequence[JudgeEvalRow], threshold: float, n_resamples: int, seed: int) -> AtThreshold:
    scores = np.array([r.score for r in rows], dtype=np.float64)
    labels = np.array([label_yes(r) for r in rows], dtype=bool)
    cis = bj.bootstrap_cis(scores, labels, threshold, n_resamples=n_resamples, seed=seed, confidence=CONFIDENCE)
    return AtThreshold(
        len(rows),
        bj.accuracy(scores, labels, threshold),
        cis.accuracy,
        bj.balanced_accuracy(scores, labels, threshold),
        cis.balanced_accuracy,
        float(np.mean(bj.predict_yes(scores, threshold))) if len(rows) else None,
    )


def tuned_figures(
    scored: Sequence[JudgeEvalRow],
    threshold: float,
    subsets: Sequence[str],
    types: Sequence[str],
    *,
    n_resamples: int,
    seed: int,
) -> TunedFigures:
    """The figures at `threshold` of the scored rows (`subsets`, `types`: the groups, in the
    order the summary lists them)."""
    by_subset = {
        name: _group([r for r in scored if r.subset == name], threshold, n_resamples, seed) for name in subsets
    }
    index = {name: k for k, name in enumerate(subsets)}
    right = np.array([correct(r, threshold) for r in scored], dtype=bool)
    groups = np.array([index[r.subset] for r in scored], dtype=np.int64)
    accs = [float(right[groups == k].mean()) for k in range(len(index)) if (groups == k).any()]
    macro_ci = bj.bootstrap_macro_accuracy_ci(
        right, groups, n_resamples=n_resamples, seed=seed, confidence=CONFIDENCE
    )
    return TunedFigures(
        threshold,
        _group(scored, threshold, n_resamples, seed),
        by_subset,
        {name: _group([r for r in scored if r.type == name], threshold, n_resamples, seed) for name in types},
        float(np.mean(accs)) if accs else None,
        macro_ci,
    )
