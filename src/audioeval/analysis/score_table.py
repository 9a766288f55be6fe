"""The score tables `audioeval rank` ranks: a CSV of published numbers, or the headline
metric of every benchmark × model pair of run directories, with bootstrap resamples of the
latter from the pairs' records.

CSV: a `model` column, then one column per `benchmark:metric` (`librispeech-test-clean:wer`,
`covost2-en-zh:bleu`, `meld-emotion:accuracy`), values as papers print them (WER in %);
lines starting with `#` are comments; an empty cell, `-` or `n/a` is a missing value. The
metric names a registered corpus metric (or `mean:<key>`), which says its direction.

A column's task group (what LOTGO drops together) is its benchmark's task: the task it ran as
(run directories), or the task of the registered benchmark of that name; otherwise the
metric's family (wer/cer: asr, bleu/chrf: ast, accuracy/macro_f1: classification). A groups
file (`task group: [benchmark or benchmark:metric, …]`) overrides it.
"""

from __future__ import annotations

import csv
import dataclasses
import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias

import numpy as np

from audioeval.analysis.pair_records import LatestByFolder, pair_latest
from audioeval.analysis.ranking import Column, ScoreTable
from audioeval.core.errors import InputError, RunConfigError
from audioeval.core.suggest import unknown_spec_name
from audioeval.store.csv_cells import restore_cell
from audioeval.store.json_file import read_json_object
from audioeval.store.text_input import read_text_input, text_lines
from audioeval.store.yaml_file import read_yaml_mapping

if TYPE_CHECKING:
    from audioeval.analysis.pair_identity import RunSettingsCache
    from audioeval.metrics.pair_summary import PairMetrics
    from audioeval.metrics.stat_table import OfCounts, Stats
    from audioeval.metrics.summary_blocks import PairSummary

Plans: TypeAlias = "dict[Path, dict[str, tuple[PairMetrics, bool]] | str]"
"""Each run's benchmarks (summary plan, exclude_missing) as `_run_benchmarks` reads them, or why not."""

MISSING_CELLS = frozenset({"", "-", "–", "—", "na", "n/a", "nan"})
METRIC_FAMILIES = {
    "wer": "asr",
    "cer": "asr",
    "bleu": "ast",
    "chrf": "ast",
    "accuracy": "classification",
    "macro_f1": "classification",
}


@functools.cache
def registered_task(benchmark: str) -> str | None:
    """The task of the shipped benchmark of that name, or None."""
    from audioeval.benchmarks.registry import load_shipped, shipped_benchmarks

    return load_shipped(benchmark)[0].task if benchmark in shipped_benchmarks() else None


def default_group(benchmark: str, metric: str) -> str:
    return registered_task(benchmark) or METRIC_FAMILIES.get(metric, metric)


BOUNDED_SCORES = frozenset({"bleu", "chrf"})
"""Metrics of unit `score` that lie between 0 and 100 as published."""


def bounds(metric: str) -> tuple[float, float | None] | None:
    """The range a published value of `metric` can take (None above: unbounded), or None when
    it has none we know: a fraction in % is at least 0 (at most 100 when higher is better: an
    error rate can pass 100), BLEU and chrF 0–100, a MOS 0–5."""
    from audioeval.metrics.corpus import get_metric

    m = get_metric(metric)
    if m.unit == "fraction":
        return 0.0, (100.0 if m.higher_is_better else None)
    if m.unit == "mos":
        return 0.0, 5.0
    if m.name in BOUNDED_SCORES:
        return 0.0, 100.0
    return None


def _check_range(value: float, column: Column, model: str, where: str, line: int) -> None:
    """Refuse a value its metric cannot take (a negative WER or accuracy, an accuracy over 100)."""
    if math.isnan(value):
        return
    found = bounds(column.metric)
    if found is None:
        return
    low, high = found
    if value < low or (high is not None and value > high):
        span = f"between {low:g} and {high:g}" if high is not None else f"at least {low:g}"
        raise InputError(
            f"model {model!r}: {value:g} is impossible for {column.metric} (as published: {span})",
            file=where,
            line=line,
            field=column.name,
        )


def _column(name: str, where: str, line: int) -> Column:
    """The column of a header cell `benchmark:metric`, its direction from the metric."""
    from audioeval.metrics.corpus import get_metric

    benchmark, _, metric = name.partition(":")
    field = name
    if not benchmark or not metric:
        raise InputError("a score column is named `benchmark:metric`", file=where, line=line, field=field)
    try:
        m = get_metric(metric)
    except InputError as exc:
        raise InputError(exc.message, file=where, line=line, field=field) from None
    points = 20.0 if m.unit == "mos" else 1.0
    return Column(name, m.higher_is_better, default_group(benchmark, metric), points)


def _cell(text: str, where: str, line: int, column: str) -> float:
    if text.strip().lower() in MISSING_CELLS:
        return math.nan
    try:
        value = float(text)
    except ValueError:
        value = math.nan
        bad = True
    else:
        bad = not math.isfinite(value)
    if bad:
        raise InputError(
            f"{text.strip()!r} is not a number (leave the cell empty, or write -, for a missing value)",
            file=where,
            line=line,
            field=column,
        )
    return value


def read_score_csv(path: Path) -> ScoreTable:
    """The table of a scores CSV (see the module doc); errors name the file, line and column."""
    where = str(path)
    lines = [
        "" if line.lstrip().startswith("#") else line
        for line in text_lines(read_text_input(path, "score table"))
    ]
    reader = csv.reader(lines)
    columns: list[Column] | None = None
    models: list[str] = []
    rows: list[list[float]] = []
    for row in reader:
        line = reader.line_num
        cells = [c.strip() for c in row]
        if not any(cells):
            continue
        cells = [restore_cell(c) for c in cells[:1]] + cells[1:]
        if columns is None:
            columns = _header([restore_cell(c) for c in cells], where, line)
            continue
        if len(cells) != len(columns) + 1:
            raise InputError(
                f"the row has {len(cells)} cells, the header {len(columns) + 1}", file=where, line=line
            )
        if not cells[0]:
            raise InputError("no model name", file=where, line=line, field="model")
        if cells[0] in models:
            raise InputError(f"model {cells[0]!r} has a row already", file=where, line=line)
        models.append(cells[0])
        rows.append([_cell(c, where, line, col.name) for c, col in zip(cells[1:], columns, strict=True)])
        for value, col in zip(rows[-1], columns, strict=True):
            _check_range(value, col, cells[0], where, line)
    if columns is None or not models:
        raise InputError(
            "no header and model rows: `model,benchmark:metric,…` then one row per model", file=where
        )
    return ScoreTable(tuple(models), tuple(columns), np.asarray(rows, dtype=np.float64))


def _header(cells: list[str], where: str, line: int) -> list[Column]:
    if cells[0].lower() != "model" or len(cells) < 2:
        raise InputError("the header is `model,benchmark:metric,…`", file=where, line=line)
    seen: set[str] = set()
    for name in cells[1:]:
        if name in seen:
            raise InputError("the column is there twice", file=where, line=line, field=name)
        seen.add(name)
    return [_column(name, where, line) for name in cells[1:]]


def read_groups(path: Path, table: ScoreTable) -> ScoreTable:
    """`table` with the task groups of a groups file (see the module doc); every name must
    match a column or a benchmark of the table, and none may be in two groups."""
    where = str(path)
    data = read_yaml_mapping(path, "groups")
    known = sorted({c.benchmark for c in table.columns} | {c.name for c in table.columns})
    assigned: dict[str, str] = {}
    for group, members in data.items():
        if not isinstance(group, str) or not group.strip():
            raise InputError("a task group's name is text", file=where, field=str(group))
        if not isinstance(members, list) or not members or not all(isinstance(m, str) for m in members):
            raise InputError("a task group is a list of benchmark names", file=where, field=group)
        for name in members:
            matched = [c.name for c in table.columns if name in (c.name, c.benchmark)]
            if not matched:
                raise InputError(unknown_spec_name("benchmark", name, known), file=where, field=group)
            for col in matched:
                if assigned.get(col, group) != group:
                    raise InputError(
                        f"{col!r} is in task groups {assigned[col]!r} and {group!r}", file=where, field=group
                    )
                assigned[col] = group
    columns = tuple(dataclasses.replace(c, group=assigned.get(c.name, c.group)) for c in table.columns)
    return dataclasses.replace(table, columns=columns)


@dataclass(frozen=True)
class PairCell:
    """Where a cell of a table built from run directories comes from."""

    model: str
    column: str
    run_dir: Path
    folder: Path
    benchmark: str
    headline: str


@dataclass(frozen=True)
class RunTable:
    table: ScoreTable
    cells: tuple[PairCell, ...]


def _one_family(found: Sequence[tuple[Path, PairSummary]], family: str | None) -> str:
    """The task family ranked: `family`, or the only one the pairs have."""
    from audioeval.engine.leaderboard import family_of

    by_family: dict[str, list[str]] = {}
    for _, res in found:
        by_family.setdefault(str(family_of(res)), []).append(str(res.get("benchmark")))
    listed = "; ".join(f"{f} ({', '.join(dict.fromkeys(b))})" for f, b in by_family.items())
    if family is not None:
        if family not in by_family:
            raise InputError(f"no pair of family {family!r}; the runs have: {listed}", field="--family")
        return family
    if len(by_family) > 1:
        raise InputError(
            f"the runs hold benchmarks of several task families: {listed}. Numbers of different"
            " families are never averaged together: rank one family at a time (--family NAME)",
            field="--family",
        )
    return next(iter(by_family))


def table_from_runs(
    run_dirs: Sequence[Path], family: str | None = None, prefer: Sequence[Path] = ()
) -> RunTable:
    """Models × `benchmark:headline` of one task family (`family`, or the only one the runs
    have) from the pair summaries of run directories, each pair once (`run_pairs.read_run_pairs`:
    the same result in two of them is one; different ones need `prefer`); pairs of one
    benchmark not run alike are an error (`pair_identity.check_alike`)."""
    from audioeval.analysis.pair_identity import check_alike, pair_identity
    from audioeval.analysis.run_pairs import read_run_pairs
    from audioeval.engine.leaderboard import family_of

    latest: LatestByFolder = {}
    found = [(p.run_dir, p.summary) for p in read_run_pairs(run_dirs, prefer, latest)]
    if found:
        chosen = _one_family(found, family)
        found = [(run_dir, res) for run_dir, res in found if str(family_of(res)) == chosen]
    models: list[str] = []
    columns: dict[str, Column] = {}
    values: dict[tuple[str, str], float] = {}
    cells: dict[tuple[str, str], PairCell] = {}
    runs: RunSettingsCache = {}
    identities = []
    for run_dir, res in found:
        model, bench, headline = res.get("model"), res.get("benchmark"), res.get("headline")
        if not (isinstance(model, str) and isinstance(bench, str) and isinstance(headline, str)):
            raise InputError(
                "a result without model, benchmark and headline", file=str(run_dir / "summary.json")
            )
        block = (res.get("metrics") or {}).get(headline) or {}
        unit = str(block.get("unit", "fraction"))
        name = f"{bench}:{headline}"
        col = Column(
            name,
            bool(block.get("higher_is_better", True)),
            res["task"] if isinstance(res.get("task"), str) else default_group(bench, headline),
            20.0 if unit == "mos" else 1.0,
        )
        if columns.setdefault(name, col).higher_is_better != col.higher_is_better:
            raise InputError(f"{name} is higher-is-better in one run and not in another", file=str(run_dir))
        key = (model, name)  # one per pair: `read_run_pairs` gives each pair once
        value = block.get("value")
        scale = 100.0 if unit == "fraction" else 1.0
        values[key] = math.nan if value is None else float(value) * scale
        cells[key] = PairCell(model, name, run_dir, run_dir / str(res.get("folder", "")), bench, headline)
        identities.append(pair_identity(run_dir, res, runs, latest))
        if model not in models:
            models.append(model)
    check_alike(identities)
    if not models:
        raise InputError("no benchmark × model result in the run directories", field="RUN_DIR")
    grid = np.asarray([[values.get((m, c), math.nan) for c in columns] for m in models], dtype=np.float64)
    return RunTable(ScoreTable(tuple(models), tuple(columns.values()), grid), tuple(cells.values()))


@dataclass(frozen=True)
class Resampled:
    """Bootstrap resamples of a table built from runs: `values` (B, models, columns); the
    cells without usable records stay at their value in every resample (`held`, with why)."""

    values: np.ndarray
    held: tuple[str, ...]


@dataclass(frozen=True)
class CellStats:
    """A pair's headline statistics: its sample ids, the metric as a function of how often
    each of them is drawn (`CorpusMetric.statistic`), and the scale."""

    ids: list[str]
    statistic: OfCounts
    scale: float
    hashes: Mapping[str, str | None] = dataclasses.field(default_factory=dict)
    """Each sample's content hash (`sample_sha256` of its record; None when not recorded)."""

    def over(self, ids: Sequence[str]) -> OfCounts:
        """The metric as a function of draw counts over `ids` (in any order): a sample of `ids`
        the pair lacks weighs nothing, and so does a sample of the pair's not in `ids` (a
        paired test over the samples both models have)."""
        where = {sid: n for n, sid in enumerate(ids)}
        cols = np.asarray([where.get(sid, -1) for sid in self.ids], dtype=np.intp)
        kept = cols >= 0

        def statistic(counts: np.ndarray) -> np.ndarray:
            counts = np.asarray(counts)
            own = np.zeros((counts.shape[0], len(self.ids)), dtype=counts.dtype)
            own[:, kept] = counts[:, cols[kept]]
            return self.statistic(own)

        return statistic


def resampled_metrics(members: Sequence[OfCounts], n: int, *, resamples: int, seed: int) -> list[np.ndarray]:
    """Each member's metric (a function of the draw counts of the same `n` sample ids) in
    `resamples` draws of the ids with replacement, one draw for every member."""
    from audioeval.metrics.bootstrap import resample_counts

    out = [np.empty(resamples, dtype=np.float64) for _ in members]
    start = 0
    for counts in resample_counts(n, n_resamples=resamples, seed=seed):
        for values, statistic in zip(out, members, strict=True):
            values[start : start + len(counts)] = statistic(counts)
        start += len(counts)
    return out


def bootstrap_tables(runs: RunTable, *, resamples: int, seed: int) -> Resampled | None:
    """Resample each benchmark's samples with replacement (the same draw for every model of
    it, benchmarks drawn independently) and recompute every headline from the records'
    summed statistics. None when no cell has usable records."""
    table = runs.table
    out = np.broadcast_to(table.values, (resamples, *table.values.shape)).copy()
    held: list[str] = []
    names = [c.name for c in table.columns]
    by_column: dict[int, list[tuple[int, CellStats]]] = {}
    plans: Plans = {}
    for cell in runs.cells:
        i, j = runs.table.models.index(cell.model), names.index(cell.column)
        if math.isnan(table.values[i, j]):
            continue
        found = cell_stats(cell, plans)
        if isinstance(found, str):
            held.append(f"{cell.model} × {cell.column}: {found}")
        else:
            by_column.setdefault(j, []).append((i, found))
    if not by_column:
        return None
    for j, members in by_column.items():
        ids = sorted(set().union(*(c.ids for _, c in members)))
        column_seed = int(np.random.SeedSequence((seed, j)).generate_state(1)[0])
        aligned = [c.over(ids) for _, c in members]
        drawn = resampled_metrics(aligned, len(ids), resamples=resamples, seed=column_seed)
        for (i, c), values in zip(members, drawn, strict=True):
            out[:, i, j] = values * c.scale
    return Resampled(out, tuple(held))


def cell_stats(
    cell: PairCell,
    plans: Plans,
    latest_by_folder: LatestByFolder | None = None,
) -> CellStats | str:
    """The headline statistics of a pair's latest records, counted as its summary counts them
    (failed outputs in, unless the run excluded them); or why there are none. `plans` and
    `latest_by_folder` keep each run's plans and each pair's latest records across calls (a
    board reads several metrics of one pair)."""
    from audioeval.metrics.pair_summary import record_stats, records_in_metrics

    path = cell.folder / "records.jsonl"
    if not path.is_file():
        return "no records.jsonl"
    if cell.run_dir not in plans:
        plans[cell.run_dir] = _run_benchmarks(cell.run_dir)
    benches = plans[cell.run_dir]
    if isinstance(benches, str):
        return benches
    if cell.benchmark not in benches:
        return f"benchmark {cell.benchmark!r} is not in run.json"
    plan, exclude_missing = benches[cell.benchmark]
    metric = next((m for m in plan.metrics if m.name == cell.headline), None)
    if metric is None:
        return f"headline {cell.headline!r} is not a metric of the benchmark"
    latest = pair_latest(cell.folder, latest_by_folder if latest_by_folder is not None else {}, cell.run_dir)
    stats: dict[str, Stats] = {}
    for rec in records_in_metrics(plan, latest.values(), exclude_failed_outputs=exclude_missing):
        found = record_stats(plan, metric, rec)
        if found is not None:
            stats[rec.id] = found
    if not stats:
        return "no scored sample in its records"
    try:
        statistic = metric.statistic(list(stats.values()))
    except ValueError as exc:
        return str(exc)
    hashes = {sid: latest[sid].sample_sha256 for sid in stats}
    return CellStats(list(stats), statistic, 100.0 if metric.unit == "fraction" else 1.0, hashes)


def _run_benchmarks(run_dir: Path) -> dict[str, tuple[PairMetrics, bool]] | str:
    """name -> (summary plan, exclude_missing) of each benchmark in a run's run.json, or why
    it cannot be read."""
    from audioeval.benchmarks.resolved import resolve
    from audioeval.benchmarks.spec import parse_spec

    path = run_dir / "run.json"
    try:
        run = read_json_object(path)
        exclude = bool(run.get("exclude_missing", False))
        return {
            b["name"]: (resolve(parse_spec(b["spec"], b["where"]), b["where"]).summary_plan(), exclude)
            for b in run["benchmarks"]
        }
    except InputError as exc:
        return f"{path}: {exc.describe()}"
    except RunConfigError as exc:
        return str(exc)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return f"{path} cannot be read ({type(exc).__name__}: {exc})"
