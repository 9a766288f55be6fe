"""`audioeval leaderboard RUN_DIR…`: every board over stored run directories, with board score
CIs and paired-bootstrap p-values between adjacent ranks; its page and `audioeval rank`'s page
drawn in a headless browser, escaped."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from audioeval.cli.main import app
from tests.run_helpers import tone_asr_manifest, tone_mcq_manifest
from tests.test_report import dump_dom

runner = CliRunner()
PAYLOAD = "<img src=x onerror=alert(1)>"
EVIL = f"constant:{PAYLOAD}"


def _run(out: Path, specs: list[Path], models: list[str]) -> Path:
    args = ["run", "-o", str(out), "--no-progress", "--resamples", "200"]
    args += [x for s in specs for x in ("-b", str(s))] + [x for m in models for x in ("-m", m)]
    res = runner.invoke(app, args, catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Two runs of the same ASR and MCQ sets with different models (the choice baselines
    skip the ASR set)."""
    root = tmp_path_factory.mktemp("leaderboard_runs")
    asr, mcq = tone_asr_manifest(root / "asr", n=8), tone_mcq_manifest(root / "mcq", n=12)
    specs = [root / "tones-asr.yaml", root / "tones-mcq.yaml"]
    specs[0].write_text(f"name: tones-asr\ntask: asr\nsource: {{type: jsonl, path: {asr}}}\n")
    specs[1].write_text(f"name: tones-mcq\ntask: mcq\nsource: {{type: jsonl, path: {mcq}}}\n")
    run1 = _run(root / "run1", specs, ["oracle", "constant:hello"])
    run2 = _run(root / "run2", specs, ["random-choice:0", "longest-choice", EVIL])
    return run1, run2


def _leaderboard(out: Path, *args: str) -> tuple[Any, dict[str, Any]]:
    res = runner.invoke(app, ["leaderboard", *args, "-o", str(out)], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return res, json.loads((out / "leaderboard.json").read_text(encoding="utf-8"))


def _rows(board: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {row["model"]: row for row in board["rows"]}


def test_boards_are_each_runs_own_boards_joined(runs: tuple[Path, Path], tmp_path: Path) -> None:
    res, doc = _leaderboard(tmp_path / "lb", *map(str, runs))
    assert list(doc["boards"]) == ["understanding", "reasoning"]
    for run in runs:
        own = json.loads((run / "summary.json").read_text(encoding="utf-8"))["boards"]
        for name, board in own.items():
            joined = _rows(doc["boards"][name])
            for row in board["rows"]:
                assert joined[row["model"]]["cells"] == row["cells"]  # values, CIs, n as stored
                assert joined[row["model"]]["average"] == row["average"]
    understanding = [r["model"] for r in doc["boards"]["understanding"]["rows"]]
    assert understanding == ["oracle", "constant:hello", EVIL]  # no choice baseline on ASR
    reasoning = doc["boards"]["reasoning"]["rows"]
    assert [r["model"] for r in reasoning][:3] == ["oracle", "longest-choice", "random-choice:0"]
    assert "Understanding leaderboard" in res.output and "Reasoning (MMAR, MMAU) leaderboard" in res.output


def test_adjacent_ranks_get_paired_bootstrap_p_values(runs: tuple[Path, Path], tmp_path: Path) -> None:
    res, doc = _leaderboard(tmp_path / "lb", *map(str, runs), "--resamples", "500", "--seed", "3")
    assert doc["bootstrap"]["resamples"] == 500 and doc["bootstrap"]["seed"] == 3
    assert "paired bootstrap" in doc["bootstrap"]["method"]
    for board in doc["boards"].values():
        rows = board["rows"]
        assert rows[-1]["adjacent"] is None
        for above, below in zip(rows, rows[1:], strict=False):
            test = above["adjacent"]
            assert (test["above"], test["below"]) == (above["model"], below["model"])
            assert test["method"] == "paired bootstrap" and test["n_resamples"] == 500
            assert 0.0 <= test["p"] <= 1.0
    understanding = _rows(doc["boards"]["understanding"])
    oracle = understanding["oracle"]
    assert oracle["score"] == 100.0 and oracle["score_ci"] == [100.0, 100.0]
    assert oracle["adjacent"]["difference"] == 100.0 and oracle["adjacent"]["p"] < 0.01
    assert oracle["adjacent"]["samples"] == {"tones-asr": 8}
    assert understanding["constant:hello"]["adjacent"]["p"] == 1.0  # tied: both WER 100 %
    reasoning = _rows(doc["boards"]["reasoning"])
    chance = reasoning["random-choice:0"]
    lo, hi = chance["score_ci"]
    assert lo < chance["score"] < hi  # the board score's CI: its accuracy's, here
    assert reasoning["longest-choice"]["adjacent"]["p"] < 0.05
    assert 0.0 < chance["adjacent"]["p"] < 0.1  # 4 of 12 right vs none: a resample can draw 0 of 4
    # the same seed gives the same p-values
    _, again = _leaderboard(tmp_path / "again", *map(str, runs), "--resamples", "500", "--seed", "3")
    assert _rows(again["boards"]["reasoning"])["random-choice:0"]["adjacent"] == chance["adjacent"]
    md = (tmp_path / "lb" / "leaderboard.md").read_text(encoding="utf-8")
    assert "board scores and adjacent ranks" in md and "&lt; 0.002" in md
    assert PAYLOAD not in md and "constant:&lt;img src=x onerror=alert(1)&gt;" in md
    assert "< 0.002" in res.output and "paired bootstrap" in res.output


def test_a_pair_whose_records_were_deleted_is_refused(runs: tuple[Path, Path], tmp_path: Path) -> None:
    copy = tmp_path / "run1"
    shutil.copytree(runs[0], copy)
    (copy / "tones-asr" / "oracle" / "records.jsonl").unlink()
    res = runner.invoke(app, ["leaderboard", str(copy), str(runs[1]), "-o", str(tmp_path / "lb")])
    assert res.exit_code == 2, res.output
    assert "oracle/records.jsonl: deleted after summary.json was computed from it" in res.output
    _, doc = _leaderboard(tmp_path / "none", *map(str, runs), "--resamples", "0")
    assert (
        _rows(doc["boards"]["understanding"])["oracle"]["adjacent"]["reason"]
        == "no resamples (--resamples 0)"
    )


@pytest.fixture(scope="module")
def baseline_runs(runs: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A third run of the `runs` specs that includes `oracle` again (the same result, made
    afresh), and a copy of it whose oracle answered one MCQ question otherwise (rescored)."""
    root = runs[0].parent
    specs = [root / "tones-asr.yaml", root / "tones-mcq.yaml"]
    again = _run(tmp_path_factory.mktemp("baseline") / "run3", specs, ["oracle", "constant:bye"])
    other = again.parent / "run3-other"
    shutil.copytree(again, other)
    records = other / "tones-mcq" / "oracle" / "records.jsonl"
    lines = [json.loads(line) for line in records.read_text(encoding="utf-8").splitlines()]
    next(r for r in lines if r["id"] == "t0")["output"]["text"] = "I cannot tell"  # lines: in finishing order
    records.write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
    res = runner.invoke(app, ["rescore", str(other), "--resamples", "50"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return again, other


def test_runs_sharing_a_baseline_result_make_one_board(
    runs: tuple[Path, Path], baseline_runs: tuple[Path, Path], tmp_path: Path
) -> None:
    """`oracle` in two runs with the same signature and records is one result, not a refusal
    (it was refused: "model 'oracle' has benchmark … in A and in B; give one of them")."""
    again, _ = baseline_runs
    _, doc = _leaderboard(tmp_path / "lb", str(runs[0]), str(again), "--resamples", "50")
    for board in doc["boards"].values():
        models = [r["model"] for r in board["rows"]]
        assert models.count("oracle") == 1 and "constant:bye" in models and "constant:hello" in models
    assert _rows(doc["boards"]["reasoning"])["oracle"]["score"] == 100.0
    # a copy of a run folder is the same result too; so is every pair of it
    copy = tmp_path / "copy"
    shutil.copytree(runs[0], copy)
    _, doc = _leaderboard(tmp_path / "lb2", str(runs[0]), str(copy), "--resamples", "0")
    assert [r["model"] for r in doc["boards"]["understanding"]["rows"]] == ["oracle", "constant:hello"]
    res = runner.invoke(
        app, ["rank", str(runs[0]), str(again), "--family", "reasoning", "-o", str(tmp_path / "r")]
    )
    assert res.exit_code == 0, res.output
    report = json.loads((tmp_path / "r" / "robustness.json").read_text(encoding="utf-8"))
    assert sorted(report["models"]) == ["constant:bye", "constant:hello", "oracle"]


def test_different_results_under_one_name_ask_for_prefer(
    runs: tuple[Path, Path], baseline_runs: tuple[Path, Path], tmp_path: Path
) -> None:
    again, other = baseline_runs
    for command in (["leaderboard"], ["rank", "--family", "reasoning"]):
        text = _refused([*command, str(runs[0]), str(other)], tmp_path / "o")
        assert "'oracle' has benchmark 'tones-mcq' in" in text and "with different results" in text
        assert "sample 't0' has another result" in text
        assert "choose one with --prefer" in text
        assert "run3-other" in text and "run1" in text
    _, doc = _leaderboard(
        tmp_path / "a", str(runs[0]), str(other), "--prefer", str(other), "--resamples", "0"
    )
    assert _rows(doc["boards"]["reasoning"])["oracle"]["score"] == pytest.approx(100 * 11 / 12)
    _, doc = _leaderboard(
        tmp_path / "b", str(runs[0]), str(other), "--prefer", str(runs[0]), "--resamples", "0"
    )
    assert _rows(doc["boards"]["reasoning"])["oracle"]["score"] == 100.0
    # three runs: the two alike are one result, the third still asks
    text = _refused(["leaderboard", str(runs[0]), str(again), str(other)], tmp_path / "o")
    assert "--prefer" in text and "run3-other" in text
    _, doc = _leaderboard(
        tmp_path / "c", str(runs[0]), str(again), str(other), "--prefer", str(again), "--resamples", "0"
    )
    assert _rows(doc["boards"]["reasoning"])["oracle"]["score"] == 100.0
    text = _refused(["leaderboard", str(runs[0]), str(other), "--prefer", str(tmp_path)], tmp_path / "o")
    assert "not one of the run directories given" in text
    text = _refused(
        ["leaderboard", str(runs[0]), str(other), "--prefer", str(runs[0]), "--prefer", str(other)],
        tmp_path / "o",
    )
    assert "--prefer names more than one" in text


def test_user_board_files(runs: tuple[Path, Path], tmp_path: Path) -> None:
    boards = tmp_path / "boards.yaml"
    boards.write_text(
        "boards:\n"
        "  - {name: all-headlines, title: Every headline, columns: [{metric: headline}]}\n"
        "  - name: mcq-accuracy\n"
        "    benchmarks: [tones-mcq]\n"
        "    columns: [{metric: accuracy, label: Acc}]\n"
        "    average: false\n",
        encoding="utf-8",
    )
    res, doc = _leaderboard(tmp_path / "lb", *map(str, runs), "--board", str(boards), "--resamples", "200")
    assert list(doc["boards"]) == ["understanding", "reasoning", "all-headlines", "mcq-accuracy"]
    everything = _rows(doc["boards"]["all-headlines"])
    assert everything["oracle"]["average"] == 100.0 and everything["oracle"]["averaged_over"] == 2
    assert everything["random-choice:0"]["missing"] == ["tones-asr · wer"]  # no ASR: partial
    assert everything["oracle"]["adjacent"]["samples"] == {"tones-asr": 8, "tones-mcq": 12}
    acc = doc["boards"]["mcq-accuracy"]
    assert acc["average"] is False and [r["model"] for r in acc["rows"]][2] == "random-choice:0"
    assert acc["rows"][2]["score"] == pytest.approx(100 / 3)  # ranked by its one column
    assert acc["rows"][1]["adjacent"]["p"] < 0.05
    assert "Every headline leaderboard" in res.output
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\ncolumns: [{metric: acuracy}]\n", encoding="utf-8")
    res = runner.invoke(app, ["leaderboard", str(runs[0]), "--board", str(bad), "-o", str(tmp_path / "o")])
    assert res.exit_code == 2 and "bad.yaml" in res.output and "accuracy" in res.output


def test_a_folder_that_is_not_a_run_is_refused(tmp_path: Path) -> None:
    res = runner.invoke(app, ["leaderboard", str(tmp_path), "-o", str(tmp_path / "o")])
    assert res.exit_code == 2 and "not a run directory" in res.output


def _assert_clean_page(page: Path) -> str:
    html = page.read_text(encoding="utf-8")
    assert PAYLOAD not in html and "<img" not in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html
    dom = dump_dom(page)
    assert 'data-ready="1"' in dom and '<div id="script-errors"></div>' in dom
    assert "<img" not in dom and "&lt;img src=x onerror=alert(1)&gt;" in dom
    return dom


def test_the_leaderboard_page_draws_escaped_with_charts(runs: tuple[Path, Path], tmp_path: Path) -> None:
    _leaderboard(tmp_path / "lb", *map(str, runs), "--resamples", "200")
    page = tmp_path / "lb" / "index.html"
    html = page.read_text(encoding="utf-8")
    assert html.count("<svg") == 2  # one bar chart (board score, CI whiskers) per board
    assert "<!-- 100.00 [100.0–100.0] -->" in html  # each bar carries its score and CI
    assert "Understanding" in html and "Board scores and adjacent ranks" in html
    assert "paired bootstrap" in html
    dom = _assert_clean_page(page)
    assert "&lt; 0.005" in dom  # oracle vs constant: no resample flips the sign
    # no path of the machine: each run directory is named by its folder
    md = (tmp_path / "lb" / "leaderboard.md").read_text(encoding="utf-8")
    for text in (html, md):
        assert str(runs[0].parent) not in text and str(tmp_path) not in text
        assert "…/run1" in text and "…/run2" in text


def test_the_rank_page_has_the_robustness_table_heatmap_and_intervals(
    runs: tuple[Path, Path], tmp_path: Path
) -> None:
    out = tmp_path / "rank"
    args = ["rank", *map(str, runs), "-o", str(out), "--resamples", "100", "--family", "reasoning"]
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    page = out / "index.html"
    assert "index.html" in res.output
    html = page.read_text(encoding="utf-8")
    assert "Ranking robustness" in html and "Spearman correlation" in html
    assert "bootstrap 95 %" in html and "100 resamples" in html
    # one column (tones-mcq:accuracy): no 1 × 1 correlation heatmap, a sentence instead
    assert html.count("<svg") == 0 and "this table has one" in html
    assert not (out / "spearman.svg").exists() and "spearman.svg" not in res.output
    dom = _assert_clean_page(page)
    assert "LOTGO" in dom and "tones-mcq:accuracy" in dom


# --- issue 27/28: a column is a benchmark with its data and settings; incomplete rows ---------


def _spec_runs(root: Path) -> tuple[Path, Path]:
    """The MCQ spec of the `runs` fixture (its path and its manifest)."""
    spec = root / "tones-mcq.yaml"
    return spec, root / "mcq" / "mcq.jsonl"


def _refused(args: list[str], out: Path) -> str:
    res = runner.invoke(app, [*args, "-o", str(out)])
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output and not out.exists()
    return " ".join(res.output.split())


def test_runs_with_another_limit_are_not_merged_into_one_column(
    runs: tuple[Path, Path], tmp_path: Path
) -> None:
    spec, _ = _spec_runs(runs[0].parent)
    small = tmp_path / "small"
    res = runner.invoke(
        app,
        [
            "run",
            "-o",
            str(small),
            "--no-progress",
            "--resamples",
            "0",
            "-b",
            str(spec),
            "-m",
            "oracle:x",
            "--limit",
            "4",
        ],
    )
    assert res.exit_code == 0, res.output
    for command in (["leaderboard"], ["rank", "--family", "reasoning"]):
        text = _refused([*command, str(runs[1]), str(small)], tmp_path / "o")
        assert "'tones-mcq'" in text and "small" in text and "run2" in text
        assert "limit is None in one and 4 in the other" in text


def test_two_data_sets_named_alike_are_not_merged(runs: tuple[Path, Path], tmp_path: Path) -> None:
    other = tone_mcq_manifest(tmp_path / "mcq", n=12)
    rows = [json.loads(line) for line in other.read_text(encoding="utf-8").splitlines()]
    rows[0]["question"] = "Which pitch is it?"  # one sample's content differs
    other.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    spec = tmp_path / "tones-mcq.yaml"
    spec.write_text(f"name: tones-mcq\ntask: mcq\nsource: {{type: jsonl, path: {other}}}\n")
    alike = _run(tmp_path / "alike", [spec], ["oracle:y"])
    for command in (["leaderboard"], ["rank", "--family", "reasoning"]):
        text = _refused([*command, str(runs[1]), str(alike)], tmp_path / "o")
        assert "'tones-mcq'" in text and "data differs: sample 't0'" in text


def test_pairs_with_different_sample_sets_give_a_board_not_a_traceback(
    runs: tuple[Path, Path], tmp_path: Path
) -> None:
    """Issue 27: a pair scored on fewer samples than the other (an interrupted pair) raised
    KeyError; the paired test is over the samples both have."""
    copy = tmp_path / "run1"
    shutil.copytree(runs[0], copy)
    results = json.loads((copy / "summary.json").read_text(encoding="utf-8"))["results"]
    folder = next(
        r["folder"] for r in results if (r["benchmark"], r["model"]) == ("tones-mcq", "constant:hello")
    )
    records = copy / folder / "records.jsonl"
    records.write_text("".join(records.read_text(encoding="utf-8").splitlines(True)[:7]), encoding="utf-8")
    assert runner.invoke(app, ["rescore", str(copy), "--max-failed", "1.0"]).exit_code == 0  # its summary now
    _, doc = _leaderboard(tmp_path / "lb", str(copy), "--resamples", "50")
    oracle = _rows(doc["boards"]["reasoning"])["oracle"]
    assert oracle["adjacent"]["samples"] == {"tones-mcq": 7} and oracle["adjacent"]["p"] is not None


def test_a_paired_test_pairs_only_samples_with_the_same_content_hash() -> None:
    from audioeval.analysis.leaderboard_runs import _paired_ids
    from audioeval.analysis.score_table import CellStats

    a = CellStats(["s1", "s2", "s3"], None, 1.0, {"s1": "h1", "s2": "h2", "s3": "h3"})
    b = CellStats(["s1", "s2", "s3"], None, 1.0, {"s1": "h1", "s2": "other", "s3": None})
    assert _paired_ids([a, b]) == ["s1"]


def test_an_incomplete_row_is_listed_below_unranked(runs: tuple[Path, Path], tmp_path: Path) -> None:
    """Issue 28: a model with 1 of 2 columns ranked among complete ones; by default it is below
    them with rank None and no adjacent test, and --mean-of-available ranks it as published."""
    boards = tmp_path / "boards.yaml"
    boards.write_text("name: both\ncolumns: [{metric: headline}]\n", encoding="utf-8")
    args = [*map(str, runs), "--board", str(boards), "--resamples", "50"]
    _, doc = _leaderboard(tmp_path / "lb", *args)
    rows = doc["boards"]["both"]["rows"]
    ranked = [r["model"] for r in rows if r["rank"] is not None]
    assert ranked == ["oracle", "constant:hello", EVIL]
    unranked = rows[len(ranked) :]
    assert {r["model"] for r in unranked} == {"random-choice:0", "longest-choice"}
    assert all(
        r["rank"] is None and r["adjacent"] is None and r["missing"] == ["tones-asr · wer"] for r in unranked
    )
    assert rows[len(ranked) - 1]["adjacent"] is None  # the last ranked row has none below it
    md = (tmp_path / "lb" / "leaderboard.md").read_text(encoding="utf-8")
    assert "| – | longest-choice |" in md and "listed below the complete rows, unranked" in md
    assert doc["boards"]["both"]["signatures"]["tones-mcq"]["samples"] == 12
    _, published = _leaderboard(tmp_path / "pub", *args, "--mean-of-available")
    assert all(r["rank"] is not None for r in published["boards"]["both"]["rows"])


def test_rank_over_runs_ranks_one_family_at_a_time(runs: tuple[Path, Path], tmp_path: Path) -> None:
    text = _refused(["rank", *map(str, runs)], tmp_path / "o")
    assert "understanding (tones-asr); reasoning (tones-mcq)" in text and "--family" in text
    res = runner.invoke(
        app, ["rank", *map(str, runs), "--family", "understanding", "-o", str(tmp_path / "u")]
    )
    assert res.exit_code == 0, res.output
    report = json.loads((tmp_path / "u" / "robustness.json").read_text(encoding="utf-8"))
    assert [c["name"] for c in report["columns"]] == ["tones-asr:wer"]


def test_mcq_score_folders_are_run_directories(tmp_path: Path) -> None:
    preds = tmp_path / "preds.jsonl"
    item = {"choices": ["Dog", "Cat"], "answer": "Dog", "modality": "sound", "category": "Signal Layer"}
    preds.write_text(
        json.dumps({**item, "id": "a", "answer_prediction": "(A) Dog"})
        + "\n"
        + json.dumps({**item, "id": "b", "answer_prediction": "(B) Cat"})
        + "\n",
        encoding="utf-8",
    )
    out = tmp_path / "scored"
    res = runner.invoke(
        app,
        [
            "mcq",
            "score",
            "--benchmark",
            "mmar",
            "--predictions",
            str(preds),
            "--no-official-print",
            "--output_dir",
            str(out),
        ],
    )
    assert res.exit_code == 0, res.output
    _, doc = _leaderboard(tmp_path / "lb", str(out), "--resamples", "20")
    assert [r["model"] for r in doc["boards"]["reasoning"]["rows"]] == ["predictions"]
    shutil.rmtree(out / "mmar")  # the export alone, as an earlier audioeval wrote it: say what it is
    (out / "summary.json").write_text(
        (out / "mcq_summary.json").read_text(encoding="utf-8"), encoding="utf-8"
    )
    text = _refused(["leaderboard", str(out)], tmp_path / "o")
    assert "it is the export of `audioeval mcq score`" in text and "summary.json" in text


# -- named systems: `mmae score --name`, boards over MMAE runs, ASR and MCQ runs (issue 28) --


@pytest.fixture(scope="module")
def named_mmae_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Two `mmae score` folders of one synthetic set, the systems named `identity` and `noise`
    (`--name`): the same predictions file name in both, which alone would name both `predictions`."""
    from audioeval.benchmarks.mmae.baselines import write_baseline
    from audioeval.benchmarks.mmae.synthetic import write_synthetic_set
    from tests.fakes.judge_server import FakeJudgeConfig, FakeJudgeServer

    root = tmp_path_factory.mktemp("named_mmae")
    data = write_synthetic_set(root / "set", 14)
    out = {}
    with FakeJudgeServer(FakeJudgeConfig()) as judge:
        for name in ("identity", "noise"):
            preds, errors = write_baseline(
                name, metadata=data.metadata, audio_root=data.root, out_dir=root / f"p-{name}"
            )
            assert not errors and preds.name == "predictions.json"
            args = ["mmae", "score", "--predictions", str(preds), "--metadata", str(data.metadata),
                    "--audio-root", str(data.root), "--judge", judge.base_url, "--name", name,
                    "-o", str(root / name), "--no-progress", "--resamples", "50"]  # fmt: skip
            res = runner.invoke(app, args, catch_exceptions=False)
            assert res.exit_code == 0, res.output
            out[name] = root / name
    return out


def test_mmae_score_name_names_the_system_in_its_summary_and_boards(named_mmae_runs: dict[str, Path]) -> None:
    folder = named_mmae_runs["noise"]
    pair = json.loads((folder / "mmae" / "noise" / "summary.json").read_text(encoding="utf-8"))
    assert pair["model"] == "noise"
    run = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
    assert [r["model"] for r in run["boards"]["editing"]["rows"]] == ["noise"]
    # one unit per metric: the rates are percentages (each sample's rate × 100), so shown with %
    assert {pair["metrics"][m]["unit"] for m in ("mean:ifr", "mean:cr", "mean:em")} == {"percent"}


def test_a_leaderboard_over_two_named_mmae_runs_ranks_both_on_one_editing_board(
    named_mmae_runs: dict[str, Path], tmp_path: Path
) -> None:
    _, doc = _leaderboard(tmp_path / "lb", *map(str, named_mmae_runs.values()), "--resamples", "50")
    assert list(doc["boards"]) == ["editing"]
    rows = doc["boards"]["editing"]["rows"]
    assert sorted(r["model"] for r in rows) == ["identity", "noise"]
    assert [r["rank"] for r in rows] == [1, 2] and all(r["ranked"] is not False for r in rows)
    for row in rows:  # the cells are the pair summaries' values, as they are (already %)
        pair = json.loads(
            (named_mmae_runs[row["model"]] / "mmae" / row["model"] / "summary.json").read_text(
                encoding="utf-8"
            )
        )
        assert row["cells"]["mmae · IFR"]["value"] == pytest.approx(pair["metrics"]["mean:ifr"]["value"])
    ifr = rows[0]["cells"]["mmae · IFR"]["value"]
    md = (tmp_path / "lb" / "leaderboard.md").read_text(encoding="utf-8")
    assert f"| {ifr:.2f} % [" in md  # the same unit as the report page and the console


def test_a_leaderboard_over_asr_runs_and_an_mcq_run_ranks_each_family_apart(tmp_path: Path) -> None:
    """An ASR run (two ASR sets), another ASR run of one model on one set, and an MCQ run: an
    understanding board and a reasoning board, never one average of both; the model with one
    of the two ASR columns is listed below the complete rows, unranked."""
    asr, mcq = tone_asr_manifest(tmp_path / "asr", n=6), tone_mcq_manifest(tmp_path / "mcq", n=8)
    specs = {name: tmp_path / f"{name}.yaml" for name in ("tones-asr", "tones-asr-b", "tones-mcq")}
    specs["tones-asr"].write_text(f"name: tones-asr\ntask: asr\nsource: {{type: jsonl, path: {asr}}}\n")
    specs["tones-asr-b"].write_text(f"name: tones-asr-b\ntask: asr\nsource: {{type: jsonl, path: {asr}}}\n")
    specs["tones-mcq"].write_text(f"name: tones-mcq\ntask: mcq\nsource: {{type: jsonl, path: {mcq}}}\n")
    asr_run = _run(
        tmp_path / "asr_run", [specs["tones-asr"], specs["tones-asr-b"]], ["oracle", "constant:the tone"]
    )
    one_set = _run(tmp_path / "one_set", [specs["tones-asr"]], ["constant:tone"])
    mcq_run = _run(
        tmp_path / "mcq_run", [specs["tones-mcq"]], ["oracle", "longest-choice", "random-choice:0"]
    )
    _, doc = _leaderboard(tmp_path / "lb", str(asr_run), str(one_set), str(mcq_run), "--resamples", "50")
    assert list(doc["boards"]) == ["understanding", "reasoning"]
    understanding, reasoning = doc["boards"]["understanding"], doc["boards"]["reasoning"]
    assert {c["benchmark"] for c in understanding["columns"]} == {"tones-asr", "tones-asr-b"}
    assert {c["benchmark"] for c in reasoning["columns"]} == {"tones-mcq"}
    assert {r["model"] for r in reasoning["rows"]} == {"oracle", "longest-choice", "random-choice:0"}
    assert [r["model"] for r in understanding["rows"]] == ["oracle", "constant:the tone", "constant:tone"]
    for board in (understanding, reasoning):
        ranks = [r["rank"] for r in board["rows"]]
        complete = [not r.get("missing") for r in board["rows"]]
        assert all((rank is not None) == ok for rank, ok in zip(ranks, complete, strict=True)), board["name"]
        assert complete == sorted(complete, reverse=True)  # every complete row above every incomplete one
    last = understanding["rows"][-1]
    assert last["rank"] is None and last["missing"] == ["tones-asr-b · wer"]
    assert all(r["rank"] is not None for r in reasoning["rows"])


def test_the_python_api_takes_prefer(runs: tuple[Path, Path], baseline_runs: tuple[Path, Path]) -> None:
    import audioeval
    from audioeval.core.errors import InputError

    _, other = baseline_runs
    with pytest.raises(InputError, match="--prefer"):
        audioeval.leaderboard([runs[0], other], resamples=0)
    doc = audioeval.leaderboard([runs[0], other], resamples=0, prefer=[other])
    assert _rows(doc["boards"]["reasoning"])["oracle"]["score"] == pytest.approx(100 * 11 / 12)
