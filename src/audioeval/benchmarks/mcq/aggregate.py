"""The figures of `mcq_summary.json`, formatted from the pair summary the engine computed.

Every accuracy, count and CI is the engine's (`metrics/pair_summary.py`, from the records:
`mcq_match` is `accuracy`, `mcq_robust` is `mean:robust_correct` and `mean:unparseable`), over
the groups the benchmark declares (`McqBenchmark.axes`, given to the run spec by
`source.score_spec`); items without a prediction are in none of them, as the official script
skips them. Accuracies are micro, `(correct / n) * 100` with two decimals, as the official
scripts print them (0 for an empty group). Rubric scores of MMAR-Rubrics are the pair
summary's `mean:rubric_score` (the eligible items scored), formatted by `rubric_summary.py`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from audioeval.benchmarks.mcq.definitions import McqBenchmark
from audioeval.benchmarks.mcq.rubric_summary import RUBRIC, rubric_group
from audioeval.metrics.grouping import group_by, taxonomy_groups

Row = dict[str, Any]
OFFICIAL, ROBUST, UNPARSEABLE = "accuracy", "mean:robust_correct", "mean:unparseable"


def percent(value: float | None) -> float:
    """A share as the official scripts print it: × 100, two decimals, 0 when undefined."""
    return 0 if value is None else round(value * 100, 2)


def _ci(block: Mapping[str, Any]) -> list[float] | None:
    ci = block.get("ci")
    return None if not ci or ci[0] is None else [round(ci[0] * 100, 2), round(ci[1] * 100, 2)]


def _count(block: Mapping[str, Any]) -> int:
    return int(block.get("total") or 0)


def _mode(block: Mapping[str, Any]) -> dict[str, Any]:
    return {"correct": _count(block), "accuracy": percent(block.get("value")), "ci": _ci(block)}


def group_figures(blocks: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """One group of the pair summary (its metric blocks) as `mcq_summary.json` shows it."""
    unparseable = blocks[UNPARSEABLE]
    robust = _mode(blocks[ROBUST])
    robust.update(unparseable=_count(unparseable), unparseable_rate=percent(unparseable.get("value")))
    return {"n": int(blocks[OFFICIAL]["n"]), "official": _mode(blocks[OFFICIAL]), "robust": robust}


def _has_rubric(rows: Sequence[Row]) -> bool:
    """Whether a row holds a rubric outcome (an item eligible for MMAR-Rubrics)."""
    return any("rubric_score" in r for r in rows)


def summary_groups(
    pair: Mapping[str, Any],
    rows: Sequence[Row],
    bench: McqBenchmark,
) -> dict[str, Any]:
    """`{"overall": group, "breakdowns": {axis: {name: group}}}`: the pair summary's figures
    (`pair`), each group with its rubric block when items of the run were rubric-judged."""
    breakdowns = pair.get("breakdowns") or {}
    missing = [axis.name for axis in bench.axes if axis.name not in breakdowns]
    if missing:
        raise ValueError(
            f"the pair summary has no breakdown by {', '.join(missing)}: this folder was scored "
            "by an earlier audioeval; score it again with `audioeval mcq score`"
        )
    scored = [r for r in rows if r.get("official") is not None]
    rubrics = _has_rubric(scored)
    if rubrics and RUBRIC not in pair["metrics"]:
        raise ValueError(
            f"the pair summary has no {RUBRIC}: this folder was scored by an earlier audioeval; "
            "score it again with `audioeval mcq score --rubrics`"
        )
    overall = group_figures(pair["metrics"])
    out: dict[str, Any] = {"overall": overall, "breakdowns": {}}
    if rubrics:
        overall["rubric"] = rubric_group(pair["metrics"][RUBRIC], scored)
    for axis in bench.axes:
        groups = {name: group_figures(blocks) for name, blocks in breakdowns[axis.name].items()}
        if rubrics:
            members = group_by(scored, lambda row, key=axis.name: taxonomy_groups(row.get(key)))
            for name, group in groups.items():
                if _has_rubric(members.get(name, [])):
                    group["rubric"] = rubric_group(breakdowns[axis.name][name][RUBRIC], members[name])
        out["breakdowns"][axis.name] = groups
    return out


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
