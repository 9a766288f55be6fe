"""`audioeval judge-eval`'s data and figures: the AnyAudio-Judge Bench loader (JSONL,
save_to_disk, parquet, a local copy of the hub layout), row validation, the binary judge
metrics against hand-computed values, the summary and its printout."""

from __future__ import annotations

import hashlib
import io
import itertools
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import soundfile as sf
from rich.console import Console

from audioeval.benchmarks.anyaudio_bench.loading import HUB_REPO, hub_name, load_bench
from audioeval.benchmarks.anyaudio_bench.rows import JudgeEvalRow, judge_eval_row
from audioeval.benchmarks.anyaudio_bench.schema import is_unscored
from audioeval.benchmarks.anyaudio_bench.tuned import tuned_threshold
from audioeval.core.errors import InputError
from audioeval.metrics import binary_judge as bj
from audioeval.metrics.bootstrap import resampled_statistic, resampled_sums
from audioeval.report.judge_eval_table import print_judge_eval_summary
from tests.judge_eval_helpers import rows_summary

datasets = pytest.importorskip("datasets")

ITEM = {"dimension": "gender", "question": "Is the speaker female?", "basis": "a woman"}


def _wav(hz: int) -> bytes:
    t = np.arange(1600) / 16000
    buf = io.BytesIO()
    sf.write(buf, (0.2 * np.sin(2 * np.pi * hz * t)).astype(np.float32), 16000, format="WAV")
    return buf.getvalue()


def _rows() -> list[dict[str, Any]]:
    """Four valid rows: the paper's subsets out of order, an unknown subset, an empty rubric."""
    return [
        {"uuid": "u1", "caption": "a woman speaks", "label": "yes", "type": "pos", "subset": "speech"},
        {"uuid": "u2", "caption": "rain falls", "label": "NO", "type": "neg_swap", "subset": "sound"},
        {"uuid": "u3", "caption": "jazz trio", "label": "no", "type": "neg_odd", "subset": "lab"},
        {"uuid": "u4", "caption": "a dog", "label": "yes", "type": "pos_clap", "subset": "sound_gen"},
    ]


def _rubrics() -> list[list[dict[str, str]]]:
    return [[ITEM], [ITEM, {"dimension": "", "question": "Is it raining?", "basis": ""}], [ITEM], []]


def _write_jsonl(folder: Path, rows: list[dict[str, Any]], name: str = "bench.jsonl") -> Path:
    (folder / "audio").mkdir(parents=True, exist_ok=True)
    lines = []
    for k, row in enumerate(rows):
        if "audio" not in row:
            (folder / "audio" / f"{k}.wav").write_bytes(_wav(300 + 50 * k))
            row = {**row, "audio": f"audio/{k}.wav"}
        lines.append(json.dumps(row, ensure_ascii=False))
    path = folder / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _dataset() -> Any:
    rows = _rows()
    columns: dict[str, list[Any]] = {key: [r[key] for r in rows] for key in rows[0]}
    columns["audio"] = [{"bytes": _wav(300 + 50 * k), "path": f"{k}.wav"} for k in range(len(rows))]
    columns["rubric"] = _rubrics()
    return datasets.Dataset.from_dict(columns).cast_column("audio", datasets.Audio())


def _view(ss) -> list[tuple[Any, ...]]:
    """What a sample holds, the audio as the SHA-256 of its file's bytes."""
    return [
        (
            s.id,
            dict(s.fields),
            dict(s.taxonomy),
            hashlib.sha256(Path(s.audio["audio"].path).read_bytes()).hexdigest(),
        )
        for s in ss.samples
    ]


@pytest.fixture()
def cache(tmp_path: Path) -> Path:
    return tmp_path / "cache"


def test_jsonl_save_to_disk_and_parquet_read_to_the_same_samples(tmp_path: Path, cache: Path) -> None:
    rows = [{**r, "rubric": rub} for r, rub in zip(_rows(), _rubrics(), strict=True)]
    jsonl = _write_jsonl(tmp_path / "j", rows)
    ds = _dataset()
    ds.save_to_disk(str(tmp_path / "saved"))
    datasets.DatasetDict({"test": ds}).save_to_disk(str(tmp_path / "saved_dict"))
    ds.to_parquet(str(tmp_path / "bench.parquet"))
    (tmp_path / "hub" / "en").mkdir(parents=True)
    ds.to_parquet(str(tmp_path / "hub" / "en" / "test-00000-of-00001.parquet"))

    want = _view(load_bench(jsonl, cache_dir=cache))
    assert [w[0] for w in want] == ["u1", "u2", "u3", "u4"]
    first = want[0]
    assert first[1] == {
        "caption": "a woman speaks",
        "label": "yes",
        "type": "pos",
        "subset": "speech",
        "rubric": [ITEM],
        "unscored": False,
    }
    assert first[2] == {"subset": "speech", "type": "pos"}
    assert want[1][1]["label"] == "no"  # case-insensitive, lower case
    assert want[2][2] == {"subset": "lab", "type": "neg_odd"}  # unknown values kept
    for source in (tmp_path / "saved", tmp_path / "saved_dict", tmp_path / "bench.parquet", tmp_path / "hub"):
        ss = load_bench(source, cache_dir=cache)
        assert _view(ss) == want, source
        assert ss.skipped == []
    # embedded audio is written once, content-addressed, under the cache folder
    assert all(
        Path(s.audio["audio"].path).is_relative_to(cache)
        for s in load_bench(tmp_path / "saved", cache_dir=cache).samples
    )
    assert [s.id for s in load_bench(jsonl, cache_dir=cache, limit=2).samples] == ["u1", "u2"]


def test_empty_rubric_is_kept_and_marked_unscored(tmp_path: Path) -> None:
    rows = [{**r, "rubric": rub} for r, rub in zip(_rows(), _rubrics(), strict=True)]
    rows.append({**_rows()[0], "uuid": "u5", "rubric": None})
    ss = load_bench(_write_jsonl(tmp_path, rows))
    by_id = {s.id: s for s in ss.samples}
    assert [sid for sid, s in by_id.items() if is_unscored(s)] == ["u4", "u5"]
    assert by_id["u4"].get("unscored") is True and by_id["u4"].get("rubric") == []
    assert not ss.skipped


def test_items_with_an_empty_question_are_kept_as_the_official(tmp_path: Path) -> None:
    # official-rules.md §3.7: each field the first non-empty of its English and Chinese keys,
    # else ""; no item is dropped for an empty question
    rubric = [
        ITEM,
        {"dimension": "pitch", "question": " "},
        {"dimension": "", "维度": "音高", "question": None, "题目": "声音高吗？"},
        {"维度": "节奏"},
    ]
    rows = [{**_rows()[0], "rubric": rubric}]
    ss = load_bench(_write_jsonl(tmp_path, rows))
    assert not ss.skipped and not is_unscored(ss.samples[0])
    assert ss.samples[0].get("rubric") == [
        ITEM,
        {"dimension": "pitch", "question": "", "basis": ""},
        {"dimension": "音高", "question": "声音高吗？", "basis": ""},
        {"dimension": "节奏", "question": "", "basis": ""},
    ]


def test_bad_rows_are_skipped_with_file_uuid_and_field(tmp_path: Path) -> None:
    good = {"caption": "c", "type": "pos", "subset": "speech", "rubric": [ITEM]}
    rows = [
        {"uuid": "ok1", "label": "yes", **good},
        {"uuid": "nolabel", **good},
        {"uuid": "maybe", "label": "maybe", **good},
        {"uuid": "ok1", "label": "no", **good},
        {"uuid": "notlist", "label": "yes", **{**good, "rubric": "Is it loud?"}},
        {
            "uuid": "noq",
            "label": "yes",
            **{**good, "rubric": [ITEM, {"dimension": "pitch", "question": 5}]},
        },
        {"uuid": "", "label": "yes", **good},
        {"uuid": "nosubset", "label": "yes", **{k: v for k, v in good.items() if k != "subset"}},
        {"uuid": "noaudio", "label": "yes", "audio": "audio/missing.wav", **good},
        {"uuid": "ok2", "label": "No", **good},
    ]
    path = _write_jsonl(tmp_path, rows)
    ss = load_bench(path)
    assert [s.id for s in ss.samples] == ["ok1", "ok2"]
    got = {(e.sample_id, e.field, e.line) for e in ss.skipped}
    assert got == {
        ("nolabel", "label", 2),
        ("maybe", "label", 3),
        ("ok1", "uuid", 4),
        ("notlist", "rubric", 5),
        ("noq", "rubric[1].question", 6),
        (None, "uuid", 7),
        ("nosubset", "subset", 8),
        ("noaudio", "audio", 9),
    }
    assert all(e.file == str(path) for e in ss.skipped)
    text = {e.sample_id: e.describe() for e in ss.skipped}
    assert (
        "bench.jsonl:3" in text["maybe"] and "field 'label'" in text["maybe"] and "'maybe'" in text["maybe"]
    )
    assert "duplicate uuid (first at line 1)" in text["ok1"]
    assert "expected a list" in text["notlist"] and "got str" in text["notlist"]
    assert "expected a string, got int" in text["noq"]
    assert "missing field" in text["nolabel"]
    assert "audio file not found" in text["noaudio"]


def test_a_bad_dataset_row_names_the_row_when_it_has_no_uuid(tmp_path: Path) -> None:
    ds = datasets.Dataset.from_dict(
        {
            "uuid": ["a", None, "c"],
            "audio": [{"bytes": _wav(300), "path": "a.wav"}] * 3,
            "caption": ["x", "y", "z"],
            "label": ["yes", "no", "perhaps"],
            "type": ["pos"] * 3,
            "subset": ["music"] * 3,
            "rubric": [[ITEM]] * 3,
        }
    ).cast_column("audio", datasets.Audio())
    ds.to_parquet(str(tmp_path / "b.parquet"))
    ss = load_bench(tmp_path / "b.parquet", cache_dir=tmp_path / "cache")
    assert [s.id for s in ss.samples] == ["a"]
    first, second = ss.skipped
    assert first.sample_id is None and first.field == "uuid" and "row 1" in first.describe()
    assert second.sample_id == "c" and second.field == "label" and str(tmp_path / "b.parquet") == second.file


def test_configurations_hub_names_and_the_local_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AUDIOEVAL_DATA", raising=False)
    ds = _dataset()
    hub = tmp_path / "root" / "AnyAudio-Judge-Bench"
    for config, n in (("en", 4), ("zh", 2)):
        (hub / config).mkdir(parents=True)
        ds.select(range(n)).to_parquet(str(hub / config / "test-00000-of-00001.parquet"))
    cache = tmp_path / "cache"
    with pytest.raises(InputError, match="several configurations"):
        load_bench(hub, cache_dir=cache)
    assert len(load_bench(hub, config="zh", cache_dir=cache).samples) == 2
    # a hub name reads the local copy under the data root, never the hub
    assert (
        len(load_bench("AnyAudio-Judge-Bench/zh", data_root_dir=tmp_path / "root", cache_dir=cache).samples)
        == 2
    )
    monkeypatch.setenv("AUDIOEVAL_DATA", str(tmp_path / "root"))
    assert len(load_bench(f"{HUB_REPO}:en", cache_dir=cache).samples) == 4

    assert hub_name("AnyAudio-Judge-Bench/en") == (HUB_REPO, "en")
    assert hub_name("cucl2/AnyAudio-Judge-Bench:zh") == (HUB_REPO, "zh")
    assert hub_name("someone/bench", "en") == ("someone/bench", "en")
    with pytest.raises(InputError, match="'en' in the name but 'zh'"):
        hub_name("AnyAudio-Judge-Bench/en", "zh")
    monkeypatch.delenv("AUDIOEVAL_DATA")
    with pytest.raises(InputError, match="choose a configuration"):
        load_bench("AnyAudio-Judge-Bench")
    with pytest.raises(InputError, match="not found"):
        load_bench(tmp_path / "missing.jsonl")


# ---------------------------------------------------------------- metrics

SCORES = [0.1, 0.4, 0.35, 0.8, 0.4, 0.9, 0.4]
LABELS = [False, False, True, True, True, True, False]


def test_binary_metrics_against_hand_computed_values() -> None:
    # yes scores 0.35 0.8 0.4 0.9 against no scores 0.1 0.4 0.4: wins 1 + 3 + (1 + ½ + ½) + 3 = 9 of 12
    assert bj.auroc(SCORES, LABELS) == bj.Auroc(0.75)
    # at 0.5: yes predicted for 0.8 and 0.9 only; recalls yes 2/4, no 3/3
    assert bj.accuracy(SCORES, LABELS, 0.5) == pytest.approx(5 / 7)
    assert bj.balanced_accuracy(SCORES, LABELS, 0.5) == pytest.approx(0.75)
    assert bj.accuracy(SCORES, LABELS, 0.4) == pytest.approx(4 / 7)  # a score equal to it is yes
    # bins 1: |0.1-0|, 3: |0.35-1|, 4: |1.2-1|, 8: |0.8-1|, 9: |0.9-1| -> 1.25 / 7
    assert bj.expected_calibration_error(SCORES, LABELS) == pytest.approx(1.25 / 7)
    only_yes = bj.auroc([0.2, 0.7], [True, True])
    assert only_yes.value is None and "no 'no' sample" in (only_yes.reason or "")
    assert bj.auroc([], []).reason == "undefined: no sample"
    assert bj.balanced_accuracy([0.2, 0.7], [True, True], 0.5) == pytest.approx(0.5)  # one class: its recall


def test_auroc_equals_pair_counting_with_ties() -> None:
    rng = np.random.default_rng(7)
    scores = np.round(rng.random(60), 1)  # many ties
    labels = rng.random(60) < 0.5
    pairs = [
        1.0 if a > b else 0.5 if a == b else 0.0
        for a, b in itertools.product(scores[labels], scores[~labels])
    ]
    assert bj.auroc(scores, labels).value == pytest.approx(np.mean(pairs))


def test_tuning_picks_the_best_midpoint_closest_to_one_half() -> None:
    # candidates 0.225 (5/7), 0.375 (4/7), 0.6 (5/7), 0.85 (4/7): 0.6 is closer to 0.5
    tuned = bj.tune_threshold(SCORES, LABELS)
    assert tuned == bj.TunedThreshold(0.6, pytest.approx(5 / 7), 7)
    assert bj.tune_threshold([0.2, 0.3, 0.7, 0.9], [False, False, True, True]).value == 0.5
    assert bj.tune_threshold([0.1, 0.2, 0.3, 0.9], [False, True, False, True]).value == 0.6
    assert bj.tune_threshold([0.5, 0.5], [True, False]).value == 0.5  # no candidate
    rows = [
        JudgeEvalRow(f"d{k}", "speech", "pos", "yes" if y else "no", s)
        for k, (s, y) in enumerate(zip(SCORES, LABELS, strict=True))
    ]
    rows.append(JudgeEvalRow("dx", "speech", "pos", "yes", None, True))
    assert tuned_threshold(rows).value == 0.6


def test_bootstrap_cis_are_seeded_and_bracket_the_estimate() -> None:
    rng = np.random.default_rng(3)
    scores = rng.random(300)
    labels = rng.random(300) < scores
    a = bj.bootstrap_cis(scores, labels, 0.5, n_resamples=400, seed=11)
    assert a == bj.bootstrap_cis(scores, labels, 0.5, n_resamples=400, seed=11)
    assert a != bj.bootstrap_cis(scores, labels, 0.5, n_resamples=400, seed=12)
    for (lo, hi), value in (
        (a.accuracy, bj.accuracy(scores, labels)),
        (a.balanced_accuracy, bj.balanced_accuracy(scores, labels)),
        (a.auroc, bj.auroc(scores, labels).value),
    ):
        assert lo is not None and hi is not None and value is not None
        assert lo < value < hi and hi - lo < 0.2
    # the one bootstrap: a statistic of draw counts sees the resamples `resampled_sums` sees
    table = rng.random((50, 2))
    same = resampled_statistic(50, lambda w: w @ table, n_resamples=300, seed=5, max_cells=700)
    assert np.allclose(same, resampled_sums(table, n_resamples=300, seed=5))
    assert bj.bootstrap_cis([], []) == bj.BinaryCis((None, None), (None, None), (None, None))


# ---------------------------------------------------------------- summary and printout


def _summary_rows() -> list[JudgeEvalRow]:
    rows = [
        JudgeEvalRow("m1", "music", "pos", "yes", 0.9),
        JudgeEvalRow("m2", "music", "neg_swap", "no", 0.2),
        JudgeEvalRow("m3", "music", "neg_change", "no", 0.6),  # wrong
        JudgeEvalRow("m4", "music", "pos", "yes", 0.6),
        JudgeEvalRow("s1", "speech", "pos", "yes", 0.3),  # wrong
        JudgeEvalRow("s2", "speech", "neg_swap", "no", 0.1),
        JudgeEvalRow("x1", "zz_new", "pos", "YES", 0.7),
        JudgeEvalRow("s3", "speech", "pos", "yes", None),  # unscored
        JudgeEvalRow("s4", "speech", "neg_gemini", "no", 0.9, True),  # failed: never scored
    ]
    return rows


def test_summary_shape_and_values() -> None:
    s = rows_summary(
        _summary_rows(), threshold=0.5, threshold_source="default", n_resamples=200, seed=0
    )
    assert list(s["subsets"]) == ["speech", "music", "zz_new"]  # paper order, then others
    speech, music, new = s["subsets"].values()
    assert speech["n"] == 2 and speech["accuracy"] == 50.0 and speech["balanced_accuracy"] == 50.0
    assert speech["auroc"] == 1.0 and speech["unscored"] == 1 and speech["failed"] == 1
    assert music["n"] == 4 and music["accuracy"] == 75.0 and music["auroc"] == 0.875
    assert music["accuracy_ci"][0] <= 75.0 <= music["accuracy_ci"][1]
    assert new["auroc"] is None and new["auroc_ci"] is None and "no 'no' sample" in new["auroc_reason"]
    for group in s["subsets"].values():
        assert set(group) >= {"n", "accuracy", "accuracy_ci", "auroc", "auroc_ci", "balanced_accuracy"}
        assert "balanced_accuracy_ci" in group
    overall = s["overall"]
    assert overall["n"] == 7 and overall["accuracy"] == round(5 / 7 * 100, 2)
    assert overall["accuracy_macro"] == round((50 + 75 + 100) / 3, 2)
    assert overall["accuracy_macro_ci"] is not None and overall["auroc_ci"] is not None
    assert overall["auroc"] == round(
        bj.auroc([0.9, 0.2, 0.6, 0.6, 0.3, 0.1, 0.7], [1, 0, 0, 1, 1, 0, 1]).value, 4
    )
    assert list(s["types"]) == ["pos", "neg_swap", "neg_change"]
    assert s["types"]["pos"] == {"n": 4, "accuracy": 75.0, "accuracy_ci": s["types"]["pos"]["accuracy_ci"]}
    assert s["unscored"] == {"n": 1, "ids": ["s3"]}
    assert s["failed"] == {"n": 1, "ids": ["s4"]}
    assert s["threshold"] == {"value": 0.5, "source": "default"}
    assert s["n"] == 9 and s["n_scored"] == 7 and isinstance(s["ece"], float)
    json.dumps(s)  # plain JSON
    assert s == rows_summary(
        _summary_rows(), threshold=0.5, threshold_source="default", n_resamples=200, seed=0
    )
    tuned = rows_summary(
        _summary_rows(),
        threshold=0.6,
        threshold_source="tuned on dev.jsonl",
        tuning=bj.TunedThreshold(0.6, 0.8, 10),
        n_resamples=50,
    )
    assert tuned["threshold"] == {
        "value": 0.6,
        "source": "tuned on dev.jsonl",
        "dev_n": 10,
        "dev_accuracy": 80.0,
    }
    with pytest.raises(InputError, match="id 'u', field 'label': expected yes or no"):
        rows_summary([("u", "speech", "pos", "maybe", 0.3, False)])


def test_rows_from_samples_never_score_an_unscored_sample(tmp_path: Path) -> None:
    rows = [{**r, "rubric": rub} for r, rub in zip(_rows(), _rubrics(), strict=True)]
    samples = load_bench(_write_jsonl(tmp_path, rows)).samples
    got = [judge_eval_row(s, 0.8, failed=s.id == "u2") for s in samples]
    assert got[0] == JudgeEvalRow("u1", "speech", "pos", "yes", 0.8, False)
    assert got[1].failed and got[3] == JudgeEvalRow("u4", "sound_gen", "pos_clap", "yes", None, False)
    s = rows_summary(got, n_resamples=20)
    assert s["unscored"]["ids"] == ["u4"] and s["failed"]["ids"] == ["u2"]


def test_printout_lists_subsets_overall_macro_counts_and_threshold() -> None:
    rows = [*_summary_rows(), JudgeEvalRow("r1", "[red]odd[/red]", "pos", "yes", 0.8)]
    s = rows_summary(rows, threshold=0.6, threshold_source="--threshold", n_resamples=50)
    console = Console(record=True, width=220)
    print_judge_eval_summary(s, console=console)
    text = console.export_text()
    for needle in (
        "speech",
        "music",
        "[red]odd[/red]",  # a name from the data is shown literally
        "overall (pooled)",
        "macro average",
        "unscored (empty rubric) 1",
        "failed (judge) 1",
        "threshold 0.6 (--threshold)",
        "AUROC",
        "ECE",
    ):
        assert needle in text, needle
    assert "avg" in text and f"{s['overall']['accuracy_macro']:.2f}" in text


def test_the_pair_summary_computes_the_judge_figures_of_binary_judge() -> None:
    """judge-eval's figures are the engine's corpus metrics over the rows' stats: each equals
    `metrics/binary_judge.py`'s statistic of the same rows, CIs from the same resamples."""
    from audioeval.benchmarks.anyaudio_bench.items_scorer import AnyAudioItemsScorer
    from audioeval.core.record import Score
    from audioeval.core.sample import Sample
    from audioeval.metrics.corpus import aggregate_all, get_metric

    rng = np.random.default_rng(7)
    scores = np.round(rng.random(120), 2)
    labels = rng.random(120) < scores
    subsets = [("speech", "music", "sound")[k % 3] for k in range(120)]
    scorer = AnyAudioItemsScorer(threshold=0.6)
    stats = [
        scorer.labelled(
            Score({"rubric_score": float(s)}, {"rubric_score": float(s)}),
            Sample(f"r{k}", {}, {"label": "yes" if y else "no", "subset": g}),
        ).stats
        for k, (s, y, g) in enumerate(zip(scores, labels, subsets, strict=True))
    ]
    names = ("accuracy", "balanced_accuracy", "auroc", "ece", "macro_accuracy")
    got = dict(zip(names, aggregate_all([(get_metric(n), stats) for n in names], resamples=300, seed=4), strict=True))
    cis = bj.bootstrap_cis(scores, labels, 0.6, n_resamples=300, seed=4)
    assert got["accuracy"].value == pytest.approx(bj.accuracy(scores, labels, 0.6))
    assert got["balanced_accuracy"].value == pytest.approx(bj.balanced_accuracy(scores, labels, 0.6))
    assert got["auroc"].value == pytest.approx(bj.auroc(scores, labels).value)
    assert got["ece"].value == pytest.approx(bj.expected_calibration_error(scores, labels))
    for name, ci in (("accuracy", cis.accuracy), ("balanced_accuracy", cis.balanced_accuracy), ("auroc", cis.auroc)):
        assert (got[name].ci_low, got[name].ci_high) == pytest.approx(ci)
    right = (scores >= 0.6) == labels
    groups = np.array([("speech", "music", "sound").index(g) for g in subsets])
    assert got["macro_accuracy"].value == pytest.approx(np.mean([right[groups == k].mean() for k in range(3)]))
    macro = bj.bootstrap_macro_accuracy_ci(right, groups, n_resamples=300, seed=4)
    assert (got["macro_accuracy"].ci_low, got["macro_accuracy"].ci_high) == pytest.approx(macro)
    one_class = [s for s in stats if s["label_yes"]]
    assert aggregate_all([(get_metric("auroc"), one_class)], resamples=50)[0].value is None
