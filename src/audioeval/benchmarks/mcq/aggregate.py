"""From per-item rows to the summary: every breakdown group with n, accuracy and a 95 % CI.

Accuracies are micro, `(correct / n) * 100` as the official scripts compute them, so the
two-decimal figures are the same to the last digit. Items without a prediction are left
out of every group (as officially) but counted. Confidence intervals are percentile
bootstraps: for 0/1 outcomes drawn as Binomial(n, k/n) / n, which has exactly the
distribution of the mean of n items resampled with replacement and costs O(resamples)
rather than O(resamples × n); rubric scores use `metrics.breakdown.summarise`.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import itemgetter
from typing import Any

from audioeval.benchmarks.mcq.definitions import McqBenchmark
from audioeval.metrics.bootstrap import binary_mean_ci
from audioeval.metrics.breakdown import summarise
from audioeval.metrics.grouping import taxonomy_groups

Row = dict[str, Any]


def accuracy(correct: int, n: int) -> float:
    """The official figure: `(correct / n) * 100`, 0 for an empty group."""
    return (correct / n) * 100 if n > 0 else 0


def binary_ci(
    correct: int, n: int, *, n_resamples: int, seed: int, confidence: float = 0.95
) -> list[float] | None:
    """Percentile bootstrap CI (in %) of the mean of n 0/1 outcomes, `correct` of them 1."""
    lo, hi = binary_mean_ci(correct, n, confidence=confidence, n_resamples=n_resamples, seed=seed)
    return None if lo is None or hi is None else [round(lo * 100, 2), round(hi * 100, 2)]


def grouped(rows: Sequence[Row], bench: McqBenchmark) -> dict[str, dict[str, list[Row]]]:
    """Scored rows per axis and group: the axis' fixed groups first, then first-seen order;
    what `group_by` of `taxonomy_groups` gives (tests/test_mcq_speed_scoring.py), in one pass
    over the rows for every axis, a string (every MMAR / MMAU group) being its own one group."""
    axes = [(axis.name, {name: [] for name in axis.fixed}) for axis in bench.axes]
    for row in rows:
        for key, groups in axes:
            value = row.get(key)
            if type(value) is str:
                members = groups.get(value)
                if members is None:
                    groups[value] = members = []
                members.append(row)
            else:
                for name in taxonomy_groups(value):
                    groups.setdefault(name, []).append(row)
    return dict(axes)


def _count(members: Sequence[Row], name: str) -> int:
    """The sum of `int(row[name])` over the members (summed in C: a group can hold every row)."""
    return sum(map(int, map(itemgetter(name), members)))


def _mode(members: Sequence[Row], name: str, n_resamples: int, seed: int) -> dict[str, Any]:
    correct = _count(members, name)
    return {
        "correct": correct,
        "accuracy": round(accuracy(correct, len(members)), 2),
        "ci": binary_ci(correct, len(members), n_resamples=n_resamples, seed=seed),
    }


def summarise_group(
    members: Sequence[Row], *, n_resamples: int, seed: int, rubrics: bool = True
) -> dict[str, Any]:
    """n, both modes' correct count, accuracy and CI, and the unparseable count and rate.
    `rubrics` False: the caller knows no member has a rubric score (none is looked for)."""
    group: dict[str, Any] = {"n": len(members)}
    group["official"] = _mode(members, "official", n_resamples, seed)
    group["robust"] = _mode(members, "robust", n_resamples, seed)
    unparseable = _count(members, "unparseable")
    group["robust"]["unparseable"] = unparseable
    group["robust"]["unparseable_rate"] = round(accuracy(unparseable, len(members)), 2)
    if rubrics and _has_rubric(members):
        rubric_rows = [r for r in members if r.get("rubric_score") is not None]
        rs = summarise(rubric_rows, ["rubric_score"], n_resamples=n_resamples, seed=seed)
        group["rubric"] = {
            "n": len(rubric_rows),
            "score": rs["rubric_score"],
            "ci": rs["rubric_score_ci"],
            "failed": sum(1 for r in members if r.get("rubric_failed")),
        }
    return group


def _has_rubric(rows: Sequence[Row]) -> bool:
    """Whether a row holds a rubric outcome (an item eligible for MMAR-Rubrics)."""
    return any("rubric_score" in r for r in rows)


def summary_groups(
    rows: Sequence[Row], bench: McqBenchmark, *, n_resamples: int = 1000, seed: int = 0
) -> dict[str, Any]:
    """`{"overall": group, "breakdowns": {axis: {name: group}}}` over scored rows."""
    scored = [r for r in rows if r.get("official") is not None]
    rubrics = _has_rubric(scored)  # else no group has one: not looked for in each
    return {
        "overall": summarise_group(scored, n_resamples=n_resamples, seed=seed, rubrics=rubrics),
        "breakdowns": {
            axis: {
                name: summarise_group(members, n_resamples=n_resamples, seed=seed, rubrics=rubrics)
                for name, members in groups.items()
            }
            for axis, groups in grouped(scored, bench).items()
        },
    }


def disagreements(rows: Sequence[Row]) -> list[Row]:
    """Items the two modes score differently, with what each mode saw."""
    keys = (
        "id",
        "line",
        "answer",
        "answer_letter",
        "prediction",
        "official",
        "official_reason",
        "robust",
        "robust_choice",
        "robust_method",
        "robust_reason",
    )
    return [
        {k: r.get(k) for k in keys}
        for r in rows
        if r.get("official") is not None and r["official"] != r["robust"]
    ]


def method_counts(rows: Sequence[Row]) -> dict[str, int]:
    """How often each robust rule decided (and how often nothing could be read)."""
    counts: dict[str, int] = {}
    for r in rows:
        if r.get("robust_method"):
            counts[r["robust_method"]] = counts.get(r["robust_method"], 0) + 1
    return dict(sorted(counts.items()))
