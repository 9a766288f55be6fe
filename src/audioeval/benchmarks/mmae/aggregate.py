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
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NotRequired, TypedDict

from audioeval.benchmarks.mmae.records import (
    MmaeSample,
    RubricOutcome,
    SampleTaxonomy,
    is_instruction_following,
)

if TYPE_CHECKING:
    from audioeval.metrics.judge_reliability import ReliabilityBlock


class PerSampleRow(SampleTaxonomy):
    """One row of per_sample.json: a sample's IFR and CR (0-1; None: no scored rubric on that
    axis), EMR (0/1; None: undetermined), its rubric counts, each rubric's score in order, and
    why it has no usable output (None: it has one)."""

    id: str
    IFR: float | None
    CR: float | None
    EMR: int | None
    n_rubrics: int
    n_if: int
    n_cr: int
    n_failed: int
    n_missing: int
    failed_rubrics: list[int]
    n_not_judged: NotRequired[int]
    rubric_scores: list[int | None]
    output_failed: str | None


@dataclass(frozen=True)
class SampleResult:
    """A sample's row of per_sample.json and the scores of its scored rubrics on each axis
    (what the scorer's micro rates count; not written)."""

    row: PerSampleRow
    if_scores: list[int]
    cr_scores: list[int]


def _share(values: list[int]) -> float | None:
    """The share of a sample's rubrics on one axis that scored 1 (None: none scored)."""
    return sum(values) / len(values) if values else None


def per_sample_row(sample: MmaeSample, results: Mapping[int, RubricOutcome]) -> SampleResult:
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
    row: PerSampleRow = {
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
    }
    return SampleResult(row, if_scores, cr_scores)


def failed_output_row(sample: MmaeSample, reason: str) -> SampleResult:
    """The row of a sample without a usable output: every rubric scored 0, the reason kept."""
    n_if = sum(is_instruction_following(r.category) for r in sample.rubrics)
    n_cr = len(sample.rubrics) - n_if
    row: PerSampleRow = {
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
    }
    return SampleResult(row, [0] * n_if, [0] * n_cr)


RATES = {"IFR": "mean:ifr", "CR": "mean:cr", "EMR": "mean:em"}
"""taxonomy.json's rate -> the pair summary's metric of it."""
MICRO = {"IFR": "micro:if_rubrics", "CR": "micro:cr_rubrics"}
"""overall.micro's rate -> the pair summary's metric of it (over rubrics)."""
TO_PERCENT = {"percent": 1.0, "fraction": 100.0}

Ci = list[float | None]
"""A confidence interval [low, high] in percent."""


class GroupFigures(TypedDict):
    """One group of taxonomy.json: its samples, and each rate (percent; None: not computed),
    the samples it is the mean of and its CI."""

    n: int
    IFR: float | None
    IFR_n: int
    IFR_ci: Ci | None
    CR: float | None
    CR_n: int
    CR_ci: Ci | None
    EMR: float | None
    EMR_n: int
    EMR_ci: Ci | None


class MicroFigures(TypedDict):
    """taxonomy.json's `overall.micro`: IFR and CR over the scored rubrics (percent)."""

    IFR: float | None
    CR: float | None
    n_if_rubrics: int
    n_cr_rubrics: int


class OverallFigures(GroupFigures):
    """taxonomy.json's `overall`: the headline, and the counts of samples and rubrics."""

    n_samples_judged: int
    n_failed_outputs: int
    n_unscored: int
    n_skipped: int
    n_rubrics: int
    n_rubrics_failed: int
    n_rubrics_missing: int
    n_rubrics_not_judged: int
    n_no_consistency_rubric: int
    n_no_if_rubric: int
    micro: MicroFigures


class FailedOutputsBlock(TypedDict):
    """taxonomy.json's `failed_outputs`: the samples without a usable output and whether the
    headline counts them (at 0) or excludes them."""

    n: int
    in_headline: str
    ids: list[str]


class ConfidenceBlock(TypedDict):
    level: float
    method: str
    n_resamples: int
    seed: int


Groups = dict[str, GroupFigures]
"""A breakdown of taxonomy.json: group name -> its figures."""


class TaxonomyFigures(TypedDict, total=False):
    """taxonomy.json's figures (`taxonomy`): the headline, the samples without output, each
    breakdown and cross `preset.py` declares, and how the CIs were made."""

    overall: OverallFigures
    failed_outputs: FailedOutputsBlock
    modality: Groups
    complexity: Groups
    complexity_group: Groups
    granularity: Groups
    operation: Groups
    modality_x_complexity_group: Groups
    modality_x_complexity: Groups
    confidence: ConfidenceBlock


def _percent(x: float | None, unit: str | None) -> float | None:
    factor = TO_PERCENT.get(unit or "percent")
    if factor is None:
        raise ValueError(f"a rate in unit {unit!r} cannot be shown in percent")
    return None if x is None else round(x * factor, 2)


def _rate(block: Mapping[str, Any]) -> tuple[float | None, int, Ci | None]:
    """(rate, samples it is the mean of, CI) of one metric block, in percent."""
    unit = block.get("unit")
    ci = block.get("ci")
    shown = None if not ci or ci[0] is None else [_percent(ci[0], unit), _percent(ci[1], unit)]
    return _percent(block.get("value"), unit), int(block.get("count") or 0), shown


def group_figures(blocks: Mapping[str, Mapping[str, Any]]) -> GroupFigures:
    """One group of the pair summary (its metric blocks) as `taxonomy.json` shows it:
    `{n, IFR, IFR_n, IFR_ci, CR, …, EMR, …}`; a rate the spec does not compute is null."""
    found = [blocks[m] for m in RATES.values() if m in blocks]
    ifr, ifr_n, ifr_ci = _rate(blocks.get(RATES["IFR"]) or {})
    cr, cr_n, cr_ci = _rate(blocks.get(RATES["CR"]) or {})
    emr, emr_n, emr_ci = _rate(blocks.get(RATES["EMR"]) or {})
    return {
        "n": int(found[0]["n"]) if found else 0,
        "IFR": ifr,
        "IFR_n": ifr_n,
        "IFR_ci": ifr_ci,
        "CR": cr,
        "CR_n": cr_n,
        "CR_ci": cr_ci,
        "EMR": emr,
        "EMR_n": emr_n,
        "EMR_ci": emr_ci,
    }


def _micro(blocks: Mapping[str, Mapping[str, Any]]) -> MicroFigures:
    ifr, cr = (blocks.get(MICRO[rate]) or {} for rate in ("IFR", "CR"))
    return {
        "IFR": _percent(ifr.get("value"), ifr.get("unit")),
        "CR": _percent(cr.get("value"), cr.get("unit")),
        "n_if_rubrics": int(ifr.get("count") or 0),
        "n_cr_rubrics": int(cr.get("count") or 0),
    }


def taxonomy(
    pair: Mapping[str, Any],
    rows: list[PerSampleRow],
    *,
    n_skipped: int,
    confidence: float = 0.95,
    n_resamples: int = 1000,
    seed: int = 0,
) -> TaxonomyFigures:
    """`taxonomy.json` from the pair summary `pair` (every figure) and the per-sample `rows`
    (the counts of samples and rubrics beside them). ValueError when the summary holds no
    metric at all (not a pair summary)."""
    if "metrics" not in pair:
        raise ValueError("the pair summary has no metrics: score the folder again")
    failed = pair.get("failed_outputs") or {}
    excluded = failed.get("in_headline") == "excluded"
    judged = [r for r in rows if not r.get("output_failed")]
    scored = [
        r
        for r in rows
        if any(r[k] is not None for k in ("IFR", "CR", "EMR")) and not (excluded and r.get("output_failed"))
    ]
    overall: OverallFigures = {
        **group_figures(pair["metrics"]),
        "n_samples_judged": len(judged),
        "n_failed_outputs": int(failed.get("n") or 0),
        "n_unscored": len(judged) - sum(1 for r in scored if not r.get("output_failed")),
        "n_skipped": n_skipped,
        "n_rubrics": sum(r["n_rubrics"] for r in rows),
        "n_rubrics_failed": sum(r["n_failed"] for r in rows),
        "n_rubrics_missing": sum(r["n_missing"] for r in rows),
        "n_rubrics_not_judged": sum(r.get("n_not_judged", 0) for r in rows),
        "n_no_consistency_rubric": sum(1 for r in scored if r["n_cr"] == 0),
        "n_no_if_rubric": sum(1 for r in scored if r["n_if"] == 0),
        "micro": _micro(pair["metrics"]),
    }
    out: TaxonomyFigures = {
        "overall": overall,
        "failed_outputs": {
            "n": int(failed.get("n") or 0),
            "in_headline": "excluded" if excluded else "counted",
            "ids": list(failed.get("ids") or []),
        },
    }
    breakdowns: dict[str, Groups] = {
        key: {name: group_figures(blocks) for name, blocks in groups.items()}
        for key, groups in (pair.get("breakdowns") or {}).items()
    }
    out.update(breakdowns)  # under the keys `preset.py` declares
    out["confidence"] = {
        "level": confidence,
        "method": "percentile bootstrap over samples",
        "n_resamples": n_resamples,
        "seed": seed,
    }
    return out


class RunBlock(TypedDict, total=False):
    """taxonomy.json's `run` block: what the preset told the exporter (`PairExport.run_info`),
    the rubrics judged now and reused, and with early stop or `verify: first` the calls saved."""

    judged_now: int
    reused: int
    early_stop: bool
    calls_saved: int
    rubrics_stopped_early: int
    calls_saved_by_measurement: int


class VerifierFirst(TypedDict):
    rubrics_measured: int
    calls_saved: int
    figure: str


class VerifierFigures(TypedDict, total=False):
    """What taxonomy.json says of the verifiers: `verify: first`'s rubrics measured, `verify:
    audit`'s agreement and the outputs' health (both the pair summary's, repeated)."""

    verifier_first: VerifierFirst
    verifier_audit: Any  # the pair summary's block (`metrics/judge_reliability.py`), as it is
    output_health: Any  # the pair summary's block (`metrics/output_health.py`), as it is


class TaxonomyFile(TaxonomyFigures, VerifierFigures, total=False):
    """taxonomy.json (`exports.write_exports`): the figures (`taxonomy`), the judge's reliability (the pair
    summary's block), the `run` block and the verifiers' figures."""

    reliability: dict[str, ReliabilityBlock]  # `PairExport.reliability`: the pair summary's
    run: RunBlock
