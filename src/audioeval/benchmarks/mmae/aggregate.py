"""From per-rubric results to per-sample IFR/CR/EM and the taxonomy breakdowns.

Per sample: IFR is the mean score of its instruction-following rubrics, CR of its
consistency rubrics, each undefined (None) when the sample has no scored rubric on that
axis. EM is 1 when every rubric scored 1, 0 as soon as one scored 0, and undefined when some
rubric failed and every scored one is 1. Failed rubrics are never scored: they are counted.
Headline numbers are means over samples × 100 (the paper's macro over samples); `micro`
adds the mean over all scored rubrics of each axis.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from audioeval.benchmarks.mmae.records import MmaeSample, is_instruction_following
from audioeval.benchmarks.mmae.taxonomy import BREAKDOWNS
from audioeval.metrics.breakdown import breakdown, summarise

METRICS = ("IFR", "CR", "EMR")


def _mean(values: list[int]) -> float | None:
    return sum(values) / len(values) if values else None


def per_sample_row(sample: MmaeSample, results: Mapping[int, Mapping[str, Any]]) -> dict[str, Any]:
    if_scores: list[int] = []
    cr_scores: list[int] = []
    failed: list[int] = []
    missing: list[int] = []
    for i, rubric in enumerate(sample.rubrics):
        res = results.get(i)
        if res is None:
            missing.append(i)
            continue
        if res.get("failed") or res.get("score") is None:
            failed.append(i)
            continue
        (if_scores if is_instruction_following(rubric.category) else cr_scores).append(int(res["score"]))
    scored = if_scores + cr_scores
    if any(s == 0 for s in scored):
        em: int | None = 0
    elif failed or missing or not scored:
        em = None
    else:
        em = 1
    n_if = sum(is_instruction_following(r.category) for r in sample.rubrics)
    return {
        "id": sample.id,
        **sample.taxonomy(),
        "IFR": _mean(if_scores),
        "CR": _mean(cr_scores),
        "EMR": em,
        "n_rubrics": len(sample.rubrics),
        "n_if": n_if,
        "n_cr": len(sample.rubrics) - n_if,
        "n_failed": len(failed),
        "n_missing": len(missing),
        "failed_rubrics": failed,
        "rubric_scores": [
            None if (r := results.get(i)) is None else r.get("score") for i in range(len(sample.rubrics))
        ],
        "_if_scores": if_scores,
        "_cr_scores": cr_scores,
    }


def _micro(rows: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    ifs = [s for r in rows for s in r["_if_scores"]]
    crs = [s for r in rows for s in r["_cr_scores"]]
    return {
        "IFR": None if not ifs else round(100 * sum(ifs) / len(ifs), 2),
        "CR": None if not crs else round(100 * sum(crs) / len(crs), 2),
        "n_if_rubrics": len(ifs),
        "n_cr_rubrics": len(crs),
    }


def taxonomy(
    rows: list[dict[str, Any]],
    *,
    n_skipped: int,
    confidence: float = 0.95,
    n_resamples: int = 1000,
    seed: int = 0,
) -> dict[str, Any]:
    kw = {"confidence": confidence, "n_resamples": n_resamples, "seed": seed}
    scored = [r for r in rows if r["IFR"] is not None or r["CR"] is not None or r["EMR"] is not None]
    overall = summarise(scored, METRICS, **kw)
    overall.update(
        n_samples_judged=len(rows),
        n_unscored=len(rows) - len(scored),
        n_skipped=n_skipped,
        n_rubrics=sum(r["n_rubrics"] for r in rows),
        n_rubrics_failed=sum(r["n_failed"] for r in rows),
        n_rubrics_missing=sum(r["n_missing"] for r in rows),
        n_no_consistency_rubric=sum(1 for r in scored if r["n_cr"] == 0),
        n_no_if_rubric=sum(1 for r in scored if r["n_if"] == 0),
        micro=_micro(scored),
    )
    out: dict[str, Any] = {"overall": overall}
    for name, keys in BREAKDOWNS.items():
        out[name] = breakdown(scored, METRICS, keys, **kw)
    out["confidence"] = {
        "level": confidence,
        "method": "percentile bootstrap over samples",
        "n_resamples": n_resamples,
        "seed": seed,
    }
    return out


def public_row(row: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in row.items() if not k.startswith("_")}
