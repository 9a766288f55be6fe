"""From per-rubric results to per-sample IFR/CR/EM and the taxonomy breakdowns.

Per sample: IFR is the mean score of its instruction-following rubrics, CR of its
consistency rubrics, each undefined (None) when the sample has no scored rubric on that
axis. EM is 1 when every rubric scored 1, 0 as soon as one scored 0, and undefined when some
rubric failed and every scored one is 1. Failed rubrics are never scored: they are counted.
Headline numbers are means over samples × 100 (the paper's macro over samples); `micro`
adds the mean over all scored rubrics of each axis.

A sample the system under test produced no usable output for (`failed_output_row`) has every
rubric at 0: IFR = CR = EM = 0. It counts in the headline unless the caller excludes failed
outputs (`--exclude-missing`), and `failed_outputs` in the taxonomy says which view it is.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from audioeval.benchmarks.mmae.records import MmaeSample, is_instruction_following
from audioeval.benchmarks.mmae.taxonomy import BREAKDOWNS
from audioeval.metrics.breakdown import grouped, summarise_groups

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
        "output_failed": None,
        "_if_scores": if_scores,
        "_cr_scores": cr_scores,
    }


def failed_output_row(sample: MmaeSample, reason: str) -> dict[str, Any]:
    """The row of a sample without a usable output: every rubric scored 0, the reason kept."""
    n_if = sum(is_instruction_following(r.category) for r in sample.rubrics)
    n_cr = len(sample.rubrics) - n_if
    return {
        "id": sample.id,
        **sample.taxonomy(),
        "IFR": 0.0 if n_if else None,
        "CR": 0.0 if n_cr else None,
        "EMR": 0,
        "n_rubrics": len(sample.rubrics),
        "n_if": n_if,
        "n_cr": n_cr,
        "n_failed": 0,
        "n_missing": 0,
        "failed_rubrics": [],
        "rubric_scores": [0] * len(sample.rubrics),
        "output_failed": reason,
        "_if_scores": [0] * n_if,
        "_cr_scores": [0] * n_cr,
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
    exclude_failed_outputs: bool = False,
) -> dict[str, Any]:
    kw = {"confidence": confidence, "n_resamples": n_resamples, "seed": seed}
    failed_outputs = [r for r in rows if r.get("output_failed")]
    judged = [r for r in rows if not r.get("output_failed")]
    counted = judged if exclude_failed_outputs else rows
    scored = [r for r in counted if r["IFR"] is not None or r["CR"] is not None or r["EMR"] is not None]
    # Every group of every breakdown in one call: groups of one size share their resample draws.
    breakdowns = {name: grouped(scored, keys) for name, keys in BREAKDOWNS.items()}
    groups = [scored, *(members for by_group in breakdowns.values() for members in by_group.values())]
    summaries = iter(summarise_groups(groups, METRICS, **kw))
    overall = next(summaries)
    overall.update(
        n_samples_judged=len(judged),
        n_failed_outputs=len(failed_outputs),
        n_unscored=len(judged) - sum(1 for r in scored if not r.get("output_failed")),
        n_skipped=n_skipped,
        n_rubrics=sum(r["n_rubrics"] for r in rows),
        n_rubrics_failed=sum(r["n_failed"] for r in rows),
        n_rubrics_missing=sum(r["n_missing"] for r in rows),
        n_no_consistency_rubric=sum(1 for r in scored if r["n_cr"] == 0),
        n_no_if_rubric=sum(1 for r in scored if r["n_if"] == 0),
        micro=_micro(scored),
    )
    out: dict[str, Any] = {
        "overall": overall,
        "failed_outputs": {
            "n": len(failed_outputs),
            "in_headline": "excluded" if exclude_failed_outputs else "counted",
            "ids": [r["id"] for r in failed_outputs],
        },
    }
    for name, by_group in breakdowns.items():
        out[name] = {group: next(summaries) for group in by_group}
    out["confidence"] = {
        "level": confidence,
        "method": "percentile bootstrap over samples",
        "n_resamples": n_resamples,
        "seed": seed,
    }
    return out


def public_row(row: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in row.items() if not k.startswith("_")}
