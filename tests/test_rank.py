"""`audioeval rank`: ranking robustness and Spearman correlations, from a score table of
published numbers (UltraEval-Audio's understanding board reproduces the paper's Table 8) and
from run directories (with bootstrap rank intervals from the records)."""

from __future__ import annotations

import dataclasses
import json
import math
import shutil
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from audioeval.analysis.ranking import (
    Column,
    ScoreTable,
    average_ranks,
    competition_ranks,
    robustness,
    spearman,
    spearman_json,
)
from audioeval.analysis.score_table import bootstrap_tables, read_groups, read_score_csv, table_from_runs
from audioeval.cli.main import app
from tests.fakes.mcq_server import tone_wav
from tests.run_helpers import write_jsonl

runner = CliRunner()
BOARD = Path(__file__).parent / "data" / "ultraeval_understanding.csv"

TABLE_8 = {
    # model: (original, LOBO best, worst, LOTGO best, worst, alt-norm best, worst)
    "Qwen3-Omni-30B-A3B-Instruct": (1, 1, 1, 1, 1, 1, 1),
    "Kimi-Audio-7B-Instruct": (2, 2, 4, 2, 6, 2, 2),
    "MiniCPM-o 2.6": (3, 2, 3, 2, 4, 3, 3),
    "Qwen2-Audio-7B": (4, 3, 5, 3, 7, 4, 4),
    "Qwen2.5-Omni": (5, 4, 5, 3, 8, 5, 5),
    "Gemini-1.5-Pro": (6, 6, 7, 3, 6, 6, 6),
    "Gemini-2.5-Pro": (7, 6, 7, 4, 7, 7, 7),
    "Qwen2-Audio-7B-Instruct": (8, 8, 9, 8, 11, 9, 9),
    "GPT-4o-Realtime": (9, 9, 10, 9, 10, 10, 10),
    "MiDaShengLM-7B": (10, 8, 11, 5, 10, 8, 8),
    "Gemini-2.5-Flash": (11, 10, 11, 11, 12, 11, 11),
    "Gemini-1.5-Flash": (12, 12, 12, 9, 12, 12, 12),
}
"""UltraEval-Audio paper, Table 8: the ranking sensitivity of the understanding board."""

TABLE_9_AVG = {
    "GPT-4o-Realtime": 73.75,
    "Qwen3-Omni-30B-A3B-Instruct": 84.92,
    "Qwen2.5-Omni": 81.88,
    "MiniCPM-o 2.6": 83.15,
    "Kimi-Audio-7B-Instruct": 83.27,
    "Gemini-1.5-Flash": 27.80,
    "Gemini-1.5-Pro": 81.09,
    "Gemini-2.5-Flash": 62.67,
    "Gemini-2.5-Pro": 80.72,
    "Qwen2-Audio-7B": 82.14,
    "Qwen2-Audio-7B-Instruct": 78.29,
    "MiDaShengLM-7B": 68.50,
}
"""UltraEval-Audio paper, Table 9: the `Avg. Score` column."""


def _table_8_rows(report: dict) -> dict[str, tuple[int, ...]]:
    return {
        name: (m["rank"], *m["lobo"], *m["lotgo"], *m["alt_norm"]) for name, m in report["models"].items()
    }


def _with_value(table: ScoreTable, model: str, column: str, value: float) -> ScoreTable:
    values = table.values.copy()
    values[table.models.index(model), [c.name for c in table.columns].index(column)] = value
    return dataclasses.replace(table, values=values)


def _table(rows: dict[str, list[float]], columns: list[tuple[str, bool, str]]) -> ScoreTable:
    cols = tuple(Column(name, higher, group) for name, higher, group in columns)
    return ScoreTable(tuple(rows), cols, np.asarray(list(rows.values()), dtype=np.float64))


# --- the published board ---------------------------------------------------------------


def test_the_understanding_board_reproduces_table_8_for_every_model(tmp_path: Path) -> None:
    out = tmp_path / "rank"
    res = runner.invoke(
        app, ["rank", "--table", str(BOARD), "--output_dir", str(out)], catch_exceptions=False
    )
    assert res.exit_code == 0, res.output
    report = json.loads((out / "robustness.json").read_text())
    assert _table_8_rows(report) == TABLE_8
    assert list(report["models"]) == list(TABLE_8)  # ordered by rank
    assert {g: len(cols) for g, cols in report["groups"].items()} == {
        "asr": 10,
        "ast": 2,
        "classification": 1,
    }
    midasheng = report["models"]["MiDaShengLM-7B"]
    assert midasheng["zscore"] == midasheng["minmax"] == 8
    # its sensitivity is TED-LIUM's (146.53 % WER), as the paper says: without it, rank 8
    assert report["variants"]["lobo"]["tedlium-test:wer"]["MiDaShengLM-7B"] == 8
    assert "MiDaShengLM-7B" in res.output and "8–11" in res.output
    spear = json.loads((out / "spearman.json").read_text())
    assert len(spear["columns"]) == 13 and len(spear["matrix"]) == 13
    assert all(spear["matrix"][i][i] == 1.0 for i in range(13))
    assert (out / "spearman.svg").read_text().lstrip().startswith("<?xml")


def test_the_board_reproduces_table_9s_averages_and_shows_its_one_typo() -> None:
    """Every published average comes out of the published cells (flipped, unclipped, equal
    weight), except Gemini-1.5-Flash: Table 9 prints its CV-15 zh CER as 184.37, its average
    (27.80) and Table 5's CER mean (114.79) were computed with 84.37 (the README's value).
    Table 8 is the same either way."""
    table = read_score_csv(BOARD)
    printed = robustness(table)
    scores = dict(zip(table.models, printed.scores, strict=True))
    for model, avg in TABLE_9_AVG.items():
        if model != "Gemini-1.5-Flash":
            assert round(scores[model], 2) == avg, model
    assert round(scores["Gemini-1.5-Flash"], 2) == 20.11  # 100 − 184.37 enters, unclipped
    fixed = _with_value(table, "Gemini-1.5-Flash", "commonvoice-zh-test:cer", 84.37)
    corrected = robustness(fixed)
    gemini = fixed.models.index("Gemini-1.5-Flash")
    assert round(corrected.scores[gemini], 2) == 27.80
    assert _table_8_rows(corrected.to_json()) == TABLE_8


def test_gpt4o_needs_its_test_clean_and_test_other_values_for_table_8() -> None:
    """The two LibriSpeech values missing from the paper text matter: left out (the mean of
    the other 11), Gemini-2.5-Flash's best LOBO rank would be 9, not Table 8's 10."""
    table = read_score_csv(BOARD)
    for col in ("librispeech-test-clean:wer", "librispeech-test-other:wer"):
        table = _with_value(table, "GPT-4o-Realtime", col, math.nan)
    rows = _table_8_rows(robustness(table, mean_of_available=True).to_json())
    assert rows["Gemini-2.5-Flash"][1] == 9
    assert robustness(table, mean_of_available=True).to_json()["models"]["GPT-4o-Realtime"]["covered"] == 11
    # by default, GPT-4o-Realtime (11 of 13) is not ranked among the complete models
    default = robustness(table).to_json()["models"]["GPT-4o-Realtime"]
    assert default["rank"] is None and default["ranked"] is False
    assert default["missing"] == ["librispeech-test-clean:wer", "librispeech-test-other:wer"]


# --- the rules -------------------------------------------------------------------------


def test_error_rates_are_flipped_unclipped_and_missing_values_left_out() -> None:
    """UltraEval-Audio's convention (--mean-of-available): the mean of the available values."""
    table = _table(
        {"a": [279.9, 40.0], "b": [10.0, math.nan], "c": [math.nan, math.nan]},
        [("asr:wer", False, "asr"), ("cls:accuracy", True, "classification")],
    )
    r = robustness(table, mean_of_available=True)
    assert r.scores[0] == pytest.approx(((100 - 279.9) + 40.0) / 2)  # −179.9 enters as it is
    assert r.scores[1] == pytest.approx(90.0)  # the mean of what b has
    assert math.isnan(r.scores[2])
    report = r.to_json()["models"]
    assert [report[m]["rank"] for m in "abc"] == [2, 1, None]
    # without asr:wer, b has no value: it is unranked there, and its LOBO span is that of the rest
    assert r.lobo["asr:wer"].tolist()[:2] == [1.0, pytest.approx(math.nan, nan_ok=True)]
    assert report["b"]["lobo"] == [1, 1] and report["c"]["lobo"] is None


def test_a_model_missing_columns_is_listed_below_unranked_under_every_variant() -> None:
    """Issue 28: a model with 2 of 5 columns ranked first under every perturbation; by default
    it is unranked everywhere, takes no part in z-score/min-max statistics, and names what it
    lacks."""
    cols = [(f"b{j}:accuracy", True, f"g{j}") for j in range(5)]
    table = _table(
        {
            "full-1": [50.0, 60.0, 70.0, 40.0, 55.0],
            "full-2": [45.0, 55.0, 65.0, 50.0, 50.0],
            "partial": [99.0, 99.0, math.nan, math.nan, math.nan],
        },
        cols,
    )
    report = robustness(table).to_json()
    assert list(report["models"]) == ["full-1", "full-2", "partial"]
    partial = report["models"]["partial"]
    assert partial["rank"] is None and partial["ranked"] is False and partial["score"] is None
    assert partial["lobo"] is None and partial["lotgo"] is None and partial["alt_norm"] is None
    assert partial["missing"] == ["b2:accuracy", "b3:accuracy", "b4:accuracy"]
    assert report["models"]["full-1"]["rank"] == 1 and report["models"]["full-1"]["alt_norm"] == [1, 1]
    # the published convention ranks it first, everywhere
    old = robustness(table, mean_of_available=True).to_json()["models"]["partial"]
    assert old["rank"] == 1 and old["lobo"] == [1, 1] and old["alt_norm"] == [1, 1]


def test_impossible_values_in_a_score_table_are_refused(tmp_path: Path) -> None:
    """Issue 27: a negative WER or accuracy, or an accuracy above 100, is refused naming the
    file, the row and the column; an error rate above 100 % is possible."""
    for header, row, column in (
        ("model,x:wer,y:accuracy", "m1,-3.5,50", "x:wer"),
        ("model,x:wer,y:accuracy", "m1,3.5,-50", "y:accuracy"),
        ("model,x:wer,y:accuracy", "m1,3.5,100.5", "y:accuracy"),
        ("model,x:bleu", "m1,-1", "x:bleu"),
    ):
        path = tmp_path / "t.csv"
        path.write_text(f"{header}\nm0,1,2\n{row}\n" if "accuracy" in header else f"{header}\nm0,1\n{row}\n")
        res = runner.invoke(app, ["rank", "--table", str(path), "-o", str(tmp_path / "o")])
        assert res.exit_code == 2, res.output
        text = " ".join(res.output.split())
        assert "t.csv:3" in text and column in text and "'m1'" in text and "impossible" in text
    path = tmp_path / "ok.csv"
    path.write_text("model,x:wer\nm0,146.53\nm1,3\n")
    assert runner.invoke(app, ["rank", "--table", str(path), "-o", str(tmp_path / "o")]).exit_code == 0


def test_equal_scores_share_the_better_rank() -> None:
    ranks = competition_ranks(np.asarray([80.0, 90.0, 80.0, 70.0, math.nan]))
    assert ranks[:4].tolist() == [2.0, 1.0, 2.0, 4.0] and math.isnan(ranks[4])
    # sums of the same numbers in another order are the same score
    assert competition_ranks(np.asarray([0.1 + 0.2 + 0.3, 0.3 + 0.2 + 0.1])).tolist() == [1.0, 1.0]


def test_alternative_normalisations_are_per_column_zscore_and_minmax() -> None:
    """A model strong on a column with a large spread wins the raw mean; z-scores and min-max
    weigh each column by its spread instead."""
    table = _table(
        {"a": [100.0, 10.0, 10.0], "b": [0.0, 12.0, 12.0], "c": [50.0, 11.0, 11.0]},
        [("x:bleu", True, "ast"), ("y:bleu", True, "ast"), ("z:bleu", True, "ast")],
    )
    r = robustness(table)
    assert r.rank.tolist() == [1.0, 3.0, 2.0]
    # min-max: a = (1 + 0 + 0)/3, b = (0 + 1 + 1)/3, c = (0.5 + 0.5 + 0.5)/3
    assert r.minmax.tolist() == [3.0, 1.0, 2.0]
    # z-scores (population sd): a = (1.2247 − 1.2247 − 1.2247)/3 < c = 0 < b
    assert r.zscore.tolist() == [3.0, 1.0, 2.0]
    assert r.to_json()["models"]["a"]["alt_norm"] == [3, 3]
    assert r.lotgo == {}  # one task group: nothing is left when it is dropped


def test_spearman_uses_average_ranks_for_ties_and_flipped_directions() -> None:
    assert average_ranks(np.asarray([1.0, 2.0, 2.0, 3.0])).tolist() == [1.0, 2.5, 2.5, 4.0]
    rho, n = spearman(np.asarray([1.0, 2.0, 2.0, 3.0]), np.asarray([1.0, 3.0, 2.0, 4.0]))
    assert n == 4 and rho == pytest.approx(4.5 / math.sqrt(4.5 * 5.0))
    table = _table(
        {"a": [5.0, 90.0, 1.0], "b": [10.0, 80.0, math.nan], "c": [20.0, 70.0, 3.0]},
        [("asr:wer", False, "asr"), ("cls:accuracy", True, "cls"), ("k:accuracy", True, "cls")],
    )
    spear = spearman_json(table)
    assert spear["matrix"][0][1] == pytest.approx(1.0)  # lowest WER and highest accuracy agree
    assert spear["matrix"][0][2] == pytest.approx(-1.0) and spear["n"][0][2] == 2
    constant = _table({"a": [1.0, 2.0], "b": [1.0, 3.0]}, [("p:bleu", True, "ast"), ("q:bleu", True, "ast")])
    assert spearman_json(constant)["matrix"][0][1] is None  # no spread in p: undefined


# --- groups ----------------------------------------------------------------------------


def test_groups_default_to_the_registered_task_then_the_metric_family(tmp_path: Path) -> None:
    path = tmp_path / "scores.csv"
    path.write_text(
        "model,meld-emotion:accuracy,my-asr:cer,my-st:bleu,my-cls:accuracy,tts:mean:utmos\n"
        "m1,50,10,30,40,4.0\nm2,60,20,20,50,3.0\n"
    )
    table = read_score_csv(path)
    assert [c.group for c in table.columns] == [
        "classification",
        "asr",
        "ast",
        "classification",
        "mean:utmos",
    ]
    assert [c.higher_is_better for c in table.columns] == [True, False, True, True, True]
    assert table.columns[4].points == 20.0  # a 0–5 MOS counts as 20 × value
    assert robustness(table).scores[0] == pytest.approx((50 + 90 + 30 + 40 + 80) / 5)


def test_a_groups_file_overrides_the_task_groups(tmp_path: Path) -> None:
    groups = tmp_path / "groups.yaml"
    groups.write_text(
        "english: [librispeech-dev-clean, librispeech-dev-other, librispeech-test-clean,"
        " librispeech-test-other, tedlium-test, commonvoice-en-test]\n"
        "chinese: [commonvoice-zh-test, aishell1-test, fleurs-zh-test, 'wenetspeech-test-net:cer']\n"
    )
    out = tmp_path / "rank"
    res = runner.invoke(app, ["rank", "--table", str(BOARD), "--groups", str(groups), "-o", str(out)])
    assert res.exit_code == 0, res.output
    report = json.loads((out / "robustness.json").read_text())
    assert {g: len(c) for g, c in report["groups"].items()} == {
        "english": 6,
        "chinese": 4,
        "ast": 2,  # not in the file: their registered task
        "classification": 1,
    }
    assert set(report["variants"]["lotgo"]) == {"english", "chinese", "ast", "classification"}
    assert _table_8_rows(report)["Qwen3-Omni-30B-A3B-Instruct"][:3] == (1, 1, 1)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "asr: [librispech-dev-clean]\n",
            "unknown benchmark 'librispech-dev-clean'. Did you mean 'librispeech-dev-clean'",
        ),
        ("asr: librispeech-dev-clean\n", "a task group is a list of benchmark names"),
        ("a: [tedlium-test]\nb: [tedlium-test]\n", "'tedlium-test:wer' is in task groups 'a' and 'b'"),
        ("- asr\n", "must be a YAML mapping"),
    ],
)
def test_a_bad_groups_file_is_one_error_naming_file_and_field(
    tmp_path: Path, text: str, message: str
) -> None:
    groups = tmp_path / "groups.yaml"
    groups.write_text(text)
    res = runner.invoke(
        app, ["rank", "--table", str(BOARD), "--groups", str(groups), "-o", str(tmp_path / "o")]
    )
    assert res.exit_code == 2
    assert "groups.yaml" in res.output and message in " ".join(res.output.split())
    assert not (tmp_path / "o").exists()
    with pytest.raises(Exception, match="groups.yaml"):
        read_groups(groups, read_score_csv(BOARD))


# --- the CSV ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("model,a:wer\nm1,1.5\nm2,abc\n", "scores.csv:3, field 'a:wer': 'abc' is not a number"),
        ("model,a:wer\nm1,inf\n", "scores.csv:2, field 'a:wer': 'inf' is not a number"),
        (
            "model,a:acuracy\nm1,1\n",
            "scores.csv:1, field 'a:acuracy': unknown metric 'acuracy'. Did you mean 'accuracy'",
        ),
        ("model,a\nm1,1\n", "scores.csv:1, field 'a': a score column is named `benchmark:metric`"),
        ("name,a:wer\nm1,1\n", "scores.csv:1: the header is `model,benchmark:metric,…`"),
        ("# c\nmodel,a:wer\nm1,1,2\n", "scores.csv:3: the row has 3 cells, the header 2"),
        ("model,a:wer\nm1,1\nm1,2\n", "scores.csv:3: model 'm1' has a row already"),
        ("model,a:wer,a:wer\nm1,1,2\n", "scores.csv:1, field 'a:wer': the column is there twice"),
        ("# only a comment\n", "no header and model rows"),
    ],
)
def test_a_bad_score_table_is_one_error_naming_file_line_and_column(
    tmp_path: Path, text: str, message: str
) -> None:
    path = tmp_path / "scores.csv"
    path.write_text(text)
    res = runner.invoke(app, ["rank", "--table", str(path), "-o", str(tmp_path / "o")])
    assert res.exit_code == 2, res.output
    assert message in " ".join(res.output.split())


def test_comments_blank_lines_missing_cells_bom_and_crlf_are_read(tmp_path: Path) -> None:
    path = tmp_path / "scores.csv"
    path.write_bytes("\ufeff# source: a paper\r\nmodel,a:wer,b:bleu\r\n\r\nm1,2.5,-\r\nm2,,30\r\n".encode())
    table = read_score_csv(path)
    assert table.models == ("m1", "m2")
    assert table.values[0, 0] == 2.5 and math.isnan(table.values[0, 1]) and math.isnan(table.values[1, 0])


def test_the_command_needs_a_table_or_run_directories_not_both(tmp_path: Path) -> None:
    res = runner.invoke(app, ["rank", "-o", str(tmp_path / "o")])
    assert res.exit_code == 2 and "give either --table FILE or run directories" in res.output
    res = runner.invoke(app, ["rank", str(tmp_path), "--table", str(BOARD), "-o", str(tmp_path / "o")])
    assert res.exit_code == 2
    res = runner.invoke(app, ["rank", str(tmp_path), "-o", str(tmp_path / "o")])
    assert res.exit_code == 2 and "not a run directory (no summary.json)" in res.output


# --- run directories -------------------------------------------------------------------


def _split_asr_set(folder: Path, n: int = 6) -> Path:
    """An ASR set whose first half says "alpha" and second half "beta": `constant:alpha` is
    right exactly where `constant:beta` is wrong."""
    folder.mkdir(parents=True)
    rows = []
    for i in range(n):
        tone_wav(folder / f"s{i}.wav", 220 + 55 * i, seconds=0.2)
        rows.append({"id": f"s{i}", "audio": f"s{i}.wav", "text": "alpha" if i < n // 2 else "beta"})
    return write_jsonl(folder / f"{folder.name}.jsonl", rows)


def _run(out: Path, manifest: Path, models: str) -> None:
    res = runner.invoke(
        app,
        ["run", "-m", models, "--task", "asr", "-b", str(manifest), "-o", str(out)]
        + ["--resamples", "0", "--no-progress"],
        catch_exceptions=False,
    )
    assert res.exit_code == 0, res.output


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("rank_runs")
    models = "oracle,constant:alpha,constant:beta,constant:gamma delta"
    _run(root / "run1", _split_asr_set(root / "set1"), models)
    _run(root / "run2", _split_asr_set(root / "set2"), models)
    return root / "run1", root / "run2"


def test_run_directories_give_the_table_ranks_and_bootstrap_intervals(
    runs: tuple[Path, Path], tmp_path: Path
) -> None:
    out = tmp_path / "rank"
    res = runner.invoke(
        app, ["rank", *map(str, runs), "-o", str(out), "--resamples", "400"], catch_exceptions=False
    )
    assert res.exit_code == 0, res.output
    report = json.loads((out / "robustness.json").read_text())
    assert [c["name"] for c in report["columns"]] == ["set1:wer", "set2:wer"]
    assert report["groups"] == {"asr": ["set1:wer", "set2:wer"]}  # the task they ran as
    models = report["models"]
    assert models["oracle"]["rank"] == 1 and models["oracle"]["bootstrap"] == [1, 1]
    # alpha and beta both have a WER of 50 %: tied at rank 2, either may lead in a resample
    assert models["constant:alpha"]["rank"] == models["constant:beta"]["rank"] == 2
    assert models["constant:alpha"]["bootstrap"] == models["constant:beta"]["bootstrap"] == [2, 3]
    assert models["constant:gamma delta"]["rank"] == 4 and models["constant:gamma delta"]["bootstrap"] == [
        4,
        4,
    ]
    assert report["bootstrap"] == {"resamples": 400, "seed": 0, "confidence": 0.95, "held": []}
    assert "bootstrap 95 %" in res.output and "2–3" in res.output
    # the table it built is a scores CSV that ranks the same
    again = tmp_path / "again"
    res = runner.invoke(app, ["rank", "--table", str(out / "scores.csv"), "-o", str(again)])
    assert res.exit_code == 0, res.output
    back = json.loads((again / "robustness.json").read_text())["models"]
    assert {m: v["rank"] for m, v in back.items()} == {m: v["rank"] for m, v in models.items()}


def test_the_bootstrap_draws_one_sample_set_per_benchmark_for_every_model(runs: tuple[Path, Path]) -> None:
    """Paired within a benchmark: alpha's and beta's WERs add up to 100 % in every resample
    (each sample is wrong for exactly one of them); independent across benchmarks."""
    built = table_from_runs(list(runs))
    resampled = bootstrap_tables(built, resamples=300, seed=7)
    assert resampled is not None and resampled.values.shape == (300, 4, 2)
    alpha, beta = built.table.models.index("constant:alpha"), built.table.models.index("constant:beta")
    total = resampled.values[:, alpha, :] + resampled.values[:, beta, :]
    assert np.allclose(total, 100.0)
    assert resampled.values[:, alpha, 0].std() > 5.0
    assert not np.allclose(resampled.values[:, alpha, 0], resampled.values[:, alpha, 1])
    assert np.all(resampled.values[:, built.table.models.index("oracle"), :] == 0.0)
    # the same seed gives the same resamples
    assert np.array_equal(bootstrap_tables(built, resamples=300, seed=7).values, resampled.values)


def test_a_pair_whose_records_were_deleted_is_refused(runs: tuple[Path, Path], tmp_path: Path) -> None:
    """The summary's figure of a pair whose records.jsonl is gone cannot be vouched for: the
    command refuses, naming the file (it was ranked at its summary's value, unresampled)."""
    import shutil

    copy = tmp_path / "run1"
    shutil.copytree(runs[0], copy)
    (copy / "set1" / "constant_alpha" / "records.jsonl").unlink()
    out = tmp_path / "rank"
    res = runner.invoke(app, ["rank", str(copy), "-o", str(out), "--resamples", "50"], catch_exceptions=False)
    assert res.exit_code == 2, res.output
    assert "constant_alpha/records.jsonl: deleted after summary.json was computed from it" in res.output
    assert not (out / "robustness.json").exists()


def test_a_model_with_the_same_benchmark_in_two_runs_is_one_result_or_asks_for_prefer(
    runs: tuple[Path, Path], tmp_path: Path
) -> None:
    """The same result in two run directories is ranked once; different results under one
    name are refused, naming --prefer (`analysis/run_pairs.py`)."""
    res = runner.invoke(
        app, ["rank", str(runs[0]), str(runs[0]), "-o", str(tmp_path / "o"), "--resamples", "0"]
    )
    assert res.exit_code == 0, res.output
    report = json.loads((tmp_path / "o" / "robustness.json").read_text())
    assert len(report["models"]) == 4 and [c["name"] for c in report["columns"]] == ["set1:wer"]
    other = tmp_path / "other"
    shutil.copytree(runs[0], other)
    summary = json.loads((other / "summary.json").read_text())
    folder = next(r["folder"] for r in summary["results"] if r["model"] == "oracle")
    records = other / folder / "records.jsonl"
    lines = [json.loads(x) for x in records.read_text().splitlines()]
    lines[0]["output"]["text"] = "something else"
    records.write_text("".join(json.dumps(x) + "\n" for x in lines))
    assert runner.invoke(app, ["rescore", str(other), "--resamples", "0"]).exit_code == 0
    res = runner.invoke(app, ["rank", str(runs[0]), str(other), "-o", str(tmp_path / "o2")])
    assert res.exit_code == 2
    flat = " ".join(res.output.split())
    assert "'oracle' has benchmark 'set1'" in flat and "with different results" in flat and "--prefer" in flat
    res = runner.invoke(
        app,
        [
            "rank",
            str(runs[0]),
            str(other),
            "--prefer",
            str(other),
            "-o",
            str(tmp_path / "o3"),
            "--resamples",
            "0",
        ],
    )
    assert res.exit_code == 0, res.output


@pytest.mark.skipif(
    shutil.which("java") is None, reason="no Java runtime on PATH (`make java-deps` installs it)"
)
# A whole-set headline (CIDEr-D of a captioning run) bootstrapped, not held: in
# tests/test_caption_metrics.py, where the run's METEOR jar is already started.


def test_names_that_a_spreadsheet_reads_as_formulas_are_quoted_in_scores_csv(tmp_path: Path) -> None:
    """Issue 27: a model named `=HYPERLINK(…)` was written as a formula into scores.csv; it is
    written with a leading quote (OWASP), numbers stay numbers, and `--table` reads it back."""
    from audioeval.report.ranking_table import scores_csv

    evil = ['=HYPERLINK("http://x")', "+1", "-cmd", "@SUM(A1)", "\tTAB"]
    table = _table(
        {name: [10.5 + i] for i, name in enumerate(evil)} | {"plain": [3.0]}, [("x:wer", False, "asr")]
    )
    table = _with_value(table, "plain", "x:wer", 3.0)
    text = scores_csv(table)
    lines = text.splitlines()
    for line in lines[1:-1]:
        assert line.lstrip('"').startswith("'"), line  # no cell starts with = + - @ or a tab
    assert lines[-1] == "plain,3.0" and lines[2] == "'+1,11.5"
    path = tmp_path / "scores.csv"
    path.write_text(text, encoding="utf-8")
    assert read_score_csv(path).models == (*evil, "plain")


def test_spearman_cells_show_n_and_are_greyed_below_five_models(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 28: spearman.json holds each ρ's n; the heatmap writes it in the cell and greys
    the cells over fewer than 5 models."""
    import audioeval.report.ranking_table as page

    table = _table(
        {f"m{i}": [float(i), float(10 - i), math.nan if i > 2 else 1.0 * i] for i in range(6)},
        [("a:bleu", True, "ast"), ("b:bleu", True, "ast"), ("c:bleu", True, "ast")],
    )
    spear = spearman_json(table)
    assert spear["n"] == [[6, 6, 3], [6, 6, 3], [3, 3, 3]]
    seen: dict = {}
    monkeypatch.setattr(page, "heatmap", lambda *a, **kw: seen.update(kw) or "<svg/>")
    page.heatmap_svg(spear)
    assert seen["notes"][0] == ["n=6", "n=6", "n=3"]
    assert seen["grey"] == [[False, False, True], [False, False, True], [True, True, True]]
