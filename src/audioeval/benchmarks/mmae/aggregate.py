"""Per-sample IFR/CR/EM from per-rubric results, and `taxonomy.json`'s figures formatted
from the pair summary the engine computed.

Per sample: IFR is the mean score of its instruction-following rubrics, CR of its
consistency rubrics, each undefined (None) when the sample has no scored rubric on that
axis. EM is 1 when every rubric scored 1, 0 as soon as one scored 0, and undefined when some
rubric failed and every scored one is 1. Failed rubrics are never scored: they are counted,
and the sample's other rubrics score it (the scorer keeps that score on the failed record).

A sample the system under test produced no usable output for (`failed_output_row`) has every
rubric at 0: IFR = CR = EM = 0. It counts in the headline unless the caller excludes failed
outputs (`--exclude-missing`), and `failed_outputs` in the taxonomy says which view it is.

Every rate, CI and `*_n` of `taxonomy.json` is the pair summary's (`metrics/pair_summary.py`,
over the taxonomy keys and crosses `preset.py` declares): `mean:ifr`, `mean:cr`, `mean:em`
(the paper's macro over samples, × 100) are IFR, CR and EMR, each `*_n` the samples the rate
is the mean of (the block's `count`), `n` the samples in the group; `micro:if_rubrics` and
`micro:cr_rubrics` the overall `micro` rates over the scored rubrics. Shown in percent with
two decimals. The counts of samples and rubrics beside them are counted from the rows.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from audioeval.benchmarks.mmae.records import MmaeSample, is_instruction_following


def _share(values: list[int]) -> float | None:
    """The share of a sample's rubrics on one axis that scored 1 (None: none scored)."""
    return sum(values) / len(values) if values else None


def per_sample_row(sample: MmaeSample, results: Mapping[int, Mapping[str, Any]]) -> dict[str, Any]:
    if_scores: list[int] = []
    cr_scores: list[int] = []
    failed: list[int] = []
    missing: list[int] = []
    not_judged: list[int] = []  # rubrics a measuring judge could not answer: counted, not scored
    for i, rubric in enumerate(sample.rubrics):
        res = results.get(i)
        if res is None:
            missing.append(i)
            continue
        if res.get("not_judged"):
            not_judged.append(i)
            continue
        if res.get("failed") or res.get("score") is None:
            failed.append(i)
            continue
        (if_scores if is_instruction_following(rubric.category) else cr_scores).append(int(res["score"]))
    scored = if_scores + cr_scores
    if any(s == 0 for s in scored):
        em: int | None = 0
    elif failed or missing or not_judged or not scored:
        em = None
    else:
        em = 1
    n_if = sum(is_instruction_following(r.category) for r in sample.rubrics)
    return {
        "id": sample.id,
        **sample.taxonomy(),
        "IFR": _share(if_scores),
        "CR": _share(cr_scores),
        "EMR": em,
        "n_rubrics": len(sample.rubrics),
        "n_if": n_if,
        "n_cr": len(sample.rubrics) - n_if,
        "n_failed": len(failed),
        "n_missing": len(missing),
        "failed_rubrics": failed,
        "n_not_judged": len(not_judged),
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


RATES = {"IFR": "mean:ifr", "CR": "mean:cr", "EMR": "mean:em"}
"""taxonomy.json's rate -> the pair summary's metric of it."""
MICRO = {"IFR": "micro:if_rubrics", "CR": "micro:cr_rubrics"}
"""overall.micro's rate -> the pair summary's metric of it (over rubrics)."""
TO_PERCENT = {"percent": 1.0, "fraction": 100.0}


def _percent(x: float | None, unit: str | None) -> float | None:
    factor = TO_PERCENT.get(unit or "percent")
    if factor is None:
        raise ValueError(f"a rate in unit {unit!r} cannot be shown in percent")
    return None if x is None else round(x * factor, 2)


def _rate(block: Mapping[str, Any]) -> tuple[float | None, int, list[float | None] | None]:
    """(rate, samples it is the mean of, CI) of one metric block, in percent."""
    unit = block.get("unit")
    ci = block.get("ci")
    shown = None if not ci or ci[0] is None else [_percent(ci[0], unit), _percent(ci[1], unit)]
    return _percent(block.get("value"), unit), int(block.get("count") or 0), shown


def group_figures(blocks: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """One group of the pair summary (its metric blocks) as `taxonomy.json` shows it:
    `{n, IFR, IFR_n, IFR_ci, CR, …, EMR, …}`; a rate the spec does not compute is null."""
    found = [blocks[m] for m in RATES.values() if m in blocks]
    out: dict[str, Any] = {"n": int(found[0]["n"]) if found else 0}
    for rate, metric in RATES.items():
        out[rate], out[f"{rate}_n"], out[f"{rate}_ci"] = _rate(blocks.get(metric) or {})
    return out


def _micro(blocks: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for rate, metric in MICRO.items():
        block = blocks.get(metric) or {}
        out[rate] = _percent(block.get("value"), block.get("unit"))
    out["n_if_rubrics"], out["n_cr_rubrics"] = (
        int((blocks.get(metric) or {}).get("count") or 0) for metric in MICRO.values()
    )
    return out


def taxonomy(
    pair: Mapping[str, Any],
    rows: list[dict[str, Any]],
    *,
    n_skipped: int,
    confidence: float = 0.95,
    n_resamples: int = 1000,
    seed: int = 0,
) -> dict[str, Any]:
    """`taxonomy.json` from the pair summary `pair` (every figure) and the per-sample `rows`
    (the counts of samples and rubrics beside them). ValueError when the summary holds no
    metric at all (not a pair summary)."""
    if "metrics" not in pair:
        raise ValueError("the pair summary has no metrics: score the folder again")
    failed = pair.get("failed_outputs") or {}
    excluded = failed.get("in_headline") == "excluded"
    judged = [r for r in rows if not r.get("output_failed")]
    scored = [
        r for r in rows if any(r[k] is not None for k in RATES) and not (excluded and r.get("output_failed"))
    ]
    overall = group_figures(pair["metrics"])
    overall.update(
        n_samples_judged=len(judged),
        n_failed_outputs=int(failed.get("n") or 0),
        n_unscored=len(judged) - sum(1 for r in scored if not r.get("output_failed")),
        n_skipped=n_skipped,
        n_rubrics=sum(r["n_rubrics"] for r in rows),
        n_rubrics_failed=sum(r["n_failed"] for r in rows),
        n_rubrics_missing=sum(r["n_missing"] for r in rows),
        n_rubrics_not_judged=sum(r.get("n_not_judged", 0) for r in rows),
        n_no_consistency_rubric=sum(1 for r in scored if r["n_cr"] == 0),
        n_no_if_rubric=sum(1 for r in scored if r["n_if"] == 0),
        micro=_micro(pair["metrics"]),
    )
    out: dict[str, Any] = {
        "overall": overall,
        "failed_outputs": {
            "n": int(failed.get("n") or 0),
            "in_headline": "excluded" if excluded else "counted",
            "ids": list(failed.get("ids") or []),
        },
    }
    for key, groups in (pair.get("breakdowns") or {}).items():
        out[key] = {name: group_figures(blocks) for name, blocks in groups.items()}
    out["confidence"] = {
        "level": confidence,
        "method": "percentile bootstrap over samples",
        "n_resamples": n_resamples,
        "seed": seed,
    }
    return out


def public_row(row: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in row.items() if not k.startswith("_")}
