"""`audioeval leaderboard`: every board (task families', each run's `boards.yaml`, the user's
board files) over the pairs of several run directories, with a paired-bootstrap p-value
between each two adjacent ranks.

The boards are built from the stored pair summaries by the one board mechanism
(`run_summary.all_boards`), so a pair has the cells its run's own summary shows. A model with
the same benchmark in two run directories is one pair when both are the same result, and
otherwise needs `--prefer RUN` (`run_pairs.py`).

The bootstrap reads the pairs' records as `audioeval rank` does (`score_table`: the metric's
summed statistics per sample, failed outputs counted as the summary counts them). A board
score is the row's first ranking key (its average, by default). For two models, each benchmark's
sample ids that both have statistics for are resampled with replacement, the same draw for
both (benchmarks drawn independently), each metric of the board recomputed from the resampled
sums, and both rows scored again by the board's own code (`leaderboard.score_row`); the
two-sided p-value is twice the share of resamples whose difference does not have the observed
sign, at most 1. A row's board score CI is the percentile interval of its own resamples.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict

import numpy as np

from audioeval.analysis.pair_identity import RunSettingsCache, check_alike, pair_identity
from audioeval.analysis.pair_records import LatestByFolder
from audioeval.analysis.run_pairs import RunPair, read_run_pairs
from audioeval.analysis.score_table import CellStats, PairCell, Plans, cell_stats, resampled_metrics
from audioeval.engine.board_spec import BoardSpec, load_board_file
from audioeval.engine.leaderboard import (
    AdjacentTest,
    Board,
    BoardColumn,
    BoardRow,
    board_score,
    rank_keys,
    score_row,
)
from audioeval.engine.run_summary import all_boards, run_boards
from audioeval.metrics.bootstrap import percentile_ci
from audioeval.metrics.summary_blocks import PairSummary

METHOD = "paired bootstrap"
METHOD_TEXT = (
    "paired bootstrap: each benchmark's sample ids scored for both models are resampled with"
    " replacement (one draw for both, benchmarks drawn independently), every metric recomputed"
    " from the resampled summed statistics and both board scores recomputed; two-sided"
    " p = 2 × the share of resamples whose difference does not have the observed sign, at most 1"
)
CONFIDENCE = 0.95


class BootstrapMethod(TypedDict):
    """How `leaderboard.json`'s board score CIs and adjacent p-values were made."""

    resamples: int
    seed: int
    confidence: float
    method: str


class LeaderboardDoc(TypedDict):
    """`leaderboard.json` (`leaderboard_from_runs`): the run directories, how the tests were
    made, and every board, its rows with their board scores and tests."""

    run_dirs: list[str]
    bootstrap: BootstrapMethod
    boards: dict[str, Board]


def board_specs(run_dirs: Sequence[Path], board_files: Iterable[Path]) -> list[BoardSpec]:
    """The user boards: each run's `boards.yaml`, then the board files given (a later board
    of the same name replaces an earlier one)."""
    specs = [spec for run_dir in run_dirs for spec in run_boards(run_dir)]
    return specs + [spec for path in board_files for spec in load_board_file(path)]


class _Records:
    """The per-sample statistics of (benchmark, model, metric), from each pair's records read once."""

    def __init__(self, pairs: Sequence[RunPair], latest: LatestByFolder | None = None) -> None:
        self.pairs = {p.key: p for p in pairs}
        self._plans: Plans = {}
        self._latest = latest if latest is not None else {}  # each pair's latest records, read once
        self._stats: dict[tuple[str, str, str], CellStats | str] = {}

    def stats(self, bench: str, model: str, metric: str) -> CellStats | str:
        key = (bench, model, metric)
        if key not in self._stats:
            pair = self.pairs[(bench, model)]
            folder = pair.run_dir / str(pair.summary.get("folder", ""))
            cell = PairCell(model, f"{bench}:{metric}", pair.run_dir, folder, bench, metric)
            self._stats[key] = cell_stats(cell, self._plans, self._latest)
        return self._stats[key]


def _scored_columns(board: Board) -> list[BoardColumn]:
    """The columns the board score depends on: those averaged (weight above 0, in a group of
    weight above 0), or, on a board without an average, those of its first ranking key."""
    groups = {g["key"]: g for g in board["groups"]}
    if board["average"]:
        return [
            c
            for c in board["columns"]
            if c["weight"] > 0 and (c["group"] is None or groups[c["group"]]["weight"] > 0)
        ]
    first = rank_keys(board["rank_by"], False, board["columns"])[:1]
    return [
        c
        for c in board["columns"]
        if c["label"] in first or (c["group"] is not None and groups[c["group"]]["name"] in first)
    ]


def _paired_ids(members: Sequence[CellStats]) -> list[str]:
    """The sample ids every member scored, with one content hash (`sample_sha256`) recorded by
    all of them: a paired test pairs only the same sample."""
    shared = set.intersection(*(set(s.ids) for s in members))
    return sorted(
        sid
        for sid in shared
        if members[0].hashes.get(sid) is not None
        and all(s.hashes.get(sid) == members[0].hashes.get(sid) for s in members)
    )


def _bench_seed(seed: int, bench: str) -> int:
    return int(np.random.SeedSequence((seed, zlib.crc32(bench.encode("utf-8")))).generate_state(1)[0])


@dataclass(frozen=True)
class Resampled:
    """Each model's board score in every resample, and the sample ids drawn per benchmark."""

    scores: dict[str, np.ndarray]
    samples: dict[str, int]


def resampled_scores(
    board: Board, models: Sequence[str], records: _Records, *, resamples: int, seed: int
) -> Resampled | str:
    """The models' board scores over `resamples` paired resamples (see the module doc), or why
    there are none (a cell of the score without usable records, no shared sample)."""
    needed: dict[str, dict[tuple[str, str], CellStats]] = {}
    for col in _scored_columns(board):
        for bench in col["over"]:
            for model in models:
                pair = records.pairs.get((bench, model))
                block = ((pair.summary.get("metrics") or {}) if pair else {}).get(col["metric"]) or {}
                if block.get("value") is None:
                    continue  # the cell is empty in every resample too
                found = records.stats(bench, model, col["metric"])
                if isinstance(found, str):
                    return f"{model} × {bench} ({col['metric']}): {found}"
                needed.setdefault(bench, {})[(model, col["metric"])] = found
    if not needed:
        return "no cell of the board score has a value"
    drawn: dict[tuple[str, str, str], np.ndarray] = {}
    samples: dict[str, int] = {}
    for bench, members in needed.items():
        ids = _paired_ids(list(members.values()))
        if not ids:
            return f"{bench}: no sample scored for {' and '.join(models)} with the same content hash"
        samples[bench] = len(ids)
        aligned = [stats.over(ids) for stats in members.values()]
        values = resampled_metrics(aligned, len(ids), resamples=resamples, seed=_bench_seed(seed, bench))
        drawn.update({(bench, *key): v for key, v in zip(members, values, strict=True)})
    return Resampled(_rescored(board, models, records, drawn, resamples), samples)


def _rescored(
    board: Board,
    models: Sequence[str],
    records: _Records,
    drawn: Mapping[tuple[str, str, str], np.ndarray],
    resamples: int,
) -> dict[str, np.ndarray]:
    """Each model's board score in every resample, its metrics replaced by the drawn ones."""
    out = {m: np.full(resamples, np.nan) for m in models}
    base = {
        key: dict(pair.summary.get("metrics") or {})
        for key, pair in records.pairs.items()
        if key[1] in models and key[0] in board["benchmarks"]
    }
    for b in range(resamples):
        by_pair: dict[tuple[str, str], PairSummary] = {key: {"metrics": dict(m)} for key, m in base.items()}
        for (bench, model, metric), values in drawn.items():
            value = float(values[b])
            block = dict(by_pair[(bench, model)]["metrics"][metric])
            block["value"] = value if np.isfinite(value) else None
            by_pair[(bench, model)]["metrics"][metric] = block
        for model in models:
            score = board_score(board, score_row(board, model, by_pair))
            out[model][b] = np.nan if score is None else score
    return out


def adjacent_test(
    board: Board,
    above: BoardRow,
    below: BoardRow,
    records: _Records,
    *,
    resamples: int,
    seed: int,
) -> AdjacentTest:
    """`{above, below, difference, p, method, n_resamples, samples}`, or with p None and a
    `reason` when the p-value cannot be computed."""
    out: AdjacentTest = {"above": above["model"], "below": below["model"], "difference": None, "p": None}
    a, b = above.get("score"), below.get("score")
    if a is None or b is None:
        return {**out, "reason": "a row has no board score"}
    out["difference"] = a - b
    if resamples <= 0:
        return {**out, "reason": "no resamples (--resamples 0)"}
    found = resampled_scores(board, [above["model"], below["model"]], records, resamples=resamples, seed=seed)
    if isinstance(found, str):
        return {**out, "reason": found}
    diff = found.scores[above["model"]] - found.scores[below["model"]]
    diff = diff[np.isfinite(diff)]
    if not diff.size:
        return {**out, "reason": "no resample has both board scores"}
    observed = np.sign(round(a - b, 9))
    flips = int((np.sign(diff) != observed).sum()) if observed else diff.size
    p = min(1.0, 2.0 * flips / diff.size)
    return {**out, "p": p, "method": METHOD, "n_resamples": int(diff.size), "samples": found.samples}


def _score_ci(
    board: Board, row: BoardRow, records: _Records, *, resamples: int, seed: int
) -> tuple[list[float] | None, str | None]:
    """The row's board score CI from its own resamples, or (None, why)."""
    if row.get("score") is None:
        return None, "no board score"
    if resamples <= 0:
        return None, "no resamples (--resamples 0)"
    found = resampled_scores(board, [row["model"]], records, resamples=resamples, seed=seed)
    if isinstance(found, str):
        return None, found
    lo, hi = percentile_ci(found.scores[row["model"]], CONFIDENCE)
    return (None, "no resample has a board score") if lo is None or hi is None else ([lo, hi], None)


def add_tests(board: Board, records: _Records, *, resamples: int, seed: int) -> None:
    """Give each row its board `score`, its `score_ci` (or `score_ci_reason`) and `adjacent`:
    the test against the row ranked next below it (None for the last ranked row and for an
    unranked one)."""
    rows = board["rows"]
    for row in rows:
        row["score"] = board_score(board, row)
        ci, why = _score_ci(board, row, records, resamples=resamples, seed=seed)
        row["score_ci"] = ci
        if why is not None:
            row["score_ci_reason"] = why
        row["adjacent"] = None  # the last ranked row and every unranked one
    ranked = [row for row in rows if row.get("rank") is not None]
    for above, below in zip(ranked, ranked[1:], strict=False):
        above["adjacent"] = adjacent_test(board, above, below, records, resamples=resamples, seed=seed)


def leaderboard_from_runs(
    run_dirs: Sequence[Path],
    board_files: Iterable[Path] = (),
    *,
    resamples: int = 1000,
    seed: int = 0,
    mean_of_available: bool = False,
    prefer: Sequence[Path] = (),
) -> LeaderboardDoc:
    """`leaderboard.json`: the run directories, how the tests were made, and every board with
    a pair on it (`leaderboard.build_board`'s shape, each row with `score`, `score_ci` and
    `adjacent`; `signatures`: each benchmark's data hash and settings). Pairs of one benchmark
    not run alike are refused (`pair_identity.check_alike`); `mean_of_available` ranks a row
    missing a column by the mean of its available ones (UltraEval-Audio's convention); `prefer`
    picks among different results of one pair in several run directories."""
    latest: LatestByFolder = {}
    pairs = read_run_pairs(run_dirs, prefer, latest)
    runs: RunSettingsCache = {}
    alike = check_alike(pair_identity(p.run_dir, p.summary, runs, latest) for p in pairs)
    specs = board_specs(run_dirs, board_files)
    boards = all_boards([p.summary for p in pairs], specs, mean_of_available=mean_of_available)
    records = _Records(pairs, latest)
    for board in boards.values():
        board["signatures"] = {b: alike[b].signature() for b in board["benchmarks"]}
        add_tests(board, records, resamples=resamples, seed=seed)
    return {
        "run_dirs": [str(r) for r in run_dirs],
        "bootstrap": {"resamples": resamples, "seed": seed, "confidence": CONFIDENCE, "method": METHOD_TEXT},
        "boards": boards,
    }
