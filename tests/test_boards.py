"""Leaderboards by task family, as UltraEval-Audio computes them, and boards users write in YAML.

The published numbers are UltraEval-Audio's leaderboards (its README; the same tables are in
its paper's appendix, Tables 9–11, `shared/seeds/003_*`): every model's per-column numbers are
typed in below as facts (understanding: `tests/data/ultraeval_understanding.csv`), and the
boards must give the published averages from them.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from audioeval.benchmarks.tasks import FAMILIES, TASKS
from audioeval.cli.main import app
from audioeval.core.errors import InputError
from audioeval.engine.board_spec import load_board_file, parse_board
from audioeval.engine.family_boards import FAMILY_BOARDS, family_boards
from audioeval.engine.leaderboard import build_board, build_boards
from audioeval.engine.run_summary import write_run_summary
from audioeval.metrics.corpus import get_metric
from audioeval.report.leaderboard_table import NEGATIVE_MARK, leaderboards_markdown
from tests.run_helpers import tone_asr_manifest
from tests.test_rank import TABLE_9_AVG

runner = CliRunner()

HALF_A_CENT = 0.005 + 1e-9
"""The published averages have two decimals, computed from unrounded per-column numbers."""


def pair(bench: str, model: str, task: str, values: dict[str, float | None], **extra: Any) -> dict:
    """A pair summary as `metrics/pair_summary.py` writes it (units and directions of the
    registered metrics; WER and accuracy as fractions, SIM 0–1, MOS 0–5)."""
    metrics = {}
    for name, value in values.items():
        m = get_metric(name)
        metrics[name] = {
            "value": value,
            "ci": None,
            "n": 10,
            "higher_is_better": m.higher_is_better,
            "unit": m.unit,
        }
    res = {"benchmark": bench, "model": model, "task": task, "headline": next(iter(values))}
    return {**res, "metrics": metrics, "scored": 10, "failed": 0, **extra}


def board(name: str, results: list[dict]) -> dict:
    out = build_board(next(b for b in family_boards() if b.name == name), results)
    assert out is not None
    return out


def rows(b: dict) -> dict[str, dict]:
    return {r["model"]: r for r in b["rows"]}


# UltraEval-Audio generation leaderboard (README; paper Table 10): SpeechWebQuestions,
# SpeechTriviaQA, SpeechAlpacaEval, SpeechCMMLU, SpeechHSK (%), acoustics UTMOS | DNSMOS P.835 |
# P.808 over all the generated answers, then the published average.
GENERATION = {
    "GPT-4o-Realtime": ([51.60, 69.70, 74.00, 70.05, 98.69], (4.29, 3.44, 4.26), 74.00),
    "Qwen3-Omni-30B-A3B-Instruct": ([51.50, 55.27, 67.97, 47.83, 40.27], (4.44, 3.45, 4.12), 57.15),
    "Qwen2.5-Omni": ([38.89, 39.94, 54.00, 73.72, 95.65], (4.23, 3.48, 4.27), 63.68),
    "MiniCPM-o 2.6": ([40.00, 40.20, 51.00, 51.37, 80.68], (4.12, 3.39, 4.02), 56.69),
    "Kimi-Audio-7B-Instruct": ([33.69, 38.20, 34.40, 71.25, 97.42], (2.94, 3.22, 3.62), 56.69),
    "GLM-4-Voice": ([32.00, 36.40, 51.00, 52.61, 71.06], (4.21, 3.46, 4.07), 53.56),
}
SPOKEN_QA = ["speech-webq", "speech-triviaqa", "speech-alpacaeval", "speech-cmmlu", "speech-hsk"]


def generation_results() -> list[dict]:
    """Each model's five spoken-QA pairs; the acoustic values are over all its answers, so every
    pair carries them (the board's acoustic columns are the mean over the model's pairs)."""
    out = []
    for model, (accs, (utmos, ovrl, p808), _) in GENERATION.items():
        for bench, acc in zip(SPOKEN_QA, accs, strict=True):
            values = {
                "includes": acc / 100,
                "mean:utmos": utmos,
                "mean:dnsmos_ovrl": ovrl,
                "mean:dnsmos_p808": p808,
            }
            out.append(pair(bench, model, "spoken_qa_audio", values))
    return out


def test_generation_average_is_ultraeval_audio_published_average() -> None:
    b = board("generation", generation_results())
    got = rows(b)
    for model, (_, acoustics, published) in GENERATION.items():
        assert got[model]["average"] == pytest.approx(published, abs=HALF_A_CENT), model
        assert got[model]["groups"]["acoustic"] == pytest.approx(sum(20 * a for a in acoustics) / 3)
        assert (got[model]["averaged_over"], got[model]["entries"]) == (6, 6)  # acoustics: one of six
    assert [r["model"] for r in b["rows"]][:2] == ["GPT-4o-Realtime", "Qwen2.5-Omni"]
    # each MOS as a column of its own (the old board) gives another number: 75.48, not 74.00
    accs, acoustics, _ = GENERATION["GPT-4o-Realtime"]
    assert (sum(accs) + sum(20 * a for a in acoustics)) / 8 == pytest.approx(75.48, abs=0.01)


# UltraEval-Audio codec leaderboard (README; paper Table 11): per dataset ASR-WER/CER (%), SIM
# (× 100), UTMOS | DNSMOS P.835 | P.808 (0–5); UTMOS is "-" for Chinese (AISHELL-1; the text
# extraction of the paper prints "- 2.93" as "-12.93"); then the published average.
CODEC = {
    "Encodec-24k": (
        (4.56, 59.40, (1.58, 3.12, 2.36)),
        (4.32, 59.40, (1.57, 3.12, 2.36)),
        (13.95, 47.48, (None, 2.93, 2.03)),
        65.24,
    ),
    "Encodec-48k": (
        (3.85, 65.53, (1.52, 2.88, 2.42)),
        (3.80, 66.00, (1.48, 2.87, 2.40)),
        (6.85, 68.78, (None, 2.79, 2.21)),
        69.59,
    ),
    "ChatTTS-DVAE": (
        (7.49, 34.83, (1.30, 2.66, 2.11)),
        (6.75, 36.21, (1.29, 2.64, 2.12)),
        (32.36, 32.36, (None, 2.24, 1.57)),
        52.86,
    ),
    "Mimi (32bit)": (
        (2.04, 92.18, (3.83, 2.87, 2.44)),
        (1.96, 92.68, (3.84, 2.92, 2.49)),
        (2.82, 84.80, (None, 2.43, 1.89)),
        80.96,
    ),
    "Mimi (8bit)": (
        (2.76, 72.15, (3.52, 2.78, 2.37)),
        (2.83, 73.13, (3.53, 2.83, 2.43)),
        (6.82, 60.63, (None, 2.42, 2.04)),
        72.72,
    ),
    "Mimi-streaming (8bit)": (
        (6.76, 54.02, (1.65, 2.78, 2.37)),
        (6.19, 54.32, (1.63, 2.83, 2.43)),
        (19.62, 40.67, (None, 2.42, 2.04)),
        61.37,
    ),
    "WavTokenizer-large-75": (
        (4.31, 69.97, (4.01, 3.64, 3.26)),
        (4.05, 68.15, (4.00, 3.63, 3.27)),
        (8.97, 64.27, (None, 3.11, 2.85)),
        76.67,
    ),
    "WavTokenizer-large-40": (
        (8.13, 60.26, (3.78, 3.70, 3.13)),
        (7.73, 56.63, (3.77, 3.70, 3.16)),
        (25.52, 49.21, (None, 3.13, 2.50)),
        69.18,
    ),
    "Spark": (
        (2.39, 79.94, (4.18, 3.85, 3.24)),
        (2.53, 79.53, (4.18, 3.83, 3.24)),
        (3.66, 74.76, (None, 3.63, 2.85)),
        82.29,
    ),
}
CODEC_SETS = (("ls-dev-clean", "wer"), ("ls-test-clean", "wer"), ("aishell-1", "cer"))


def codec_results(models: dict = CODEC) -> list[dict]:
    out = []
    for model, (*sets, _) in models.items():
        for (bench, rate), (err, sim, (utmos, ovrl, p808)) in zip(CODEC_SETS, sets, strict=True):
            values = {
                rate: err / 100,
                "mean:sim": sim / 100,
                "mean:utmos": utmos,
                "mean:dnsmos_ovrl": ovrl,
                "mean:dnsmos_p808": p808,
            }
            out.append(pair(bench, model, "codec", values))
    return out


def test_codec_average_is_ultraeval_audio_published_average() -> None:
    b = board("codec", codec_results())
    got = rows(b)
    for model, (*_, published) in CODEC.items():
        assert got[model]["average"] == pytest.approx(published, abs=HALF_A_CENT), model
        assert (got[model]["averaged_over"], got[model]["entries"]) == (9, 9)  # 3 datasets × 3
        assert got[model]["missing"] == []
    assert b["not_applicable"] == ["aishell-1 · UTMOS"]  # no model has UTMOS on Chinese
    spark = got["Spark"]["groups"]
    assert spark["aishell-1 · acoustic"] == pytest.approx((20 * 3.63 + 20 * 2.85) / 2)
    assert spark["ls-dev-clean · acoustic"] == pytest.approx(20 * (4.18 + 3.85 + 3.24) / 3)
    assert [r["model"] for r in b["rows"]][:2] == ["Spark", "Mimi (32bit)"]


UNDERSTANDING_TABLE = Path(__file__).parent / "data" / "ultraeval_understanding.csv"
"""UltraEval-Audio's understanding board, 12 models × 13 columns, as its README and paper print it."""
UNDERSTANDING = TABLE_9_AVG  # the published averages (tests/test_rank.py)
"""Its published averages (README; paper Tables 5 and 9, "Avg. Score")."""
TASK_OF = {"wer": "asr", "cer": "asr", "bleu": "ast", "accuracy": "classification"}


def understanding_results() -> list[dict]:
    lines = [x for x in UNDERSTANDING_TABLE.read_text().splitlines() if not x.startswith("#")]
    out = []
    for row in csv.DictReader(lines):
        model = row.pop("model")
        for column, text in row.items():
            bench, metric = column.split(":")
            value = float(text)
            if model == "Gemini-1.5-Flash" and bench == "commonvoice-zh-test":
                value = 84.37  # the README's value (the paper's text prints 184.37; see the file)
            scale = 1.0 if metric == "bleu" else 100.0
            out.append(pair(bench, model, TASK_OF[metric], {metric: value / scale}))
    return out


def test_understanding_average_is_ultraeval_audio_published_average_unclipped() -> None:
    b = board("understanding", understanding_results())
    got = rows(b)
    assert len(b["columns"]) == 13
    for model, published in UNDERSTANDING.items():
        assert got[model]["average"] == pytest.approx(published, abs=HALF_A_CENT), model
    flash = got["Gemini-1.5-Flash"]  # a WER of 279.90 enters as 100 − 279.90, not clipped
    assert flash["cells"]["wenetspeech-test-net · cer"]["normalised"] == pytest.approx(-179.90)
    assert flash["negative_columns"] == ["commonvoice-en-test · wer", "wenetspeech-test-net · cer"]
    assert (
        b["rows"][0]["model"] == "Qwen3-Omni-30B-A3B-Instruct"
        and b["rows"][-1]["model"] == "Gemini-1.5-Flash"
    )
    md = leaderboards_markdown({"boards": {"understanding": b}})
    assert f"| 279.90 % {NEGATIVE_MARK} |" in md and f"| 27.80 {NEGATIVE_MARK} |" in md


def test_a_model_of_two_families_is_on_both_boards_and_nothing_averages_across(tmp_path: Path) -> None:
    results = [
        pair("asr-set", "omni", "asr", {"wer": 0.10}),
        pair("asr-set", "whisper", "asr", {"wer": 0.05}),
        pair("tts-set", "omni", "tts", {"wer": 0.20, "mean:dnsmos_ovrl": 3.0, "mean:dnsmos_p808": 4.0}),
        pair("mcq-set", "omni", "mcq", {"accuracy": 0.5}),
    ]
    summary = write_run_summary(tmp_path, results).to_json()
    boards = summary["boards"]
    assert list(boards) == ["understanding", "reasoning", "generation"]
    assert "leaderboard" not in summary and "generation_leaderboards" not in summary
    assert [r["model"] for r in boards["understanding"]["rows"]] == ["whisper", "omni"]
    assert rows(boards["understanding"])["omni"]["average"] == pytest.approx(90.0)  # its ASR only
    assert [r["model"] for r in boards["generation"]["rows"]] == ["omni"]
    assert rows(boards["generation"])["omni"]["average"] == pytest.approx((80.0 + (60.0 + 80.0) / 2) / 2)
    assert rows(boards["reasoning"])["omni"]["average"] == pytest.approx(50.0)
    for b in boards.values():  # every column of a board is of its own family's benchmarks
        assert {c["benchmark"] for c in b["columns"]} <= {"asr-set", "tts-set", "mcq-set", None}
        assert len({c["benchmark"] for c in b["columns"]} - {None}) == 1
    on_disk = json.loads((tmp_path / "summary.json").read_text())
    assert on_disk["boards"] == json.loads(json.dumps(boards))
    md = leaderboards_markdown(summary)
    assert md.count("\n## ") == 3 and "## Understanding" in md and "## Generation" in md


def test_a_partial_row_names_the_columns_it_lacks() -> None:
    results = codec_results({"Spark": CODEC["Spark"]})
    results += [r for r in codec_results({"half": CODEC["Mimi (32bit)"]}) if r["benchmark"] != "aishell-1"]
    b = board("codec", results)
    half = rows(b)["half"]
    assert half["missing"] == ["aishell-1 · cer", "aishell-1 · SIM", "aishell-1 · OVRL", "aishell-1 · P.808"]
    assert (half["averaged_over"], half["entries"]) == (6, 9)
    dev, test = CODEC["Mimi (32bit)"][0], CODEC["Mimi (32bit)"][1]
    expected = sum(100 - s[0] + s[1] + sum(20 * a for a in s[2]) / 3 for s in (dev, test)) / 6
    assert half["average"] == pytest.approx(expected)  # the mean of the available ones
    assert rows(b)["Spark"]["missing"] == []
    md = leaderboards_markdown({"boards": {"codec": b}})
    # issue 28: by default it is listed below the complete row, unranked, naming what it lacks
    assert [(r["model"], r["rank"]) for r in b["rows"]] == [("Spark", 1), ("half", None)]
    line = next(x for x in md.splitlines() if x.startswith("| – | half |"))
    assert line.endswith(f"| {expected:.2f} (6/9) |")
    assert (
        "half lacks aishell-1 · cer, aishell-1 · SIM, aishell-1 · OVRL, aishell-1 · P.808: listed below" in md
    )
    # UltraEval-Audio's convention (--mean-of-available): ranked by the mean of the available ones
    published = build_board(parse_board(FAMILY_BOARDS["codec"], "codec"), results, mean_of_available=True)
    assert published is not None and published["incomplete_rows"].startswith("ranked by the mean")
    md = leaderboards_markdown({"boards": {"codec": published}})
    line = next(x for x in md.splitlines() if x.startswith("| 1 | half |"))  # ranked by its average
    assert line.endswith(f"| {expected:.2f} (6/9) |")
    assert "half lacks aishell-1 · cer, aishell-1 · SIM, aishell-1 · OVRL, aishell-1 · P.808." in md


def test_a_group_is_the_mean_of_its_available_members_and_does_not_make_a_row_incomplete() -> None:
    """A row lacking one acoustic member (UTMOS) but having the others is complete: the group
    is one entry, the mean of its available members."""
    results = codec_results({"Spark": CODEC["Spark"], "Mimi": CODEC["Mimi (32bit)"]})
    for r in results:
        if r["model"] == "Mimi":
            r["metrics"] = {k: v for k, v in r["metrics"].items() if k != "mean:utmos"}
    b = board("codec", results)
    assert all(r["rank"] is not None for r in b["rows"])


def test_editing_board_has_no_average_and_ranks_by_emr_then_ifr() -> None:
    results = [
        pair("mmae", "identity", "audio_edit", {"mean:ifr": 27.37, "mean:cr": 94.13, "mean:em": 4.60}),
        pair("mmae", "noise", "audio_edit", {"mean:ifr": 32.08, "mean:cr": 15.68, "mean:em": 0.0}),
        pair("mmae", "editor", "audio_edit", {"mean:ifr": 44.86, "mean:cr": 58.88, "mean:em": 4.60}),
    ]
    b = board("editing", results)
    assert [r["model"] for r in b["rows"]] == ["editor", "identity", "noise"]
    assert all("average" not in r for r in b["rows"])
    md = leaderboards_markdown({"boards": {"editing": b}})
    assert "| 1 | editor | 44.86 % | 58.88 % | 4.60 % |" in md and "Ranked by EMR, then IFR, then CR." in md
    assert [c["label"] for c in b["columns"]] == ["IFR", "CR", "EMR"]  # the declared display names


def test_the_editing_board_is_the_benchmarks_own_and_generic_code_names_none_of_its_metrics() -> None:
    """The family boards name no benchmark's metric: MMAE gives its board (`Benchmark.boards`)
    with its declared metrics; without it, the family's board shows each headline."""
    import inspect

    from audioeval.benchmarks.plugins import load_benchmarks
    from audioeval.engine import board_spec, leaderboard
    from audioeval.engine import family_boards as family_module
    from audioeval.metrics.declaration import MicroDeclaration

    mmae = load_benchmarks()["mmae"]
    declared = {m.name for m in mmae.metrics} | {m.key for m in mmae.metrics}
    for module in (family_module, board_spec, leaderboard):
        text = inspect.getsource(module)
        assert not [n for n in declared if f'"{n}"' in text], module.__name__
    generic = build_board(parse_board(FAMILY_BOARDS["editing"], "editing"), [
        pair("mmae", "editor", "audio_edit", {"mean:ifr": 44.86, "mean:cr": 58.88, "mean:em": 4.60}),
    ])  # fmt: skip
    assert generic is not None and [c["metric"] for c in generic["columns"]] == ["mean:ifr"]
    editing = next(b for b in family_boards() if b.name == "editing")
    rates = [m.name for m in mmae.metrics if not isinstance(m, MicroDeclaration)]  # the micro rates: no column
    assert [c.metric for c in editing.columns] == rates
    assert editing.rank_by == ["EMR", "IFR", "CR"] and editing.title == "Editing (MMAE)"


def test_every_task_has_a_family_and_every_family_a_board() -> None:
    assert {TASKS.get(t).family for t in TASKS.names()} == set(FAMILIES)
    assert [b.family for b in family_boards()] == list(FAMILIES)
    assert TASKS.get("mcq").family == "reasoning" and TASKS.get("tts").family == "generation"


USER_BOARD = """
name: tts-quality
title: TTS quality
tasks: [tts]
columns:
  - {metric: wer, label: WER, direction: lower, transform: percent}
  - {metric: "mean:utmos", label: UTMOS, transform: mos, group: acoustic}
  - {metric: "mean:dnsmos_ovrl", label: OVRL, transform: mos, group: acoustic, weight: 3}
groups:
  acoustic: {label: acoustics, weight: 2}
"""


def test_a_user_yaml_board_is_built_with_its_weights(tmp_path: Path) -> None:
    path = tmp_path / "board.yaml"
    path.write_text(USER_BOARD, encoding="utf-8")
    (spec,) = load_board_file(path)
    results = [
        pair("tts-a", "voice", "tts", {"wer": 0.10, "mean:utmos": 4.0, "mean:dnsmos_ovrl": 3.0}),
        pair("asr-a", "voice", "asr", {"wer": 0.50}),
    ]
    summary = write_run_summary(tmp_path, results, boards=[spec]).to_json()
    b = summary["boards"]["tts-quality"]
    (row,) = b["rows"]
    acoustic = (80.0 * 1 + 60.0 * 3) / 4
    assert row["groups"]["tts-a · acoustic"] == pytest.approx(acoustic)
    assert row["average"] == pytest.approx((90.0 + 2 * acoustic) / 3)
    assert b["benchmarks"] == ["tts-a"] and "understanding" in summary["boards"]
    assert "## TTS quality" in leaderboards_markdown(summary)
    many = tmp_path / "many.yaml"
    many.write_text(
        "boards:\n  - {name: a, columns: [{metric: wer}]}\n  - {name: b, columns: [{metric: headline}]}\n"
    )
    assert [s.name for s in load_board_file(many)] == ["a", "b"]
    replaced = build_boards(
        results,
        [*family_boards(), parse_board({"name": "understanding", "columns": [{"metric": "wer"}]}, "x")],
    )
    assert list(replaced) == ["generation", "understanding"] and replaced["understanding"]["benchmarks"] == [
        "tts-a",
        "asr-a",
    ]


@pytest.mark.parametrize(
    ("text", "field", "says"),
    [
        ("name: b\ncolums: [{metric: wer}]\n", "colums", "did you mean 'columns'"),
        ("name: b\ncolumns: [{metric: wre}]\n", "columns.0.metric", "Did you mean 'wer'?"),
        ("name: b\ncolumns: [{metric: wer, transform: x20}]\n", "columns.0.transform", "'percent'"),
        ("name: b\ncolumns: [{metric: wer, wieght: 2}]\n", "columns.0.wieght", "did you mean 'weight'"),
        ("name: b\ncolumns: [{metric: wer, weight: -1}]\n", "columns.0.weight", "greater than or equal to 0"),
        ("name: b\nfamily: generaton\ncolumns: [{metric: wer}]\n", "family", "did you mean 'generation'"),
        ("name: b\ntasks: [ttts]\ncolumns: [{metric: wer}]\n", "tasks", "did you mean 'tts'"),
        (
            "name: b\ncolumns: [{metric: wer}]\ngroups: {acoustic: {}}\n",
            None,
            "group 'acoustic' has no column",
        ),
        (
            "name: b\ncolumns: [{metric: wer, label: W}]\nrank_by: [WER]\n",
            None,
            "not a column label or group",
        ),
        ("name: b\ncolumns: [{metric: wer, weight: 0}]\n", None, "nothing to average"),
        ("name: b\ncolumns: [{metric: wer}, {metric: wer}]\n", None, "two columns are labelled 'wer'"),
        ("name: b\ncolumns: []\n", "columns", "at least 1"),
        ("columns: [{metric: wer}]\n", "name", "required"),
        ("name: b\ncolumns: [{metric: wer}\n", None, "malformed YAML"),
        ("- name: b\n", None, "must be a YAML mapping"),
    ],
)
def test_a_bad_board_file_errors_clearly(tmp_path: Path, text: str, field: str | None, says: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as err:
        load_board_file(path)
    assert says in err.value.message and str(path) in (err.value.file or "")
    assert err.value.field == field


def test_a_run_builds_the_boards_of_its_boards_yaml_on_rescore(tmp_path: Path) -> None:
    """`<run>/boards.yaml` is read whenever the run's summary is written: add it, rescore."""
    manifest = tone_asr_manifest(tmp_path / "set")
    out = tmp_path / "out"
    args = ["-m", "oracle,constant", "--task", "asr", "-b", str(manifest), "-o", str(out), "--no-progress"]
    res = runner.invoke(app, ["run", *args, "--resamples", "10"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    (out / "boards.yaml").write_text(
        "name: words\ntitle: Words kept\nbenchmarks: [asr]\ncolumns: [{metric: wer, label: kept, direction: lower}]\n"
    )
    res = runner.invoke(app, ["rescore", str(out), "--resamples", "10"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    boards = json.loads((out / "summary.json").read_text())["boards"]
    assert list(boards) == ["understanding", "words"]
    assert [(r["model"], r["average"]) for r in boards["words"]["rows"]] == [
        ("oracle", 100.0),
        ("constant", 0.0),
    ]
    assert "Words kept leaderboard" in res.output and "## Words kept" in (out / "leaderboard.md").read_text()

    (out / "boards.yaml").write_text("name: words\ncolumns: [{metric: wer, direction: down}]\n")
    res = runner.invoke(app, ["rescore", str(out)], catch_exceptions=False)
    assert res.exit_code == 2
    text = " ".join(res.output.split())
    assert "boards.yaml" in text and "columns.0.direction" in text and "'lower'" in text
