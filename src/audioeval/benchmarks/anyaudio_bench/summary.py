"""The summary of `audioeval judge-eval`, `judge_eval_summary.json`: how well a judge's scores
match the bench's labels, formatted from the pair summary the engine computed.

Every figure is the pair summary's (`metrics/pair_summary.py`, from the records of the judged
rows: the scorer `anyaudio_items` writes each row's score, label, subset and, at a threshold
known before judging, its verdict; `metrics/binary_judge.py` has the statistics): the mean
score (`mean:rubric_score`), AUROC, ECE, the share of yes labels (`mean:label_yes`), and at
the threshold accuracy, balanced accuracy, the macro accuracy over subsets and the yes rate
(`mean:said_yes`), overall and per subset and type, with the pair summary's CIs. With a
threshold tuned after judging (`--tune-on`), or in a folder judged before these metrics were
declared, the run's pair summary lacks some of them: `tuned.py` has the engine's pair summary
computed again over the records, each row's verdict at the threshold. Here the figures are
only put in the file's units (percentages with two decimals, 0–1 figures with four) and its
order.

A row's prediction is yes when its score is at or above the threshold. Rows without a score
are never scored: an empty rubric is `unscored`, a judge failure `failed`; both are counted
and listed by uuid, and left out of every metric (a failure is never a wrong answer).

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

from collections.abc import Mapping, Sequence

from audioeval.benchmarks.anyaudio_bench.figures import METRICS
from audioeval.benchmarks.anyaudio_bench.judge_eval_doc import (
    GroupFigures,
    JudgeEvalSummary,
    OfficialFigures,
    OverallFigures,
    SubsetFigures,
    ThresholdBlock,
    TypeFigures,
)
from audioeval.benchmarks.anyaudio_bench.rows import JudgeEvalRow, is_scored, judge_eval_row
from audioeval.benchmarks.anyaudio_bench.schema import SUBSETS, TYPES, ordered
from audioeval.benchmarks.pair_figures import Figure, Group, PairFigures
from audioeval.metrics.binary_judge import DEFAULT_THRESHOLD, ECE_BINS, TunedThreshold

__all__ = ["JudgeEvalRow", "default_threshold", "judge_eval_row", "judge_eval_summary"]

CONFIDENCE = 0.95
OFFICIAL_GENERATE_THRESHOLD = 0.8
"""`--yes_threshold` of the official generate mode (`evaluate_benchmark.py` L43-67)."""
OFFICIAL_ACCURACY_MODE = "all_at_once"  # our name of the official generate mode
UNITS = {"accuracy": "%", "balanced_accuracy": "%", "yes_rate": "%", "auroc": "0-1", "ece": "0-1"}
SCORE, LABELS, AUROC, ECE = "mean:rubric_score", "mean:label_yes", "auroc", "ece"
ACCURACY, BALANCED, MACRO, SAID_YES = "accuracy", "balanced_accuracy", "macro_accuracy", "mean:said_yes"


def default_threshold(mode: str) -> tuple[float, str]:
    """The threshold a judge-eval uses without `--threshold`, and where it comes from: the
    official 0.8 in the generate mode (`all_at_once`); in `per_item` (the official logits
    mode, which computes no accuracy) ours, 0.5."""
    if mode == OFFICIAL_ACCURACY_MODE:
        return OFFICIAL_GENERATE_THRESHOLD, "default (official generate mode)"
    return DEFAULT_THRESHOLD, "default (ours: the official logits mode computes no accuracy)"


def _pct(value: float | None) -> float | None:
    return None if value is None else round(float(value) * 100, 2)


def _pct_ci(ci: Sequence[float | None] | None) -> list[float] | None:
    if not ci or ci[0] is None or ci[1] is None:
        return None
    return [round(ci[0] * 100, 2), round(ci[1] * 100, 2)]


def _unit(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def _unit_ci(ci: Sequence[float | None] | None) -> list[float] | None:
    if not ci or ci[0] is None or ci[1] is None:
        return None
    return [round(ci[0], 4), round(ci[1], 4)]


def _value(blocks: Group, metric: str) -> float | None:
    return blocks.get(metric, Figure()).value


def _auroc_reason(n: int, n_yes: int) -> str | None:
    """Why the AUROC of a group of `n` rows, `n_yes` of them labelled yes, is undefined."""
    if not n:
        return "undefined: no sample"
    if not n_yes:
        return "undefined: no 'yes' sample"
    return "undefined: no 'no' sample" if n_yes == n else None


def _group(blocks: Group) -> GroupFigures:
    """The figures of one group (no figure: no scored row in it)."""
    labels = blocks.get(LABELS, Figure())
    n, n_yes = labels.n, int(labels.total or 0)
    roc, acc, bal = (blocks.get(m, Figure()) for m in (AUROC, ACCURACY, BALANCED))
    return {
        "n": n,
        "n_yes": n_yes,
        "n_no": n - n_yes,
        "accuracy": _pct(acc.value),
        "accuracy_ci": _pct_ci(acc.ci),
        "balanced_accuracy": _pct(bal.value),
        "balanced_accuracy_ci": _pct_ci(bal.ci),
        "auroc": _unit(roc.value),
        "auroc_ci": _unit_ci(roc.ci),
        "auroc_reason": None if roc.value is not None else _auroc_reason(n, n_yes),
        "yes_rate": _pct(_value(blocks, SAID_YES)) if n else None,
        "mean_score": _unit(_value(blocks, SCORE)) if n else None,
    }


def judge_eval_summary(
    pair: PairFigures,
    rows: Sequence[JudgeEvalRow],
    *,
    threshold: float,
    threshold_source: str = "default",
    n_resamples: int = 1000,
    seed: int = 0,
    tuning: TunedThreshold | None = None,
    mode: str | None = None,
) -> JudgeEvalSummary:
    """The `judge_eval_summary.json` of a judge evaluation (see the module doc): the pair
    summary `pair` of the judged rows at `threshold` formatted, with every row (`rows`: the
    scored, the failed and the unscored) counted. `threshold_source` is "default",
    "--threshold" or "tuned on FILE"; `tuning` adds the dev split's n and accuracy at the
    tuned threshold; `mode` the judge's (official accuracy in `all_at_once` only).
    ValueError when the pair summary lacks one of its metrics (`METRICS`)."""
    metrics = pair.metrics
    missing = [m for m in METRICS if m not in metrics]
    if missing:
        raise ValueError(f"the pair summary has no {', '.join(missing)}")
    scored = [r for r in rows if is_scored(r)]
    failed = [r.uuid for r in rows if r.failed]
    unscored = [r.uuid for r in rows if not r.failed and not is_scored(r)]
    names = ordered({r.subset for r in rows}, SUBSETS)
    subsets: dict[str, SubsetFigures] = {}
    for name in names:
        group = _group(pair.group("subset", name))
        members = [r for r in rows if r.subset == name]
        subsets[name] = SubsetFigures(
            **group,
            unscored=sum(1 for r in members if not r.failed and not is_scored(r)),
            failed=sum(1 for r in members if r.failed),
        )
    overall = _group(metrics)
    macro = metrics.get(MACRO, Figure())
    return {
        "n": len(rows),
        "n_scored": len(scored),
        "subsets": subsets,
        "overall": OverallFigures(
            **overall,
            accuracy_pooled=overall["accuracy"],
            accuracy_pooled_ci=overall["accuracy_ci"],
            accuracy_macro=_pct(macro.value),
            accuracy_macro_ci=_pct_ci(macro.ci),
        ),
        "types": _types(pair.breakdowns.get("type", {})),
        "unscored": {"n": len(unscored), "ids": unscored},
        "failed": {"n": len(failed), "ids": failed},
        "official": official_figures(pair, len(rows), names, threshold, mode),
        "threshold": _threshold(threshold, threshold_source, tuning),
        "ece": _unit(_value(metrics, ECE)) if scored else None,
        "ece_bins": ECE_BINS,
        "units": UNITS,
        "bootstrap": {"n_resamples": n_resamples, "seed": seed, "confidence": CONFIDENCE},
    }


def official_figures(
    pair: PairFigures,
    n_rows: int,
    names: Sequence[str],
    threshold: float,
    mode: str | None,
) -> OfficialFigures:
    """What the official script reports for these rows (module doc), unrounded: the pair
    summary's figures × 100."""
    generate = mode == OFFICIAL_ACCURACY_MODE

    def acc(blocks: Group) -> float | None:
        value = _value(blocks, ACCURACY)
        return 100 * value if generate and value is not None else None

    metrics = pair.metrics
    subsets = {name: pair.group("subset", name) for name in names}
    return {
        "source": "CuCl-2/AnyAudio-Judge@5cd0eb0 evaluate_benchmark.py",
        "mode": mode,
        "threshold": threshold,
        "per_subset_acc": {name: acc(blocks) for name, blocks in subsets.items()},
        "overall_acc": acc(metrics),
        "per_subset_mean_score": {name: _value(blocks, SCORE) for name, blocks in subsets.items()},
        "overall_mean_score": _value(metrics, SCORE),
        "n_samples": n_rows,
    }


def _types(by_type: Mapping[str, Group]) -> dict[str, TypeFigures]:
    out: dict[str, TypeFigures] = {}
    for name in ordered(set(by_type), TYPES):
        block = by_type[name].get(ACCURACY, Figure())
        out[name] = {"n": block.n, "accuracy": _pct(block.value), "accuracy_ci": _pct_ci(block.ci)}
    return out


def _threshold(value: float, source: str, tuning: TunedThreshold | None) -> ThresholdBlock:
    out: ThresholdBlock = {"value": value, "source": source}
    if tuning is not None:
        out["dev_n"] = tuning.n
        out["dev_accuracy"] = _pct(tuning.accuracy)
    return out
