"""The summary of `audioeval judge-eval`: how well a judge's scores match the bench's labels.

From one row per bench sample (uuid, subset, type, label, the judge's score, whether the
judge failed), a row's prediction is yes when its score is at or above the threshold. Rows
without a score are never scored: an empty rubric is `unscored`, a judge failure `failed`;
both are counted and listed by uuid, and left out of every metric (a failure is never a
wrong answer).

- `subsets.<name>`: n (scored rows), n_yes, n_no, accuracy, balanced_accuracy (%), auroc
  (0–1, null with `auroc_reason` without both labels), each with a 95 % percentile
  bootstrap CI, the yes rate of the predictions, and its unscored and failed counts; the
  paper's subsets first, in its order, then the others;
- `overall`: the same pooled over all scored rows (`accuracy` and its name `accuracy_pooled`:
  the official `overall_acc` is pooled over rows), plus `accuracy_macro` (ours: the mean of
  the subsets' accuracies, which the official code never computes) with its CI; every group
  also has `mean_score`, the mean score of its rows, labels mixed (official
  `per_subset_mean_score` / `overall_mean_score`, pooled);
- `official`: the figures of AnyAudio-Judge's `evaluate_benchmark.py` (AAJ@5cd0eb0, §3.7 of
  official-rules.md), unrounded: `per_subset_acc` and `overall_acc` (100 × pooled share
  correct, generate mode only: null in `per_item` mode, where the official computes no
  accuracy), `per_subset_mean_score`, `overall_mean_score`, `n_samples` (every row);
- `types.<type>`: n and accuracy (with CI) per row type (pos, neg_swap, …);
- `unscored`, `failed`: {n, ids}; `threshold`: {value, source}; `ece`: calibration error of
  the scores (10 bins, 0–1); `bootstrap`: resamples, seed, confidence.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

import numpy as np

from audioeval.benchmarks.anyaudio_bench.schema import SUBSETS, TYPES, is_unscored, ordered
from audioeval.core.sample import Sample
from audioeval.metrics import binary_judge as bj
from audioeval.metrics.bootstrap import binary_mean_ci
from audioeval.postprocess.yes_no import read_label

CONFIDENCE = 0.95
OFFICIAL_GENERATE_THRESHOLD = 0.8
"""`--yes_threshold` of the official generate mode (`evaluate_benchmark.py` L43-67)."""
OFFICIAL_ACCURACY_MODE = "all_at_once"  # our name of the official generate mode


def default_threshold(mode: str) -> tuple[float, str]:
    """The threshold a judge-eval uses without `--threshold`, and where it comes from: the
    official 0.8 in the generate mode (`all_at_once`); in `per_item` (the official logits
    mode, which computes no accuracy) ours, 0.5."""
    if mode == OFFICIAL_ACCURACY_MODE:
        return OFFICIAL_GENERATE_THRESHOLD, "default (official generate mode)"
    return bj.DEFAULT_THRESHOLD, "default (ours: the official logits mode computes no accuracy)"
UNITS = {"accuracy": "%", "balanced_accuracy": "%", "yes_rate": "%", "auroc": "0-1", "ece": "0-1"}


class JudgeEvalRow(NamedTuple):
    """One bench sample as judged: `score` is None when unscored or failed."""

    uuid: str
    subset: str
    type: str
    label: str | bool
    score: float | None
    failed: bool = False


def judge_eval_row(sample: Sample, score: float | None, *, failed: bool = False) -> JudgeEvalRow:
    """The summary row of a bench Sample (`loading.load_bench`) and the judge's score of it
    (None when unscored or failed); an unscored sample's score is ignored."""
    f = sample.fields
    if is_unscored(sample):
        score, failed = None, False
    return JudgeEvalRow(sample.id, str(f["subset"]), str(f["type"]), str(f["label"]), score, failed)


def _yes(label: str | bool, uuid: str) -> bool:
    yes = read_label(label)
    if yes is None:
        raise ValueError(f"row {uuid!r}: label must be yes or no, got {label!r}")
    return yes


def _pct(value: float | None) -> float | None:
    return None if value is None or np.isnan(value) else round(float(value) * 100, 2)


def _pct_ci(ci: tuple[float | None, float | None]) -> list[float] | None:
    lo, hi = ci
    return None if lo is None or hi is None else [round(lo * 100, 2), round(hi * 100, 2)]


def _unit_ci(ci: tuple[float | None, float | None]) -> list[float] | None:
    lo, hi = ci
    return None if lo is None or hi is None else [round(lo, 4), round(hi, 4)]


def _group(rows: Sequence[JudgeEvalRow], threshold: float, n_resamples: int, seed: int) -> dict[str, Any]:
    """Metrics of the scored rows of one group."""
    scores = np.array([r.score for r in rows], dtype=np.float64)
    labels = np.array([_yes(r.label, r.uuid) for r in rows], dtype=bool)
    roc = bj.auroc(scores, labels)
    cis = bj.bootstrap_cis(
        scores, labels, threshold, n_resamples=n_resamples, seed=seed, confidence=CONFIDENCE
    )
    return {
        "n": len(rows),
        "n_yes": int(labels.sum()),
        "n_no": int((~labels).sum()),
        "accuracy": _pct(bj.accuracy(scores, labels, threshold)),
        "accuracy_ci": _pct_ci(cis.accuracy),
        "balanced_accuracy": _pct(bj.balanced_accuracy(scores, labels, threshold)),
        "balanced_accuracy_ci": _pct_ci(cis.balanced_accuracy),
        "auroc": None if roc.value is None else round(roc.value, 4),
        "auroc_ci": _unit_ci(cis.auroc),
        "auroc_reason": roc.reason,
        "yes_rate": _pct(float(np.mean(bj.predict_yes(scores, threshold)))) if len(rows) else None,
        "mean_score": round(float(scores.mean()), 4) if len(rows) else None,
    }


def _scored(row: JudgeEvalRow) -> bool:
    return not row.failed and row.score is not None and not np.isnan(row.score)


def judge_eval_summary(
    rows: Iterable[JudgeEvalRow | tuple[Any, ...]],
    *,
    threshold: float = bj.DEFAULT_THRESHOLD,
    threshold_source: str = "default",
    n_resamples: int = 1000,
    seed: int = 0,
    tuning: bj.TunedThreshold | None = None,
    mode: str | None = None,
) -> dict[str, Any]:
    """The `summary.json` of a judge evaluation (see the module doc). `threshold_source` is
    "default", "--threshold" or "tuned on FILE"; `tuning` adds the dev split's n and
    accuracy at the tuned threshold; `mode` the judge's (official accuracy in `all_at_once`
    only). ValueError for a label other than yes/no."""
    all_rows = [JudgeEvalRow(*r) for r in rows]
    scored = [r for r in all_rows if _scored(r)]
    failed = [r.uuid for r in all_rows if r.failed]
    unscored = [r.uuid for r in all_rows if not r.failed and not _scored(r)]
    names = ordered({r.subset for r in all_rows}, SUBSETS)
    subsets = {}
    for name in names:
        group = _group([r for r in scored if r.subset == name], threshold, n_resamples, seed)
        members = [r for r in all_rows if r.subset == name]
        group["unscored"] = sum(1 for r in members if not r.failed and not _scored(r))
        group["failed"] = sum(1 for r in members if r.failed)
        subsets[name] = group
    return {
        "n": len(all_rows),
        "n_scored": len(scored),
        "subsets": subsets,
        "overall": _overall(scored, subsets, threshold, n_resamples, seed),
        "types": _types(scored, threshold, n_resamples, seed),
        "unscored": {"n": len(unscored), "ids": unscored},
        "failed": {"n": len(failed), "ids": failed},
        "official": official_figures(all_rows, scored, names, threshold, mode),
        "threshold": _threshold(threshold, threshold_source, tuning),
        "ece": _ece(scored),
        "ece_bins": bj.ECE_BINS,
        "units": UNITS,
        "bootstrap": {"n_resamples": n_resamples, "seed": seed, "confidence": CONFIDENCE},
    }


def _overall(
    scored: list[JudgeEvalRow],
    subsets: dict[str, dict[str, Any]],
    threshold: float,
    n_resamples: int,
    seed: int,
) -> dict[str, Any]:
    out = _group(scored, threshold, n_resamples, seed)
    out["accuracy_pooled"], out["accuracy_pooled_ci"] = out["accuracy"], out["accuracy_ci"]
    index = {name: k for k, name in enumerate(subsets)}
    correct = np.array([_correct(r, threshold) for r in scored], dtype=bool)
    groups = np.array([index[r.subset] for r in scored], dtype=np.int64)
    accs = [float(correct[groups == k].mean()) for k in range(len(index)) if (groups == k).any()]
    out["accuracy_macro"] = _pct(float(np.mean(accs))) if accs else None
    ci = bj.bootstrap_macro_accuracy_ci(
        correct, groups, n_resamples=n_resamples, seed=seed, confidence=CONFIDENCE
    )
    out["accuracy_macro_ci"] = _pct_ci(ci)
    return out


def official_figures(
    rows: list[JudgeEvalRow], scored: list[JudgeEvalRow], names: list[str], threshold: float, mode: str | None
) -> dict[str, Any]:
    """What the official script reports for these rows (module doc), unrounded."""
    generate = mode == OFFICIAL_ACCURACY_MODE

    def acc(group: list[JudgeEvalRow]) -> float | None:
        return 100 * sum(_correct(r, threshold) for r in group) / len(group) if generate and group else None

    def mean(group: list[JudgeEvalRow]) -> float | None:
        return sum(float(r.score or 0.0) for r in group) / len(group) if group else None

    groups = {name: [r for r in scored if r.subset == name] for name in names}
    return {
        "source": "CuCl-2/AnyAudio-Judge@5cd0eb0 evaluate_benchmark.py",
        "mode": mode,
        "threshold": threshold,
        "per_subset_acc": {name: acc(g) for name, g in groups.items()},
        "overall_acc": acc(scored),
        "per_subset_mean_score": {name: mean(g) for name, g in groups.items()},
        "overall_mean_score": mean(scored),
        "n_samples": len(rows),
    }


def _correct(row: JudgeEvalRow, threshold: float) -> bool:
    return bool(row.score is not None and row.score >= threshold) == _yes(row.label, row.uuid)


def tuned_threshold(rows: Iterable[JudgeEvalRow | tuple[Any, ...]]) -> bj.TunedThreshold:
    """The threshold with the best accuracy on the scored rows of a dev split
    (`metrics.binary_judge.tune_threshold`); ValueError when no row is scored."""
    scored = [r for r in (JudgeEvalRow(*x) for x in rows) if _scored(r)]
    return bj.tune_threshold([r.score for r in scored], [_yes(r.label, r.uuid) for r in scored])


def _types(scored: list[JudgeEvalRow], threshold: float, n_resamples: int, seed: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in ordered({r.type for r in scored}, TYPES):
        members = [r for r in scored if r.type == name]
        hits = sum(_correct(r, threshold) for r in members)
        ci = binary_mean_ci(hits, len(members), confidence=CONFIDENCE, n_resamples=n_resamples, seed=seed)
        out[name] = {"n": len(members), "accuracy": _pct(hits / len(members)), "accuracy_ci": _pct_ci(ci)}
    return out


def _threshold(value: float, source: str, tuning: bj.TunedThreshold | None) -> dict[str, Any]:
    out: dict[str, Any] = {"value": value, "source": source}
    if tuning is not None:
        out["dev_n"] = tuning.n
        out["dev_accuracy"] = _pct(tuning.accuracy)
    return out


def _ece(scored: list[JudgeEvalRow]) -> float | None:
    scores = [r.score for r in scored]
    value = bj.expected_calibration_error(scores, [_yes(r.label, r.uuid) for r in scored])
    return None if value is None else round(value, 4)
