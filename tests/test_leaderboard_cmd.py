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


def test_a_pair_without_records_gives_a_reason_not_a_p_value(runs: tuple[Path, Path], tmp_path: Path) -> None:
    copy = tmp_path / "run1"
    shutil.copytree(runs[0], copy)
    (copy / "tones-asr" / "oracle" / "records.jsonl").unlink()
    _, doc = _leaderboard(tmp_path / "lb", str(copy), str(runs[1]), "--resamples", "100")
    oracle = _rows(doc["boards"]["understanding"])["oracle"]
    assert oracle["score"] == 100.0 and oracle["score_ci"] is None
    assert oracle["adjacent"]["p"] is None
    assert "oracle × tones-asr (wer): no records.jsonl" in oracle["adjacent"]["reason"]
    assert _rows(doc["boards"]["reasoning"])["oracle"]["adjacent"]["p"] is not None
    _, doc = _leaderboard(tmp_path / "none", *map(str, runs), "--resamples", "0")
    assert (
        _rows(doc["boards"]["understanding"])["oracle"]["adjacent"]["reason"]
        == "no resamples (--resamples 0)"
    )


def test_a_model_with_a_benchmark_in_two_runs_is_an_error_naming_both(
    runs: tuple[Path, Path], tmp_path: Path
) -> None:
    copy = tmp_path / "again"
    shutil.copytree(runs[0], copy)
    res = runner.invoke(app, ["leaderboard", str(runs[0]), str(copy), "-o", str(tmp_path / "o")])
    assert res.exit_code == 2
    flat = " ".join(res.output.split())
    assert "'oracle' has benchmark 'tones-asr' in" in flat and str(copy.name) in flat
    assert not (tmp_path / "o").exists()


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
    assert "Understanding" in html and "Board scores and adjacent ranks" in html
    assert "paired bootstrap" in html
    dom = _assert_clean_page(page)
    assert "&lt; 0.005" in dom  # oracle vs constant: no resample flips the sign


def test_the_rank_page_has_the_robustness_table_heatmap_and_intervals(
    runs: tuple[Path, Path], tmp_path: Path
) -> None:
    out = tmp_path / "rank"
    res = runner.invoke(app, ["rank", *map(str, runs), "-o", str(out), "--resamples", "100"])
    assert res.exit_code == 0, res.output
    page = out / "index.html"
    assert "index.html" in res.output
    html = page.read_text(encoding="utf-8")
    assert "Ranking robustness" in html and "Spearman correlation" in html
    assert html.count("<svg") == 1 and "bootstrap 95 %" in html and "100 resamples" in html
    dom = _assert_clean_page(page)
    assert "LOTGO" in dom and "tones-mcq:accuracy" in dom
