"""One grouping and one bootstrap behind every breakdown (run summaries, MMAE, MMAR/MMAU)."""

from __future__ import annotations

import numpy as np

from audioeval.benchmarks.mcq.aggregate import binary_ci, grouped
from audioeval.benchmarks.mcq.definitions import MMAU
from audioeval.metrics.bootstrap import binary_mean_ci, bootstrap_mean_ci
from audioeval.metrics.corpus import breakdown
from audioeval.metrics.grouping import group_by, taxonomy_groups


def test_taxonomy_groups_of_values() -> None:
    assert taxonomy_groups("en") == ["en"]
    assert taxonomy_groups(3) == ["3"]
    assert taxonomy_groups(None) == []
    assert taxonomy_groups(None, missing="(missing)") == ["(missing)"]
    assert taxonomy_groups(["b", "a", "b", None]) == ["b", "a"]
    assert taxonomy_groups([]) == []


def test_group_by_keeps_fixed_groups_first_then_first_seen() -> None:
    rows = [{"k": ["x"]}, {"k": ["y", "x"]}, {"k": []}]
    groups = group_by(rows, lambda r: r["k"], fixed=("z", "y"))
    assert list(groups) == ["z", "y", "x"]
    assert groups["z"] == [] and groups["x"] == [rows[0], rows[1]]


def test_corpus_breakdown_counts_a_sample_once_per_group() -> None:
    records = [
        ({"tags": ["a", "a", None]}, {"correct": 1}),
        ({"tags": ["a"]}, {"correct": 0}),
        ({}, {"correct": 1}),
    ]
    out = breakdown("accuracy", records, ["tags"], resamples=50, seed=0)
    assert sorted(out["tags"]) == ["(missing)", "a"]
    assert (out["tags"]["a"].n, out["tags"]["a"].value) == (2, 0.5)


def test_mcq_axes_group_like_before() -> None:
    rows = [{"task": "other"}, {"task": "music"}, {"task": None}, {"sub-category": "x"}]
    groups = grouped(rows, MMAU)
    assert list(groups["task"]) == ["sound", "music", "speech", "other"]
    assert groups["task"]["sound"] == [] and groups["task"]["other"] == [rows[0]]
    assert groups["sub-category"] == {"x": [rows[3]]}


def test_binary_bootstrap_matches_resampling_in_distribution() -> None:
    assert binary_mean_ci(0, 0) == (None, None)
    assert binary_mean_ci(5, 5) == (1.0, 1.0) and binary_ci(0, 4, n_resamples=10, seed=0) == [0.0, 0.0]
    lo, hi = binary_mean_ci(300, 500, n_resamples=4000, seed=1)
    outcomes = np.array([1.0] * 300 + [0.0] * 200)
    ref_lo, ref_hi = bootstrap_mean_ci(outcomes, n_resamples=4000, seed=1)
    assert lo is not None and hi is not None and ref_lo is not None and ref_hi is not None
    assert abs(lo - ref_lo) < 0.01 and abs(hi - ref_hi) < 0.01
    assert binary_ci(300, 500, n_resamples=4000, seed=1) == [round(lo * 100, 2), round(hi * 100, 2)]
