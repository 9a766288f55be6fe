"""How robust a leaderboard's ranking is, and how its benchmarks correlate: the analysis of
UltraEval-Audio's paper (§5.4–5.5, Table 8, Figures 4–6) over a model × benchmark score table.

- Every column is first put on one scale where higher is better ("flipped"): an error rate x
  (in %) enters as 100 − x, unclipped (a WER of 279.9 enters as −179.9); a 0–5 MOS as 20 × x;
  anything else as it is.
- A model's score is the unweighted mean of its flipped values. A model missing a column is
  not ranked among complete ones: it is listed below them, unranked, with the columns it lacks
  (and takes no part in any variant or in the column statistics of z-score and min-max).
  `mean_of_available` reproduces UltraEval-Audio's published convention instead (its Table 8):
  every model ranked by the mean of its available values (a missing value left out, not
  counted as 0). Rank 1 is the highest score; equal scores share the better rank (1, 2, 2, 4);
  a model with no value in a variant has no rank in it.
- Variants: LOBO drops one column at a time; LOTGO drops one task group at a time; the
  alternative normalisations replace each column by its z-score (population standard
  deviation) or its min-max scaling, over the models that have it, then take the same
  equal-weight mean. Best and worst are the smallest and largest rank over a kind's variants.
- Spearman's ρ between two columns: the Pearson correlation of the models' average ranks
  (ties share the mean of their ranks) in both, over the models that have both values.

Pure: numbers in, numbers out; reading tables is `score_table.py`, writing them is
`report/ranking_table.py`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypedDict

import numpy as np

from audioeval.metrics.bootstrap import percentile_ci

DECIMALS = 9
"""Scores are compared rounded to this many decimals: a mean of the same numbers summed in
another order is the same score, not a rank apart."""


@dataclass(frozen=True)
class Column:
    """One column of a score table: a benchmark's metric."""

    name: str
    """`benchmark:metric`, e.g. `librispeech-test-clean:wer`."""
    higher_is_better: bool
    group: str
    """The task group LOTGO drops together (`asr`, `ast`, `classification`, …)."""
    points: float = 1.0
    """Points on the 0–100 scale per unit of the value: 20 for a 0–5 MOS, 1 for a value in %
    or a BLEU score."""

    @property
    def benchmark(self) -> str:
        return self.name.split(":", 1)[0]

    @property
    def metric(self) -> str:
        return self.name.split(":", 1)[1] if ":" in self.name else ""


@dataclass(frozen=True)
class ScoreTable:
    """Models × columns; `values` as published (WER in %), NaN where a model has no value."""

    models: tuple[str, ...]
    columns: tuple[Column, ...]
    values: np.ndarray

    def __post_init__(self) -> None:
        if self.values.shape != (len(self.models), len(self.columns)):
            raise ValueError(f"values {self.values.shape} for {len(self.models)}×{len(self.columns)}")

    def flipped(self) -> np.ndarray:
        return flip(self.values, self.columns)

    def groups(self) -> dict[str, list[str]]:
        """Each task group and its columns, in column order."""
        out: dict[str, list[str]] = {}
        for col in self.columns:
            out.setdefault(col.group, []).append(col.name)
        return out


def flip(values: np.ndarray, columns: Sequence[Column]) -> np.ndarray:
    """Values (…, columns) on the common scale where higher is better (see the module doc)."""
    points = np.asarray([c.points for c in columns], dtype=np.float64)
    higher = np.asarray([c.higher_is_better for c in columns], dtype=bool)
    scaled = values * points
    return np.where(higher, scaled, 100.0 - scaled)


def mean_scores(flipped: np.ndarray) -> np.ndarray:
    """The mean of each row's available values over the last axis; NaN for a row with none."""
    present = ~np.isnan(flipped)
    counts = present.sum(axis=-1)
    sums = np.where(present, flipped, 0.0).sum(axis=-1)
    out = np.full(counts.shape, np.nan)
    np.divide(sums, counts, out=out, where=counts > 0)
    return out


def competition_ranks(scores: np.ndarray) -> np.ndarray:
    """Ranks along the last axis, 1 for the highest score, ties sharing the better rank; NaN
    where the score is NaN."""
    s = np.round(scores, DECIMALS)
    better = (s[..., None, :] > s[..., :, None]).sum(axis=-1)
    return np.where(np.isnan(s), np.nan, 1.0 + better)


def zscore_columns(flipped: np.ndarray) -> np.ndarray:
    """Each column's z-score over the models that have it (0 where all are equal)."""
    mean = np.nanmean(_defined_columns(flipped), axis=0)
    std = np.nanstd(_defined_columns(flipped), axis=0)
    safe = np.where(std > 0, std, 1.0)
    return np.where(std > 0, (flipped - mean) / safe, np.where(np.isnan(flipped), np.nan, 0.0))


def minmax_columns(flipped: np.ndarray) -> np.ndarray:
    """Each column scaled to 0 (worst) … 1 (best) over the models that have it (0.5 where all
    are equal)."""
    low = np.nanmin(_defined_columns(flipped), axis=0)
    span = np.nanmax(_defined_columns(flipped), axis=0) - low
    safe = np.where(span > 0, span, 1.0)
    return np.where(span > 0, (flipped - low) / safe, np.where(np.isnan(flipped), np.nan, 0.5))


def _defined_columns(flipped: np.ndarray) -> np.ndarray:
    """The table with an all-missing column set to 0 (it stays missing in the caller's cells),
    so that numpy's nan-reductions do not warn about it."""
    empty = np.isnan(flipped).all(axis=0)
    return np.where(empty, 0.0, flipped)


class RankBootstrap(TypedDict):
    """How `robustness.json`'s bootstrap rank intervals were made, and the cells held at
    their value in every resample."""

    resamples: int
    seed: int
    confidence: float
    held: list[str]


class ModelRobustness(TypedDict, total=False):
    """A model in `robustness.json`: rank, score, columns covered, best–worst rank under each
    kind of variant, its bootstrap rank interval, and, unranked, the columns it lacks."""

    rank: int | None
    score: float | None
    covered: int
    lobo: list[int] | None
    lotgo: list[int] | None
    alt_norm: list[int] | None
    zscore: int | None
    minmax: int | None
    bootstrap: list[int] | None
    ranked: bool
    missing: list[str]


class RankColumn(TypedDict):
    """A column of `robustness.json`."""

    name: str
    higher_is_better: bool
    group: str
    points: float


class RankVariants(TypedDict):
    """Every variant's ranks, by model: leaving out one benchmark, or one task group."""

    lobo: dict[str, dict[str, int | None]]
    lotgo: dict[str, dict[str, int | None]]


class RobustnessJson(TypedDict, total=False):
    """`robustness.json` (`Robustness.to_json`)."""

    models: dict[str, ModelRobustness]
    columns: list[RankColumn]
    groups: dict[str, list[str]]
    variants: RankVariants
    bootstrap: RankBootstrap


class SpearmanJson(TypedDict):
    """`spearman.json` (`spearman_json`): ρ between every two columns and the models each is over."""

    columns: list[str]
    matrix: list[list[float | None]]
    n: list[list[int]]
    values: str


@dataclass(frozen=True)
class Robustness:
    """The original ranks and the ranks under every variant, in the table's model order."""

    table: ScoreTable
    scores: np.ndarray
    rank: np.ndarray
    lobo: dict[str, np.ndarray]
    """Dropped column -> ranks."""
    lotgo: dict[str, np.ndarray]
    """Dropped task group -> ranks (a group holding every column is not dropped)."""
    zscore: np.ndarray
    minmax: np.ndarray
    ranked: np.ndarray | None = None
    """Per model, whether it is ranked (complete, or any model under `mean_of_available`)."""

    def to_json(
        self,
        intervals: Sequence[tuple[int, int] | None] | None = None,
        bootstrap: RankBootstrap | None = None,
    ) -> RobustnessJson:
        """`robustness.json`: per model its rank, score and the best/worst rank of each kind
        of variant (ordered by rank), every variant's ranks, the columns and their groups;
        with `intervals`, each model's bootstrap rank interval (`bootstrap` says how)."""
        models: dict[str, ModelRobustness] = {}
        for i in sorted(range(len(self.table.models)), key=lambda i: _order_key(self.rank[i], i)):
            entry: ModelRobustness = {
                "rank": _int(self.rank[i]),
                "score": _float(self.scores[i]),
                "covered": int((~np.isnan(self.table.values[i])).sum()),
                "lobo": _span(self.lobo, i),
                "lotgo": _span(self.lotgo, i),
                "alt_norm": _span({"zscore": self.zscore, "minmax": self.minmax}, i),
                "zscore": _int(self.zscore[i]),
                "minmax": _int(self.minmax[i]),
            }
            if intervals is not None:
                entry["bootstrap"] = list(intervals[i]) if intervals[i] is not None else None
            if self.ranked is not None and not self.ranked[i]:
                entry["ranked"] = False
                entry["missing"] = [
                    c.name
                    for c, v in zip(self.table.columns, self.table.values[i], strict=True)
                    if math.isnan(v)
                ]
            models[self.table.models[i]] = entry
        out: RobustnessJson = {
            "models": models,
            "columns": [
                {"name": c.name, "higher_is_better": c.higher_is_better, "group": c.group, "points": c.points}
                for c in self.table.columns
            ],
            "groups": self.table.groups(),
            "variants": {
                "lobo": {col: _by_model(self.table.models, r) for col, r in self.lobo.items()},
                "lotgo": {group: _by_model(self.table.models, r) for group, r in self.lotgo.items()},
            },
        }
        if bootstrap is not None:
            out["bootstrap"] = RankBootstrap(**bootstrap)
        return out


def _order_key(rank: float, index: int) -> tuple[bool, float, int]:
    return (math.isnan(rank), rank if not math.isnan(rank) else 0.0, index)


def _int(x: float) -> int | None:
    return None if math.isnan(x) else int(x)


def _float(x: float) -> float | None:
    return None if math.isnan(x) else float(x)


def _span(variants: dict[str, np.ndarray], i: int) -> list[int] | None:
    """[best, worst] rank of model i over the variants where it has one."""
    ranks = [r[i] for r in variants.values() if not math.isnan(r[i])]
    return [int(min(ranks)), int(max(ranks))] if ranks else None


def _by_model(models: Sequence[str], ranks: np.ndarray) -> dict[str, int | None]:
    return {m: _int(r) for m, r in zip(models, ranks, strict=True)}


def complete_rows(values: np.ndarray) -> np.ndarray:
    """Per model (rows of a models × columns table), whether it has every column."""
    return ~np.isnan(values).any(axis=-1)


def robustness(table: ScoreTable, *, mean_of_available: bool = False) -> Robustness:
    """The ranks of `table` under its published rule and under every variant; a model missing
    a column is unranked unless `mean_of_available` (see the module doc)."""
    ranked = np.ones(len(table.models), dtype=bool) if mean_of_available else complete_rows(table.values)
    flipped = np.where(ranked[:, None], table.flipped(), np.nan)

    def ranks_of(cols: np.ndarray) -> np.ndarray:
        return competition_ranks(mean_scores(cols))

    scores = mean_scores(flipped)
    names = [c.name for c in table.columns]
    lobo = {}
    if len(names) > 1:
        lobo = {name: ranks_of(np.delete(flipped, j, axis=1)) for j, name in enumerate(names)}
    lotgo = {}
    for group in table.groups():
        kept = [j for j, c in enumerate(table.columns) if c.group != group]
        if kept:
            lotgo[group] = ranks_of(flipped[:, kept])
    return Robustness(
        table=table,
        scores=scores,
        rank=competition_ranks(scores),
        lobo=lobo,
        lotgo=lotgo,
        zscore=ranks_of(zscore_columns(flipped)),
        minmax=ranks_of(minmax_columns(flipped)),
        ranked=ranked,
    )


def average_ranks(values: np.ndarray) -> np.ndarray:
    """Ranks 1…n of a 1-D array (1 for the smallest), ties sharing the mean of their ranks."""
    v = np.round(values, DECIMALS)
    order = np.argsort(v, kind="stable")
    ranks = np.empty(len(v), dtype=np.float64)
    sorted_v = v[order]
    start = 0
    while start < len(v):
        end = start
        while end + 1 < len(v) and sorted_v[end + 1] == sorted_v[start]:
            end += 1
        ranks[order[start : end + 1]] = (start + end) / 2.0 + 1.0
        start = end + 1
    return ranks


def spearman(x: np.ndarray, y: np.ndarray) -> tuple[float, int]:
    """(ρ, n) over the positions where both are defined; ρ is NaN for n < 2 or a constant side."""
    both = ~np.isnan(x) & ~np.isnan(y)
    n = int(both.sum())
    if n < 2:
        return math.nan, n
    rx, ry = average_ranks(x[both]), average_ranks(y[both])
    dx, dy = rx - rx.mean(), ry - ry.mean()
    denom = math.sqrt(float((dx * dx).sum() * (dy * dy).sum()))
    return (float((dx * dy).sum()) / denom if denom > 0 else math.nan), n


def spearman_json(table: ScoreTable) -> SpearmanJson:
    """`spearman.json`: ρ between every two columns with the models as observations (null
    where undefined), and how many models each ρ is over."""
    flipped = table.flipped()
    k = len(table.columns)
    matrix: list[list[float | None]] = [[None] * k for _ in range(k)]
    counts = [[0] * k for _ in range(k)]
    for a in range(k):
        for b in range(a, k):
            rho, n = spearman(flipped[:, a], flipped[:, b])
            matrix[a][b] = matrix[b][a] = _float(rho)
            counts[a][b] = counts[b][a] = n
    return {
        "columns": [c.name for c in table.columns],
        "matrix": matrix,
        "n": counts,
        "values": "flipped: 100 − x for lower-is-better metrics, higher is better everywhere",
    }


def resampled_ranks(
    values: np.ndarray, columns: Sequence[Column], ranked: np.ndarray | None = None
) -> np.ndarray:
    """(B, models) original-rule ranks of B resampled tables (B, models, columns); only the
    models `ranked` (default: all) take part."""
    flipped = flip(values, columns)
    if ranked is not None:
        flipped = np.where(ranked[None, :, None], flipped, np.nan)
    return competition_ranks(mean_scores(flipped))


def rank_intervals(ranks: np.ndarray, *, confidence: float = 0.95) -> list[tuple[int, int] | None]:
    """Per model, the percentile interval of its ranks over resamples (B, models), widened
    to whole ranks (the low end down, the high end up); None for a model never ranked."""
    out: list[tuple[int, int] | None] = []
    for col in ranks.T:
        lo, hi = percentile_ci(col, confidence)
        out.append(None if lo is None or hi is None else (math.floor(lo), math.ceil(hi)))
    return out
