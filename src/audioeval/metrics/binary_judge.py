"""How well a continuous judge score separates yes from no: the metrics of a judge meta-evaluation.

Scores are P(yes)-like numbers (higher = more likely "yes"), labels are booleans (True =
"yes"). A score at or above the threshold predicts yes. Every metric has a weighted form,
so a bootstrap resample (each sample's draw count as its weight, `metrics/bootstrap.py`)
recomputes it without copying samples:

- accuracy: correct predictions over all samples;
- balanced accuracy: the mean of the recalls of the classes present (sklearn's definition;
  with one class only, that class's recall);
- AUROC: the Mann–Whitney U over n_yes × n_no, a tie between a yes and a no counting one
  half; undefined (None, with the reason) without both classes;
- ECE: expected calibration error over 10 equal-width bins of the score;
- threshold tuning: the midpoint between consecutive distinct scores that maximises
  accuracy on a dev split, ties going to the one closest to 0.5 (each midpoint written
  with the fewest decimals that keep it between its two scores).

The same statistics as corpus metrics of a pair summary (`metrics/corpus.py`), from the
per-sample stats a judge-eval scorer writes (`JUDGE_STATS`): `balanced_accuracy_table` and
`ece_table` (functions of summed statistics), `auroc_of_counts` and `macro_accuracy_of_counts`
(functions of the whole set under draw counts); `accuracy` is the generic share of `correct`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from audioeval.metrics.bootstrap import percentile_ci, resampled_statistic
from audioeval.metrics.stat_table import OfCounts, Prepared, Stats, column

Scores = Sequence[float] | np.ndarray
Labels = Sequence[bool] | np.ndarray

DEFAULT_THRESHOLD = 0.5
ECE_BINS = 10


@dataclass(frozen=True, slots=True)
class Auroc:
    """The AUROC, or None with the reason it is undefined."""

    value: float | None
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class TunedThreshold:
    """The threshold picked on a dev split, and the accuracy (0–1) it reaches there."""

    value: float
    accuracy: float
    n: int


@dataclass(frozen=True, slots=True)
class BinaryCis:
    """Percentile bootstrap CIs (0–1 scale) of the three metrics, from the same resamples."""

    accuracy: tuple[float | None, float | None]
    balanced_accuracy: tuple[float | None, float | None]
    auroc: tuple[float | None, float | None]


def _arrays(scores: Scores, labels: Labels) -> tuple[np.ndarray, np.ndarray]:
    s = np.asarray(scores, dtype=np.float64).reshape(-1)
    y = np.asarray(labels, dtype=bool).reshape(-1)
    if s.shape != y.shape:
        raise ValueError(f"{s.size} scores but {y.size} labels")
    if np.isnan(s).any():
        raise ValueError("a score is NaN: leave unscored samples out")
    return s, y


def predict_yes(scores: Scores, threshold: float) -> np.ndarray:
    """True where the score is at or above the threshold."""
    return np.asarray(scores, dtype=np.float64) >= threshold


def accuracy(scores: Scores, labels: Labels, threshold: float = DEFAULT_THRESHOLD) -> float | None:
    """Correct predictions / samples (0–1); None for no sample."""
    s, y = _arrays(scores, labels)
    if not s.size:
        return None
    return float(np.mean(predict_yes(s, threshold) == y))


def balanced_accuracy(scores: Scores, labels: Labels, threshold: float = DEFAULT_THRESHOLD) -> float | None:
    """The mean recall of the classes present (0–1); None for no sample."""
    s, y = _arrays(scores, labels)
    if not s.size:
        return None
    value = _weighted_balanced(predict_yes(s, threshold) == y, y, np.ones((1, s.size)))[0]
    return float(value)


def auroc(scores: Scores, labels: Labels) -> Auroc:
    """Rank-based AUROC with ties counted one half; None with a reason without both classes."""
    s, y = _arrays(scores, labels)
    n_yes, n_no = int(y.sum()), int((~y).sum())
    if not n_yes or not n_no:
        missing = "no sample" if not s.size else ("no 'yes' sample" if not n_yes else "no 'no' sample")
        return Auroc(None, f"undefined: {missing}")
    order, starts = _levels(s)
    return Auroc(float(_weighted_auroc(y[order], starts, np.ones((1, s.size)))[0]))


def expected_calibration_error(scores: Scores, labels: Labels, bins: int = ECE_BINS) -> float | None:
    """Σ_bins (n_bin / n) · |mean score − yes rate| over equal-width bins of [0, 1] (scores
    outside are clipped into the end bins); None for no sample."""
    s, y = _arrays(scores, labels)
    if not s.size:
        return None
    index = np.clip(np.floor(s * bins).astype(np.int64), 0, bins - 1)
    score_sum = np.bincount(index, weights=s, minlength=bins)
    yes_sum = np.bincount(index, weights=y.astype(np.float64), minlength=bins)
    return float(np.abs(score_sum - yes_sum).sum() / s.size)


def calibration_bins(
    scores: Scores, labels: Labels, bins: int = ECE_BINS
) -> list[dict[str, float | int | None]]:
    """The reliability diagram behind the ECE: per equal-width bin, its bounds, n, the mean
    score and the yes rate (None in an empty bin)."""
    s, y = _arrays(scores, labels)
    index = np.clip(np.floor(s * bins).astype(np.int64), 0, bins - 1)
    n = np.bincount(index, minlength=bins)
    score_sum = np.bincount(index, weights=s, minlength=bins)
    yes_sum = np.bincount(index, weights=y.astype(np.float64), minlength=bins)
    return [
        {
            "low": b / bins,
            "high": (b + 1) / bins,
            "n": int(n[b]),
            "mean_score": float(score_sum[b] / n[b]) if n[b] else None,
            "rate_yes": float(yes_sum[b] / n[b]) if n[b] else None,
        }
        for b in range(bins)
    ]


def tune_threshold(scores: Scores, labels: Labels) -> TunedThreshold:
    """The candidate threshold with the highest accuracy; candidates are the midpoints
    between consecutive distinct scores (each splits the sorted scores once) and the two
    extremes: the lowest score (every row yes) and a value above the highest (every row no),
    so a one-class or single-score dev split reaches what it can; equal accuracy goes to the
    candidate closest to 0.5, then to the lower."""
    s, y = _arrays(scores, labels)
    if not s.size:
        raise ValueError("no scored sample to tune the threshold on")
    levels, inverse = np.unique(s, return_inverse=True)
    yes_at = np.bincount(inverse, weights=y.astype(np.float64), minlength=levels.size)
    no_at = np.bincount(inverse, weights=(~y).astype(np.float64), minlength=levels.size)
    # the candidate after level l (l = -1: before every level): levels ..l say no, l+1.. yes
    no_right = np.concatenate([[0.0], np.cumsum(no_at)])
    yes_right = yes_at.sum() - np.concatenate([[0.0], np.cumsum(yes_at)])
    correct = (no_right + yes_right).round().astype(np.int64)
    top = float(levels[-1])
    above = _short_between(top, 1.0) if top < 1.0 else _short_between(top, top + 0.1)
    candidates = np.array(
        [float(levels[0])]
        + [_short_between(lo, hi) for lo, hi in zip(levels[:-1], levels[1:], strict=True)]
        + [above]
    )
    best = np.flatnonzero(correct == correct.max())
    pick = min(best, key=lambda i: (abs(candidates[i] - DEFAULT_THRESHOLD), candidates[i]))
    return TunedThreshold(float(candidates[pick]), float(correct[pick] / s.size), s.size)


def bootstrap_cis(
    scores: Scores,
    labels: Labels,
    threshold: float = DEFAULT_THRESHOLD,
    *,
    n_resamples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
) -> BinaryCis:
    """Percentile CIs of accuracy, balanced accuracy and AUROC, all three recomputed on the
    same resamples of samples (resamples lacking a class have no AUROC and are left out of
    its interval). (None, None) for no sample or no resample."""
    s, y = _arrays(scores, labels)
    if not s.size or n_resamples <= 0:
        return BinaryCis((None, None), (None, None), (None, None))
    order, starts = _levels(s)
    correct = predict_yes(s, threshold) == y
    y_sorted = y[order]

    def statistic(weights: np.ndarray) -> np.ndarray:
        return np.stack(
            [
                _weighted_accuracy(correct, weights),
                _weighted_balanced(correct, y, weights),
                _weighted_auroc(y_sorted, starts, weights[:, order]),
            ],
            axis=1,
        )

    values = resampled_statistic(s.size, statistic, n_resamples=n_resamples, seed=seed)
    acc, bal, roc = (percentile_ci(values[:, k], confidence) for k in range(3))
    return BinaryCis(acc, bal, roc)


def bootstrap_macro_accuracy_ci(
    correct: Labels,
    groups: Sequence[int] | np.ndarray,
    *,
    n_resamples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
) -> tuple[float | None, float | None]:
    """Percentile CI of the mean over groups of each group's accuracy (0–1), samples
    resampled together (so with `seed` and the same samples, the resamples of
    `bootstrap_cis`); a group drawn empty is left out of that resample's mean."""
    ok = np.asarray(correct, dtype=np.float64).reshape(-1)
    g = np.asarray(groups, dtype=np.int64).reshape(-1)
    if not ok.size or n_resamples <= 0:
        return None, None
    members = np.zeros((ok.size, int(g.max()) + 1))
    members[np.arange(ok.size), g] = 1.0

    def statistic(weights: np.ndarray) -> np.ndarray:
        total = weights @ members
        with np.errstate(invalid="ignore", divide="ignore"):
            per_group = np.where(total > 0, (weights @ (members * ok[:, None])) / total, np.nan)
            return np.nanmean(per_group, axis=1)

    values = resampled_statistic(ok.size, statistic, n_resamples=n_resamples, seed=seed)
    return percentile_ci(values[:, 0], confidence)


SCORE_KEY, LABEL_KEY, CORRECT_KEY, SAID_YES_KEY, GROUP_KEY = (
    "rubric_score",
    "label_yes",
    "correct",
    "said_yes",
    "macro_group",
)
JUDGE_STATS = (SCORE_KEY, LABEL_KEY, CORRECT_KEY, SAID_YES_KEY, GROUP_KEY)
"""The per-sample stats of a judged sample with a yes/no label: the judge's score, the label
(1 yes, 0 no), and at a threshold whether the score said yes and was right; `macro_group`: the
group the macro accuracy averages over (a subset)."""


def _labels(stats_list: Sequence[Stats], metric: str) -> np.ndarray:
    return np.asarray([float(v) for v in column(stats_list, LABEL_KEY, metric)], dtype=np.float64) > 0


def _correct(stats_list: Sequence[Stats], metric: str) -> np.ndarray:
    return np.asarray([float(v) for v in column(stats_list, CORRECT_KEY, metric)], dtype=np.float64) > 0


def balanced_accuracy_table(stats_list: Sequence[Stats]) -> Prepared:
    """(right and yes, yes, right and no, no) per sample: the mean of the recalls of the
    classes present, from summed rows (`balanced_accuracy`)."""
    correct, yes = _correct(stats_list, "balanced_accuracy"), _labels(stats_list, "balanced_accuracy")
    table = np.column_stack([correct & yes, yes, correct & ~yes, ~yes]).astype(np.float64)

    def reduce(sums: np.ndarray) -> np.ndarray:
        recalls = []
        for hit, total in ((sums[:, 0], sums[:, 1]), (sums[:, 2], sums[:, 3])):
            with np.errstate(invalid="ignore", divide="ignore"):
                recalls.append(np.where(total > 0, hit / total, np.nan))
        both = np.stack(recalls, axis=1)
        present = ~np.isnan(both)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(present.any(axis=1), np.nansum(both, axis=1) / present.sum(axis=1), np.nan)

    return table, reduce


def ece_table(stats_list: Sequence[Stats], bins: int = ECE_BINS) -> Prepared:
    """Per sample, its score and its label in its bin's columns, and 1: Σ_bins |Σ score − Σ
    yes| / n over equal-width bins of [0, 1] (`expected_calibration_error` of summed rows)."""
    s = np.asarray([float(v) for v in column(stats_list, SCORE_KEY, "ece")], dtype=np.float64)
    y = _labels(stats_list, "ece").astype(np.float64)
    index = np.clip(np.floor(s * bins).astype(np.int64), 0, bins - 1)
    table = np.zeros((s.size, 2 * bins + 1), dtype=np.float64)
    rows = np.arange(s.size)
    table[rows, index] = s
    table[rows, bins + index] = y
    table[:, -1] = 1.0

    def reduce(sums: np.ndarray) -> np.ndarray:
        n = sums[:, -1]
        gap = np.abs(sums[:, :bins] - sums[:, bins : 2 * bins]).sum(axis=1)
        out = np.full(n.shape, np.nan)
        np.divide(gap, n, out=out, where=n > 0)
        return out

    return table, reduce


def auroc_of_counts(stats_list: Sequence[Stats]) -> OfCounts:
    """The AUROC of the scores against the labels under draw counts (m, n) (`auroc`; NaN
    for a draw without both classes)."""
    s = np.asarray([float(v) for v in column(stats_list, SCORE_KEY, "auroc")], dtype=np.float64)
    y = _labels(stats_list, "auroc")
    order, starts = _levels(s)
    y_sorted = y[order]
    return lambda counts: _weighted_auroc(y_sorted, starts, np.asarray(counts, dtype=np.float64)[:, order])


def macro_accuracy_of_counts(stats_list: Sequence[Stats]) -> OfCounts:
    """The mean over groups (`macro_group`) of each group's accuracy under draw counts (m, n),
    a group drawn empty left out (`bootstrap_macro_accuracy_ci`'s statistic)."""
    ok = _correct(stats_list, "macro_accuracy").astype(np.float64)
    names = [str(g) for g in column(stats_list, GROUP_KEY, "macro_accuracy")]
    index = {name: k for k, name in enumerate(dict.fromkeys(names))}
    members = np.zeros((ok.size, len(index)))
    members[np.arange(ok.size), [index[g] for g in names]] = 1.0

    def statistic(counts: np.ndarray) -> np.ndarray:
        weights = np.asarray(counts, dtype=np.float64)
        total = weights @ members
        with np.errstate(invalid="ignore", divide="ignore"):
            per_group = np.where(total > 0, (weights @ (members * ok[:, None])) / total, np.nan)
            return np.nanmean(per_group, axis=1)

    return statistic


def _short_between(lo: float, hi: float) -> float:
    """The midpoint of (lo, hi), rounded to the fewest decimals that keep it strictly inside
    (so 0.6, not 0.6000000000000001; the predictions it makes are the midpoint's)."""
    mid = (lo + hi) / 2.0
    for digits in range(1, 18):
        short = round(mid, digits)
        if lo < short < hi:
            return float(short)
    return float(mid)


def _levels(s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The order sorting the scores, and where each run of equal scores starts in it."""
    order = np.argsort(s, kind="stable")
    sorted_s = s[order]
    starts = np.flatnonzero(np.r_[True, sorted_s[1:] != sorted_s[:-1]])
    return order, starts


def _weighted_accuracy(correct: np.ndarray, weights: np.ndarray) -> np.ndarray:
    total = weights.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, (weights @ correct.astype(np.float64)) / total, np.nan)


def _weighted_balanced(correct: np.ndarray, yes: np.ndarray, weights: np.ndarray) -> np.ndarray:
    recalls = []
    for mask in (yes, ~yes):
        w = weights @ mask.astype(np.float64)
        hit = weights @ (correct & mask).astype(np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            recalls.append(np.where(w > 0, hit / w, np.nan))
    both = np.stack(recalls, axis=1)
    present = ~np.isnan(both)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(present.any(axis=1), np.nansum(both, axis=1) / present.sum(axis=1), np.nan)


def _weighted_auroc(yes_sorted: np.ndarray, starts: np.ndarray, weights_sorted: np.ndarray) -> np.ndarray:
    """AUROC per row of weights (columns in score order; `starts` begin each tie level):
    Σ_level w_yes(level) · (w_no(below) + ½ w_no(level)) / (W_yes · W_no)."""
    yes = np.add.reduceat(weights_sorted * yes_sorted, starts, axis=1)
    no = np.add.reduceat(weights_sorted * ~yes_sorted, starts, axis=1)
    below = np.cumsum(no, axis=1) - no
    u = (yes * (below + 0.5 * no)).sum(axis=1)
    denom = yes.sum(axis=1) * no.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denom > 0, u / denom, np.nan)
