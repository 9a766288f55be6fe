"""Leaderboards from stored pair summaries: one board per task family, plus any user board, each
built from a `BoardSpec` (`board_spec.py`) by the one function `build_board`.

A board takes the pairs its spec selects (family, tasks, benchmarks), makes its columns (one
per benchmark, or one over the board), and gives each model a row: every cell's raw value
with its CI, its value on the 0–100 higher-is-better scale (`normalised`), each group's score
(the weighted mean of its available columns), and the weighted mean of the available
entries (ungrouped columns and groups) of the available entries; the row names the columns it lacks
(`missing`), and, where its pairs' outputs are audio, their health summed (`output_health`:
the board then has a health column, `health`). A row lacking an entry of the board score is not ranked among complete rows: it
is listed below them with rank None (`ranked`: False), unless the board is built with
`mean_of_available` (UltraEval-Audio's published convention: every row ranked by the mean of
its available entries; `incomplete_rows` says which). A column no model has a value for does not
apply (`not_applicable`) and is left out.

Nothing is clipped: an error rate above 100 % gives a negative normalised value, which enters
the average as it is; the row names such columns in `negative_columns`. Failed samples are in
the pair's metrics as its summary counts them (a failed output is a wrong answer or a full
deletion); UltraEval-Audio drops them instead.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import NotRequired, TypedDict

from audioeval.benchmarks.tasks import TASKS
from audioeval.core.errors import InputError
from audioeval.core.json_value import JsonValue
from audioeval.engine.board_spec import AVERAGE, HEADLINE, BoardSpec, ColumnSpec
from audioeval.metrics.corpus import UNDECLARED
from audioeval.metrics.declaration import shown_name
from audioeval.metrics.output_health import OutputHealth
from audioeval.metrics.summary_blocks import MetricBlock, PairSummary


class BoardColumn(TypedDict):
    """A column of a board: its key (`benchmark · label` for a per-benchmark column), the
    benchmarks its values come from (`over`), the metric, how its values are normalised, its
    group instance (None: ungrouped) and weight."""

    key: str
    label: str
    benchmark: str | None
    over: list[str]
    metric: str
    direction: str
    transform: str
    unit: str | None
    group: str | None
    weight: float
    _group_name: NotRequired[str | None]  # while the board is built; removed before it is returned


class BoardGroup(TypedDict):
    """A group instance of a board (one per benchmark for per-benchmark columns), its columns
    and its weight in the average."""

    key: str
    name: str | None
    label: str | None
    benchmark: str | None
    columns: list[str]
    weight: float


BoardCell = TypedDict(
    "BoardCell",
    {
        "value": float | None,
        "ci": list[float] | None,
        "n": int,
        "from": list[str],  # a column over several benchmarks: those the mean is over
        "normalised": float | None,
    },
    total=False,
)
"""A model's value in a column: the raw value with its CI and n (or the mean over the column's
benchmarks and which), and the value on the 0–100 higher-is-better scale."""


class PairCounts(TypedDict):
    """What a row says of each of its pairs: scored, failed, the failed outputs and whether
    the headline counts them."""

    scored: int
    failed: int
    failed_outputs: int
    failed_outputs_in_headline: str
    output_health: NotRequired[OutputHealth]  # the pair's outputs are audio: its summary's block


class RowHealth(TypedDict):
    """A row's audio-output health summed over its pairs' blocks (`row_health`)."""

    n_checked: int
    n_unhealthy: int
    problems: dict[str, int]


class AdjacentTest(TypedDict, total=False):
    """`audioeval leaderboard`: the paired-bootstrap test of a row against the row ranked next
    below it (`analysis/leaderboard_runs.adjacent_test`); p None with a `reason` when none."""

    above: str
    below: str
    difference: float | None
    p: float | None
    reason: str
    method: str
    n_resamples: int
    samples: dict[str, int]


class ColumnSignature(TypedDict):
    """`audioeval leaderboard`: what a board shows of a benchmark's data and settings
    (`analysis/pair_identity.PairIdentity.signature`)."""

    data_sha256: str
    samples: int
    limit: int | None
    profile: str | None
    scorers: JsonValue


class RowUsage(TypedDict, total=False):
    """A board row's usage (`row_usage`): requests and, when its pairs were priced, their cost
    (None: unknown)."""

    calls: int | None
    cost: float | None


class BoardRow(TypedDict, total=False):
    """A model's row: its cells by column key, its group scores, the columns it lacks or has
    below 0, its average (with how many entries it is over, of how many), and its rank (None
    and `ranked` False: an incomplete row listed below the complete ones)."""

    model: str
    pairs: dict[str, PairCounts]
    cells: dict[str, BoardCell]
    groups: dict[str, float | None]
    missing: list[str]
    negative_columns: list[str]
    average: float | None
    averaged_over: int
    entries: int
    ranked: bool
    rank: int | None
    usage: RowUsage  # the requests of its pairs' models and judge, and their cost when priced
    score: float | None  # `audioeval leaderboard`: the board score, its CI (or why none), the test
    score_ci: list[float] | None
    score_ci_reason: str
    adjacent: AdjacentTest | None
    output_health: RowHealth | None  # None: no pair of the row has audio outputs


class Board(TypedDict):
    """One leaderboard (`build_board`), as `summary.json` and `leaderboard.json` hold it."""

    name: str
    title: str
    description: str | None
    benchmarks: list[str]
    columns: list[BoardColumn]
    groups: list[BoardGroup]
    average: bool
    rank_by: list[str]
    not_applicable: list[str]
    incomplete_rows: str
    health: NotRequired[bool]  # a health column: some row's outputs are audio
    rows: list[BoardRow]
    signatures: NotRequired[dict[str, ColumnSignature]]  # `audioeval leaderboard`: per benchmark


PairsByKey = Mapping[tuple[str, str], PairSummary]
"""Pair summaries by (benchmark, model)."""

SCALES = {"percent": 100.0, "mos": 20.0, "as_is": 1.0}
UNRANKED = "listed below the complete rows, unranked"
MEAN_OF_AVAILABLE = "ranked by the mean of the available columns (UltraEval-Audio's convention)"
UNIT_TRANSFORMS = {"fraction": "percent", "mos": "mos"}


def family_of(res: PairSummary) -> str | None:
    """A pair's task family (its summary's, or its task's for summaries written before)."""
    if res.get("family"):
        return str(res["family"])
    task = TASKS.find(str(res.get("task")))
    return task.family if task is not None else None


def normalised(value: float | None, *, transform: str, higher_is_better: bool) -> float | None:
    """The value on a 0–100 scale where higher is better (None stays None; nothing clipped)."""
    if value is None:
        return None
    v = SCALES[transform] * value
    return v if higher_is_better else 100.0 - v


def build_boards(
    results: Sequence[PairSummary], specs: Iterable[BoardSpec], *, mean_of_available: bool = False
) -> dict[str, Board]:
    """`{board name: board}` for every spec that selects at least one pair (a later spec of the
    same name replaces an earlier one)."""
    boards: dict[str, Board] = {}
    for spec in specs:
        board = build_board(spec, results, mean_of_available=mean_of_available)
        boards.pop(spec.name, None)
        if board is not None:
            boards[spec.name] = board
    return boards


def _selected(spec: BoardSpec, res: PairSummary) -> bool:
    return (
        (spec.family is None or family_of(res) == spec.family)
        and (spec.tasks is None or res.get("task") in spec.tasks)
        and (spec.benchmarks is None or res.get("benchmark") in spec.benchmarks)
    )


def _applies(col: ColumnSpec, res: PairSummary) -> bool:
    return (col.tasks is None or res.get("task") in col.tasks) and (
        col.benchmarks is None or res.get("benchmark") in col.benchmarks
    )


def _metric_of(col: ColumnSpec, res: PairSummary) -> str:
    return str(res.get("headline")) if col.metric == HEADLINE else col.metric


def _on_board(col: ColumnSpec, block: MetricBlock | None) -> bool:
    """Whether a metric block can be a column: it exists, and its 0–100 scale is known (a
    metric of a plugin's scorer that declares no unit stays off, unless the board's spec
    gives its transform)."""
    return block is not None and not (col.transform == "auto" and block.get("unit") == UNDECLARED)


def _block(res: PairSummary | None, metric: str) -> MetricBlock | None:
    return None if res is None else (res.get("metrics") or {}).get(metric)


def build_board(
    spec: BoardSpec, results: Sequence[PairSummary], *, mean_of_available: bool = False
) -> Board | None:
    """The board of the pairs `spec` selects (see the module doc), or None when it selects none.
    A row lacking an entry of the board score is listed below the complete ones, unranked,
    unless `mean_of_available` (then it is ranked by the mean of its available entries)."""
    pairs = [r for r in results if _selected(spec, r)]
    if not pairs:
        return None
    by_pair = {(r["benchmark"], r["model"]): r for r in pairs}
    benchmarks = list(dict.fromkeys(r["benchmark"] for r in pairs))
    models = list(dict.fromkeys(r["model"] for r in pairs))
    columns = _columns(spec, pairs, benchmarks)
    rows = [_row(model, columns, by_pair) for model in models]
    applicable = [c for c in columns if any(r["cells"][c["key"]]["value"] is not None for r in rows)]
    dropped = [c["key"] for c in columns if c not in applicable]
    for row in rows:
        for key in dropped:
            del row["cells"][key]
    groups = _groups(spec, applicable)
    for row in rows:
        _score(spec.average, row, applicable, groups)
    keys = rank_keys(spec.rank_by, spec.average, applicable)
    _rank(keys, rows, applicable, groups, average=spec.average, rank_incomplete=mean_of_available)
    return {
        "name": spec.name,
        "title": spec.shown_title,
        "description": spec.description,
        "benchmarks": benchmarks,
        "columns": applicable,
        "groups": groups,
        "average": spec.average,
        "rank_by": spec.rank_by,
        "not_applicable": dropped,
        "incomplete_rows": MEAN_OF_AVAILABLE if mean_of_available else UNRANKED,
        "health": any(row["output_health"] is not None for row in rows),  # a health column
        "rows": rows,
    }


def _columns(spec: BoardSpec, pairs: Sequence[PairSummary], benchmarks: list[str]) -> list[BoardColumn]:
    """The board's columns: per-benchmark ones benchmark by benchmark, then the per-board ones.
    A `headline` column is left out for a benchmark whose headline another column names."""
    first = {b: next(r for r in pairs if r["benchmark"] == b) for b in benchmarks}
    out: list[BoardColumn] = []
    for bench in benchmarks:
        res = first[bench]
        named = {c.metric for c in spec.columns if c.metric != HEADLINE and _applies(c, res)}
        for col in spec.columns:
            metric = _metric_of(col, res)
            if col.metric == HEADLINE and metric in named:
                continue  # the headline is another column of the board already (a MOS, say)
            if col.per == "benchmark" and _applies(col, res) and _on_board(col, _block(res, metric)):
                label = col.shown_label or shown_name(metric, _block(res, metric))
                out.append(_column(col, metric, label, bench, [bench], res))
    for col in spec.columns:
        if col.per != "board":
            continue
        over = [
            b for b in benchmarks if _applies(col, first[b]) and _on_board(col, _block(first[b], col.metric))
        ]
        if over:
            out.append(_column(col, col.metric, str(col.shown_label), None, over, first[over[0]]))
    keys = [c["key"] for c in out]
    twice = sorted({k for k in keys if keys.count(k) > 1})
    if twice:
        raise InputError(f"two columns of board {spec.name!r} are {twice[0]!r}: give one a `label`")
    return out


def _column(
    col: ColumnSpec, metric: str, label: str, bench: str | None, over: list[str], res: PairSummary
) -> BoardColumn:
    """A column of the board: its key, where its values come from, how they are normalised
    (`auto` resolved from `res`'s metric block), its group instance and weight."""
    block: MetricBlock = _block(res, metric) or {}
    higher = (
        bool(block.get("higher_is_better", True)) if col.direction == "auto" else col.direction == "higher"
    )
    transform = col.transform
    if transform == "auto":
        transform = UNIT_TRANSFORMS.get(str(block.get("unit")), "as_is")
    group = None
    if col.group:
        group = col.group if bench is None else f"{bench} · {col.group}"
    return {
        "key": label if bench is None else f"{bench} · {label}",
        "label": label,
        "benchmark": bench,
        "over": over,
        "metric": metric,
        "direction": "higher" if higher else "lower",
        "transform": transform,
        "unit": block.get("unit"),
        "group": group,
        "weight": col.weight,
        "_group_name": col.group,
    }


def _cell(column: BoardColumn, model: str, by_pair: PairsByKey) -> BoardCell:
    """The model's value in the column: the pair's metric with its CI and n, or, for a column
    over several benchmarks, the mean of the model's values (`from`: the benchmarks in it)."""
    blocks: list[MetricBlock] = [_block(by_pair.get((b, model)), column["metric"]) or {} for b in column["over"]]
    up = column["direction"] == "higher"
    if len(blocks) == 1:
        value = blocks[0].get("value")
        cell: BoardCell = {"value": value, "ci": blocks[0].get("ci"), "n": blocks[0].get("n", 0)}
    else:
        got = [(b, block.get("value")) for b, block in zip(column["over"], blocks, strict=True)]
        got = [(b, v) for b, v in got if v is not None]
        value = sum(v for _, v in got) / len(got) if got else None
        cell = {"value": value, "ci": None, "from": [b for b, _ in got]}
    cell["normalised"] = normalised(value, transform=column["transform"], higher_is_better=up)
    return cell


def _row(model: str, columns: list[BoardColumn], by_pair: PairsByKey) -> BoardRow:
    pairs: dict[str, PairCounts] = {}
    for (bench, name), res in by_pair.items():
        if name == model:
            failed_outputs = res.get("failed_outputs")
            pairs[bench] = {
                "scored": res.get("scored", 0),
                "failed": res.get("failed", 0),
                "failed_outputs": failed_outputs.get("n", 0) if failed_outputs else 0,
                "failed_outputs_in_headline": (
                    failed_outputs.get("in_headline", "counted") if failed_outputs else "counted"
                ),
            }
            health = res.get("output_health")
            if health is not None:  # the pair's outputs are audio: as its summary counts them
                pairs[bench]["output_health"] = health
    cells = {c["key"]: _cell(c, model, by_pair) for c in columns}
    mine = [res for (_, name), res in by_pair.items() if name == model]
    return {
        "model": model,
        "pairs": pairs,
        "cells": cells,
        "usage": row_usage(mine),
        "output_health": row_health(pairs),
    }


def row_usage(pairs: Sequence[PairSummary]) -> RowUsage:
    """What a row's pairs asked: requests of the model and the judge together, and their cost
    when the pairs were priced (`--prices`); None where any pair's is unknown (a summary
    without `usage`, an earlier version's: `metrics/usage_totals.py`)."""
    calls: list[int | None] = []
    for res in pairs:
        usage = res.get("usage")
        if usage is None:
            calls.append(None)
            continue
        calls.append(usage["model"].get("calls"))
        if "judge" in usage:
            calls.append(usage["judge"].get("calls"))
    known = [c for c in calls if c is not None]
    out: RowUsage = {"calls": sum(known) if calls and len(known) == len(calls) else None}
    if any(res.get("cost") is not None for res in pairs):
        costs = [res.get("cost", {}).get("total") for res in pairs]
        priced = [c for c in costs if c is not None]
        out["cost"] = round(sum(priced), 6) if len(priced) == len(costs) else None
    return out


def row_health(pairs: Mapping[str, PairCounts]) -> RowHealth | None:
    """A row's audio-output health over its pairs that have one (`metrics/output_health.py`,
    summed, never re-measured): outputs checked, those with a problem (unreadable ones
    included: never healthy), and each problem's count; None when no pair's outputs are audio."""
    blocks = [p["output_health"] for p in pairs.values() if "output_health" in p]
    if not blocks:
        return None
    problems: dict[str, int] = {}
    for block in blocks:
        for name, found in block["problems"].items():
            problems[name] = problems.get(name, 0) + found["n"]
    unreadable = sum(b["unreadable"]["n"] for b in blocks)
    if unreadable:
        problems["unreadable"] = unreadable
    return {
        "n_checked": sum(b["n_checked"] for b in blocks),
        "n_unhealthy": sum(b["n_with_problems"] for b in blocks) + unreadable,
        "problems": problems,
    }


def _groups(spec: BoardSpec, columns: list[BoardColumn]) -> list[BoardGroup]:
    """Each group instance (one per benchmark for per-benchmark columns) and its members."""
    groups: dict[str, BoardGroup] = {}
    for c in columns:
        if c["group"] is None:
            continue
        g = groups.setdefault(
            c["group"],
            {
                "key": c["group"],
                "name": c["_group_name"],
                "label": spec.group_spec(c["_group_name"]).label or c["_group_name"],
                "benchmark": c["benchmark"],
                "columns": [],
                "weight": spec.group_spec(c["_group_name"]).weight,
            },
        )
        g["columns"].append(c["key"])
    for c in columns:
        del c["_group_name"]
    return list(groups.values())


def _weighted_mean(pairs: Iterable[tuple[float | None, float]]) -> tuple[float | None, int]:
    """(Σ w·v / Σ w over the defined values of positive weight, how many), None when none."""
    defined = [(v, w) for v, w in pairs if v is not None and w > 0]
    total = sum(w for _, w in defined)
    return (sum(v * w for v, w in defined) / total if total else None), len(defined)


def _entries(columns: list[BoardColumn], groups: list[BoardGroup]) -> list[tuple[str, float, list[str]]]:
    """What the average is over: (key, weight, member column keys) for every ungrouped column
    and every group."""
    out = [(c["key"], c["weight"], [c["key"]]) for c in columns if c["group"] is None]
    return out + [(g["key"], g["weight"], g["columns"]) for g in groups]


def _score(average: bool, row: BoardRow, columns: list[BoardColumn], groups: list[BoardGroup]) -> None:
    """The row's group scores, average (on a board with one), and the columns it lacks or has
    below 0."""
    cells = row["cells"]
    weight = {c["key"]: c["weight"] for c in columns}
    row["groups"] = {
        g["key"]: _weighted_mean((cells[k]["normalised"], weight[k]) for k in g["columns"])[0] for g in groups
    }
    entries = [e for e in _entries(columns, groups) if e[1] > 0]
    averaged = {k for _, _, keys in entries for k in keys if weight[k] > 0}
    row["missing"] = [
        c["key"]
        for c in columns
        if cells[c["key"]]["value"] is None and (c["key"] in averaged or not average)
    ]
    row["negative_columns"] = [k for k, c in cells.items() if (c["normalised"] or 0.0) < 0]
    if average:
        values = {**{k: c["normalised"] for k, c in cells.items()}, **row["groups"]}
        row["average"], row["averaged_over"] = _weighted_mean((values[k], w) for k, w, _ in entries)
        row["entries"] = len(entries)


def _rank_value(key: str, row: BoardRow, columns: list[BoardColumn], groups: list[BoardGroup]) -> float | None:
    """A `rank_by` key's value: the average, or the mean of a label's or a group's instances."""
    if key == AVERAGE:
        return row.get("average")
    found = [row["cells"][c["key"]]["normalised"] for c in columns if c["label"] == key]
    found += [row["groups"][g["key"]] for g in groups if g["name"] == key]
    defined = [v for v in found if v is not None]
    return sum(defined) / len(defined) if defined else None


def rank_keys(rank_by: Sequence[str], average: bool, columns: Sequence[BoardColumn]) -> list[str]:
    """What a board ranks by, in order: `rank_by`, else the average, else the first column."""
    return list(rank_by) or ([AVERAGE] if average else [columns[0]["label"]] if columns else [])


def board_score(board: Board, row: BoardRow) -> float | None:
    """A row's board score: the value of the board's first ranking key (its average unless
    `rank_by` says otherwise), on the 0–100 higher-is-better scale; None when it has none."""
    keys = rank_keys(board["rank_by"], board["average"], board["columns"])
    return _rank_value(keys[0], row, board["columns"], board["groups"]) if keys else None


def score_row(board: Board, model: str, by_pair: PairsByKey) -> BoardRow:
    """The row `build_board` gives `model` on this board's columns from `by_pair`'s pair
    summaries ({(benchmark, model): summary}), scored by the same code: how a board is scored
    again from resampled metric values."""
    row = _row(model, board["columns"], by_pair)
    _score(board["average"], row, board["columns"], board["groups"])
    return row


def incomplete(row: BoardRow, average: bool) -> bool:
    """Whether a row lacks an entry of its board score: an averaged column or a whole group
    (a group is the mean of its available members), or, on a board without an average, any
    column."""
    if average:
        return row.get("averaged_over", 0) < row.get("entries", 0)
    return bool(row["missing"])


def _rank(
    keys: list[str],
    rows: list[BoardRow],
    columns: list[BoardColumn],
    groups: list[BoardGroup],
    *,
    average: bool,
    rank_incomplete: bool,
) -> None:
    """Best first by the ranking keys (`rank_keys`); rows without a value go last; ties keep
    the order of the results. Unless `rank_incomplete`, an incomplete row (`incomplete`) comes
    after every complete one with rank None (`ranked`: False)."""

    def order(row: BoardRow) -> tuple[bool | float, ...]:
        values = [_rank_value(k, row, columns, groups) for k in keys]
        unranked = not rank_incomplete and incomplete(row, average)
        return (unranked, *(x for v in values for x in (v is None, -(v or 0.0))))

    rows.sort(key=order)
    for rank, row in enumerate(rows, start=1):
        row["ranked"] = rank_incomplete or not incomplete(row, average)
        row["rank"] = rank if row["ranked"] else None
