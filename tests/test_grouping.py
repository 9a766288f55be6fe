"""One grouping and one bootstrap behind every breakdown (run summaries, MMAE, MMAR/MMAU)."""

from __future__ import annotations

import numpy as np

from audioeval.benchmarks.mcq.definitions import MMAU
from audioeval.core.record import SampleRecord, Score
from audioeval.core.sample import Sample
from audioeval.metrics.bootstrap import binary_mean_ci, bootstrap_mean_ci
from audioeval.metrics.corpus import breakdown, get_metric
from audioeval.metrics.grouping import group_by, taxonomy_groups
from audioeval.metrics.pair_summary import PairMetrics, summarise_records


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


def _record(sid: str, taxonomy: dict, correct: int) -> SampleRecord:
    rec = SampleRecord(sid, Sample(sid, {}, {}, taxonomy))
    rec.scores = {"mcq_match": Score({}, {"correct": correct})}
    return rec


def test_declared_groups_come_first_kept_empty_then_first_seen() -> None:
    """MMAU's task axis as the engine lists it: fixed groups in order (an empty one kept, with
    no value), then the others in the order the samples first name them."""
    recs = [
        _record("a", {"task": "other", "sub-category": "y"}, 1),
        _record("b", {"task": "music", "sub-category": "x"}, 0),
        _record("c", {"sub-category": "y"}, 1),
    ]
    axes = {a.name: (a.fixed, "first_seen") for a in MMAU.axes}
    plan = PairMetrics([get_metric("accuracy")], [a.name for a in MMAU.axes], groups=axes)
    out = summarise_records(plan, recs, resamples=20)["breakdowns"]
    assert list(out["task"]) == ["sound", "music", "speech", "other"]
    assert out["task"]["sound"]["accuracy"]["n"] == 0 and out["task"]["sound"]["accuracy"]["value"] is None
    assert out["task"]["other"]["accuracy"]["total"] == 1 and out["task"]["other"]["accuracy"]["count"] == 1
    assert list(out["sub-category"]) == ["y", "x"]  # first seen, not sorted
    assert list(out["difficulty"]) == ["easy", "hard", "medium"]
    sorted_plan = PairMetrics([get_metric("accuracy")], ["sub-category"])
    assert list(summarise_records(sorted_plan, recs, resamples=20)["breakdowns"]["sub-category"]) == [
        "x",
        "y",
    ]


def test_binary_bootstrap_matches_resampling_in_distribution() -> None:
    assert binary_mean_ci(0, 0) == (None, None)
    assert binary_mean_ci(5, 5) == (1.0, 1.0) and binary_mean_ci(0, 4, n_resamples=10, seed=0) == (0.0, 0.0)
    lo, hi = binary_mean_ci(300, 500, n_resamples=4000, seed=1)
    outcomes = np.array([1.0] * 300 + [0.0] * 200)
    ref_lo, ref_hi = bootstrap_mean_ci(outcomes, n_resamples=4000, seed=1)
    assert lo is not None and hi is not None and ref_lo is not None and ref_hi is not None
    assert abs(lo - ref_lo) < 0.01 and abs(hi - ref_hi) < 0.01


def test_a_declared_cross_puts_a_sample_in_each_pair_of_its_groups() -> None:
    """A cross of two keys (MMAE's modality × complexity): the group `a|b` of every pair of a
    sample's groups, each the value a group of exactly those samples gives; the summary names
    the keys crossed. A sample with two values of a key (an operation list) is in both."""
    recs = [
        _record("a", {"m": "speech", "c": "single", "op": ["add", "cut"]}, 1),
        _record("b", {"m": "speech", "c": "multi", "op": ["add"]}, 0),
        _record("c", {"m": "music", "c": "single", "op": ["cut"]}, 1),
        _record("d", {"m": "speech", "c": "single", "op": []}, 0),
    ]
    plan = PairMetrics(
        [get_metric("accuracy")], ["m", "c", "op"], crosses={"m_x_c": ("m", "c"), "m_x_op": ("m", "op")}
    )
    got = summarise_records(plan, recs, resamples=20, seed=1)
    assert got["crosses"] == {"m_x_c": ["m", "c"], "m_x_op": ["m", "op"]}
    assert list(got["breakdowns"]["m_x_c"]) == ["music|single", "speech|multi", "speech|single"]
    assert list(got["breakdowns"]["m_x_op"]) == ["music|cut", "speech|add", "speech|cut"]
    for cross, members in (
        ("m_x_c", {"speech|single": "ad", "speech|multi": "b"}),
        ("m_x_op", {"speech|add": "ab"}),
    ):
        for group, ids in members.items():
            alone = summarise_records(
                PairMetrics([get_metric("accuracy")]), [r for r in recs if r.id in ids], resamples=20, seed=1
            )
            figures = {
                name: {k: block[k] for k in got["breakdowns"][cross][group][name]}
                for name, block in alone["metrics"].items()
            }
            assert got["breakdowns"][cross][group] == figures, (
                cross,
                group,
            )  # the overall blocks add the declaration
    assert "crosses" not in summarise_records(PairMetrics([get_metric("accuracy")], ["m"]), recs, resamples=0)


def test_a_spec_names_only_its_taxonomy_keys_in_a_cross() -> None:
    import pytest
    from pydantic import ValidationError

    from audioeval.benchmarks.spec import BenchmarkSpec

    base = {
        "name": "x",
        "task": "mcq",
        "source": {"type": "jsonl", "path": "x.jsonl"},
        "taxonomy": ["a", "b"],
    }
    assert BenchmarkSpec(**base, crosses={"a_x_b": ["a", "b"]}).crosses == {"a_x_b": ["a", "b"]}
    for bad, words in (
        ({"a_x_c": ["a", "c"]}, "'c' is not a taxonomy key"),
        ({"a_x_a": ["a", "a"]}, "two or more distinct"),
        ({"just_a": ["a"]}, "two or more distinct"),
        ({"a": ["a", "b"]}, "is a taxonomy key already"),
    ):
        with pytest.raises(ValidationError, match=words):
            BenchmarkSpec(**base, crosses=bad)
