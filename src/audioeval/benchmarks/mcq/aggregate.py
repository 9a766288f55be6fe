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

from collections.abc import Sequence
from typing import NotRequired, TypedDict

from audioeval.benchmarks.mcq.definitions import McqBenchmark
from audioeval.benchmarks.mcq.item_rows import DisagreementRow, ItemRow
from audioeval.benchmarks.mcq.rubric_summary import RUBRIC, RubricGroup, rubric_group
from audioeval.benchmarks.pair_figures import Figure, Group, PairFigures
from audioeval.metrics.grouping import group_by, taxonomy_groups

OFFICIAL, ROBUST, UNPARSEABLE = "accuracy", "mean:robust_correct", "mean:unparseable"


class ModeFigures(TypedDict):
    """One mode's figures of a group in `mcq_summary.json`: the items it found right, their
    share in percent (two decimals, 0 for an empty group) and its CI in percent."""

    correct: int
    accuracy: float
    ci: list[float] | None


class RobustFigures(ModeFigures):
    """The robust mode's figures, with the answers it could not read (count and percent)."""

    unparseable: int
    unparseable_rate: float


class McqGroup(TypedDict):
    """One group of `mcq_summary.json` (`overall`, or a breakdown's group): the items with a
    prediction in it, both modes, and its MMAR-Rubrics scores when rubrics were judged."""

    n: int
    official: ModeFigures
    robust: RobustFigures
    rubric: NotRequired[RubricGroup]


class SummaryGroups(TypedDict):
    """The groups of `mcq_summary.json`: `overall` and, per axis, each group by name."""

    overall: McqGroup
    breakdowns: dict[str, dict[str, McqGroup]]


def percent(value: float | None) -> float:
    """A share as the official scripts print it: × 100, two decimals, 0 when undefined."""
    return 0 if value is None else round(value * 100, 2)


def _ci(fig: Figure) -> list[float] | None:
    ci = fig.ci
    return None if not ci or ci[0] is None or ci[1] is None else [round(ci[0] * 100, 2), round(ci[1] * 100, 2)]


def _count(fig: Figure) -> int:
    return int(fig.total or 0)


def _mode(fig: Figure) -> ModeFigures:
    return {"correct": _count(fig), "accuracy": percent(fig.value), "ci": _ci(fig)}


def group_figures(blocks: Group) -> McqGroup:
    """One group of the pair summary (its figures by metric) as `mcq_summary.json` shows it."""
    unparseable = blocks[UNPARSEABLE]
    robust = RobustFigures(
        **_mode(blocks[ROBUST]),
        unparseable=_count(unparseable),
        unparseable_rate=percent(unparseable.value),
    )
    return {"n": blocks[OFFICIAL].n, "official": _mode(blocks[OFFICIAL]), "robust": robust}


def _has_rubric(rows: Sequence[ItemRow]) -> bool:
    """Whether a row holds a rubric outcome (an item eligible for MMAR-Rubrics)."""
    return any("rubric_score" in r for r in rows)


def summary_groups(
    pair: PairFigures,
    rows: Sequence[ItemRow],
    bench: McqBenchmark,
) -> SummaryGroups:
    """`{"overall": group, "breakdowns": {axis: {name: group}}}`: the pair summary's figures
    (`pair`), each group with its rubric block when items of the run were rubric-judged."""
    breakdowns = pair.breakdowns
    missing = [axis.name for axis in bench.axes if axis.name not in breakdowns]
    if missing:
        raise ValueError(
            f"the pair summary has no breakdown by {', '.join(missing)}: this folder was scored "
            "by an earlier audioeval; score it again with `audioeval mcq score`"
        )
    scored = [r for r in rows if r.get("official") is not None]
    rubrics = _has_rubric(scored)
    if rubrics and RUBRIC not in pair.metrics:
        raise ValueError(
            f"the pair summary has no {RUBRIC}: this folder was scored by an earlier audioeval; "
            "score it again with `audioeval mcq score --rubrics`"
        )
    overall = group_figures(pair.metrics)
    out: SummaryGroups = {"overall": overall, "breakdowns": {}}
    if rubrics:
        overall["rubric"] = rubric_group(pair.metrics[RUBRIC], scored)
    for axis in bench.axes:
        groups = {name: group_figures(blocks) for name, blocks in breakdowns[axis.name].items()}
        if rubrics:
            members = group_by(scored, lambda row, key=axis.name: taxonomy_groups(dict(row).get(key)))
            for name, group in groups.items():
                if _has_rubric(members.get(name, [])):
                    group["rubric"] = rubric_group(breakdowns[axis.name][name][RUBRIC], members[name])
        out["breakdowns"][axis.name] = groups
    return out


def disagreements(rows: Sequence[ItemRow]) -> list[DisagreementRow]:
    """Items the two modes score differently, with what each mode saw."""
    return [
        DisagreementRow(
            id=r["id"],
            line=r.get("line"),
            answer=r.get("answer"),
            answer_letter=r.get("answer_letter"),
            prediction=r.get("prediction"),
            official=r.get("official"),
            official_reason=r.get("official_reason"),
            robust=r.get("robust"),
            robust_choice=r.get("robust_choice"),
            robust_method=r.get("robust_method"),
            robust_reason=r.get("robust_reason"),
        )
        for r in rows
        if r.get("official") is not None and r["official"] != r.get("robust")
    ]


def method_counts(rows: Sequence[ItemRow]) -> dict[str, int]:
    """How often each robust rule decided (and how often nothing could be read)."""
    counts: dict[str, int] = {}
    for r in rows:
        method = r.get("robust_method")
        if method:
            counts[method] = counts.get(method, 0) + 1
    return dict(sorted(counts.items()))
