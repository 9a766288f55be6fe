"""AIR-Bench (benchmarks/air_bench/): the official foundation rule (score_foundation.py,
official-rules §4.1) and chat score line (cal_score.py, §4.2), one test per rule, with the
official outcomes worked out by hand from the rule; and the foundation spec end to end through
`audioeval run` with a predictions file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from audioeval.benchmarks.air_bench.chat_rule import category, official_score_pair
from audioeval.benchmarks.air_bench.foundation_rule import gold_letter, official_letter, task_id
from audioeval.benchmarks.air_bench.foundation_scorer import AirBenchFoundationScorer
from audioeval.benchmarks.plugins import load_benchmarks
from audioeval.benchmarks.registry import load_shipped
from audioeval.benchmarks.resolved import resolve
from audioeval.benchmarks.sources.loader import load_samples
from audioeval.cli.main import app
from audioeval.core.errors import InputError
from audioeval.core.sample import Sample
from audioeval.engine.sample_pipeline import build_messages
from audioeval.prompts.templates import load_template
from audioeval.scoring.base import Prediction
from audioeval.scoring.scorer_registry import build_scorer
from tests.fakes.mcq_server import tone_wav
from tests.run_helpers import write_jsonl

runner = CliRunner()
CHOICES = ["dog", "cat", "cow", "owl"]


def _sample(answer: str = "dog", choices: list[str] = CHOICES, task: str | None = "Sound_AQA") -> Sample:
    taxonomy = {"dataset_name": "clothoaqa", **({"task_name": task} if task else {})}
    return Sample("s", fields={"answer": answer, "choices": choices}, taxonomy=taxonomy)


def _official(reply: str | None, answer: str = "dog", choices: list[str] = CHOICES) -> Any:
    score = AirBenchFoundationScorer().score(Prediction(reply, reply), _sample(answer, choices))
    return score.stats["official_correct"], score.stats["official_left_out"], score.detail


# -- §4.1 foundation ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "gold", "outcome"),
    [
        ("A", "dog", 1),  # step 5: first character
        ("B", "dog", 0),
        ("The answer is A.", "dog", 1),  # step 6: second-to-last
        ("(A)", "dog", 1),
        ("Answer: B", "cat", 0),  # read as A from "Answer"
        ("Based on the audio, A", "cat", 1),  # read as B from "Based": correct by accident
        ("Definitely B.", "cat", 0),  # read as D
        ("  \nC\n", "cow", 1),  # step 3: strip, then delete newlines
        ("A.\nThe dog barks", "dog", 1),
        ("C", "dog", 0),  # a letter beyond the item's options is read (and wrong)
    ],
)
def test_foundation_reads_the_first_then_second_to_last_character(
    reply: str, gold: str, outcome: int
) -> None:
    assert _official(reply, gold)[:2] == (outcome, 0)


@pytest.mark.parametrize(
    "reply", ["The answer is A", "a", "None", "", "   ", "The answer is d.", "E", "It is B", None]
)
def test_foundation_leaves_unreadable_replies_out_and_counts_them(reply: str | None) -> None:
    correct, left_out, detail = _official(reply)
    assert (correct, left_out) == (None, 1) and "left out" in detail["reason"]
    assert official_letter(reply) is None


def test_newlines_are_deleted_after_the_strip_so_the_second_to_last_character_moves() -> None:
    assert official_letter("It is\nB.") == "B"  # "It isB." -> second-to-last "B"
    assert official_letter("It is B\n") is None  # stripped first: "It is B" -> second-to-last " "
    assert official_letter("x\nA\n.") == "A"  # "xA." after deleting inner newlines


def test_gold_letter_is_the_first_choice_equal_to_the_answer_text() -> None:
    assert gold_letter("cat", ["dog", "cat", None, None]) == "B"
    assert gold_letter("cat", ["cat", "cat"]) == "A"  # in order A-D
    assert gold_letter("Cat", ["dog", "cat"]) is None  # exact equality
    assert gold_letter("cat ", ["dog", "cat"]) is None


def test_an_answer_none_of_the_choices_fails_the_sample_only_when_a_letter_was_read() -> None:
    with pytest.raises(InputError, match="exit 1"):
        _official("A", "horse")
    assert _official("no idea", "horse")[:2] == (None, 1)  # step 8 is not reached


def test_a_line_without_task_name_is_skipped_not_even_a_failure() -> None:
    score = AirBenchFoundationScorer().score(Prediction("A", "A"), _sample(task=None))
    assert score.stats == {"official_correct": None, "official_left_out": 0, "official_skipped": 1}
    assert task_id("Sound_AQA", "clothoaqa") == "Sound_AQA_clothoaqa"


def test_the_official_rule_reads_the_raw_reply_not_the_processed_one() -> None:
    score = AirBenchFoundationScorer().score(Prediction("A", "<think>B</think>A"), _sample())
    assert score.stats["official_left_out"] == 1  # "<" is no letter, nor is "A"'s neighbour ">"


# -- §4.2 chat -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "pair"),
    [
        ("8 7", (8, 7)),
        (" 9 9 ", (9, 9)),  # outer strip
        ("10 10", (10, 10)),
        ("-1 5", (-1, 5)),  # negatives pass
        ("0 3", (0, 3)),
        ("8  7", None),  # two spaces: three parts
        ("8\n7", None),  # the newline is deleted: "87"
        ("8.5 7", None),  # int() of "8.5" fails
        ("11 5", None),  # above 10: the exit(1) is caught, a failure
        ("8 7 6", None),
        ("8", None),
        ("Assistant 1: 8 Assistant 2: 7", None),
        ("8, 7", None),
    ],
)
def test_chat_score_line_is_two_ints_split_on_one_space(line: str, pair: tuple[int, int] | None) -> None:
    assert official_score_pair(line) == pair


def test_chat_categories_are_the_official_task_map() -> None:
    assert [category(t) for t in ("speech_dialogue_QA", "sound_generation_QA", "music_QA")] == [
        "speech",
        "sound",
        "music",
    ]
    assert category("speech_and_music_QA") == "speech_and_music" and category("other_QA") is None


def test_chat_judge_reads_the_official_line_by_default_and_ours_on_request() -> None:
    load_benchmarks()  # registers every benchmark's scorers
    official = build_scorer("airbench_chat", {}, where="test")
    assert official.read("8 7", "reference_first") == [7.0, 8.0]  # [model, reference]
    assert official.read("8, 7", "reference_first") is None
    assert official.read("-1 5", "model_first") == [-1.0, 5.0]
    lenient = build_scorer("airbench_chat", {"parser": "lenient"}, where="test")
    assert lenient.read("8, 7", "reference_first") == [7.0, 8.0]
    assert official.signature() != lenient.signature()
    with pytest.raises(InputError, match="parser"):
        build_scorer("airbench_chat", {"parser": "loose"}, where="test")


def test_the_judge_prompt_ships_in_the_benchmark_folder() -> None:
    load_benchmarks()
    template = load_template("judge_airbench_chat")
    assert template.name == "judge-airbench-chat-v1"
    assert template.source == "audioeval.benchmarks.air_bench:judge_airbench_chat"  # from its folder
    assert (
        load_template("air_bench_foundation").source == "audioeval.benchmarks.air_bench:air_bench_foundation"
    )
    assert build_scorer("airbench_chat", {}, where="test").template.name == template.name


# -- the foundation spec end to end ------------------------------------------------------------

ITEMS = [  # (task_name, dataset_name, options, gold, reply, official outcome, ours)
    ("Sound_AQA", "clothoaqa", ["Dog", "Cat", "Cow", "Owl"], "Dog", "A", 1, 1),
    ("Sound_AQA", "clothoaqa", ["Dog", "Cat", "Cow", "Owl"], "Cat", "The answer is B", None, 1),
    ("Sound_AQA", "clothoaqa", ["Dog", "Cat", "Cow", "Owl"], "Cat", "Definitely B.", 0, 0),  # read as D
    ("Sound_AQA", "avqa", ["Rain", "Wind", "Snow", "Hail"], "Rain", "a", None, 1),  # ours reads "a"
    ("Speaker_Gender_Recognition", "meld", ["Male", "Female", None, None], "Female", "B", 1, 1),
    ("Speaker_Gender_Recognition", "meld", ["Male", "Female", None, None], "Male", "I am not sure.", None, 0),
]


def test_air_bench_foundation_runs_with_the_official_rule_and_ours_beside(tmp_path: Path) -> None:
    root = tmp_path / "data"
    folder = root / "air-bench-foundation"
    (folder / "Foundation").mkdir(parents=True)
    rows = []
    for i, (task, ds, opts, gold, _, _, _) in enumerate(ITEMS):
        tone_wav(folder / "Foundation" / f"q{i}.wav", 220 + 55 * i, seconds=0.2)
        rows.append({"uniq_id": f"u{i}", "question": "What is it?", "answer_gt": gold, "task_name": task,
                     "dataset_name": ds, "task_id": f"{task}_{ds}", "audio": f"Foundation/q{i}.wav",
                     **dict(zip(("choice_a", "choice_b", "choice_c", "choice_d"), opts, strict=True))})  # fmt: skip
    write_jsonl(folder / "manifest.jsonl", rows)
    preds = write_jsonl(
        tmp_path / "preds.jsonl", [{"id": f"u{i}", "text": it[4]} for i, it in enumerate(ITEMS)]
    )
    out = tmp_path / "out"
    args = ["run", "--model", f"predictions:{preds}", "--benchmark", "air-bench-foundation"]
    args += ["--data-root", str(root), "-o", str(out), "--no-progress", "--resamples", "20"]
    res = runner.invoke(app, args, catch_exceptions=False)
    assert res.exit_code == 0, res.output
    (pair,) = json.loads((out / "summary.json").read_text())["results"]
    assert pair["headline"] == "mean:official_correct" and pair["failed"] == 0
    overall = {k: v["value"] for k, v in pair["metrics"].items()}
    assert overall["mean:official_correct"] == pytest.approx(2 / 3)  # 3 counted replies, 2 right
    assert overall["mean:official_left_out"] == pytest.approx(3 / 6)  # 3 of 6 left out, counted
    assert overall["mean:robust_correct"] == pytest.approx(4 / 6)  # ours: every reply counted
    expected = sum(o for *_, o, _ in ITEMS if o is not None) / sum(o is not None for *_, o, _ in ITEMS)
    assert overall["mean:official_correct"] == pytest.approx(expected)
    assert overall["mean:robust_correct"] == pytest.approx(sum(it[-1] for it in ITEMS) / len(ITEMS))
    by_task = _groups(pair, "task_id")
    assert by_task["Sound_AQA_clothoaqa"]["mean:official_correct"] == pytest.approx(1 / 2)
    assert by_task["Sound_AQA_avqa"]["mean:official_correct"] is None  # all left out: no figure
    assert by_task["Speaker_Gender_Recognition_meld"]["mean:official_correct"] == pytest.approx(1.0)
    assert by_task["Sound_AQA_clothoaqa"]["mean:official_left_out"] == pytest.approx(1 / 3)
    assert by_task["Sound_AQA_avqa"]["mean:official_left_out"] == pytest.approx(1.0)
    assert by_task["Speaker_Gender_Recognition_meld"]["mean:official_left_out"] == pytest.approx(1 / 2)
    spec, where = load_shipped("air-bench-foundation")
    two = load_samples(spec, where, root=root).samples[4]
    (message,) = build_messages(resolve(spec, where), two, None)
    text = message.parts[1].text
    assert "A. Male\nB. Female" in text and "C." not in text and "(A, B)" in text


def _groups(pair: dict[str, Any], key: str) -> dict[str, dict[str, Any]]:
    """{group: {metric: value}} of one taxonomy key in a pair summary."""
    return {
        group: {metric: value["value"] for metric, value in metrics.items()}
        for group, metrics in pair["breakdowns"][key].items()
    }


@pytest.mark.parametrize("blank", ["", None, "   "])
def test_the_gold_letter_keeps_the_position_of_a_blank_choice_cell(tmp_path: Path, blank: Any) -> None:
    """score_foundation.py compares answer_gt with choice_a ... choice_d in turn: a blank cell
    keeps its letter, so `["", "guitar", "", "piano"]` with answer piano is D (reply "D" right,
    reply "B" wrong), however the loader compacts the options for the prompt."""
    root = tmp_path / "data"
    folder = root / "air-bench-foundation"
    (folder / "Foundation").mkdir(parents=True)
    tone_wav(folder / "Foundation" / "q.wav", 330, seconds=0.2)
    row = {"uniq_id": "u", "question": "Which?", "answer_gt": "piano", "task_name": "Music_AQA",
           "dataset_name": "x", "task_id": "Music_AQA_x", "audio": "Foundation/q.wav",
           "choice_a": blank, "choice_b": "guitar", "choice_c": blank, "choice_d": "piano"}  # fmt: skip
    write_jsonl(folder / "manifest.jsonl", [row])
    spec, where = load_shipped("air-bench-foundation")
    (sample,) = load_samples(spec, where, root=root).samples
    assert sample.get("choices") == ["guitar", "piano"]  # the prompt's options
    assert sample.get("choices_by_column") == [None, "guitar", None, "piano"]
    scorer = AirBenchFoundationScorer()
    right = scorer.score(Prediction("D", "D"), sample)
    assert right.stats["official_correct"] == 1 and right.detail["gold"] == "D"
    assert scorer.score(Prediction("B", "B"), sample).stats["official_correct"] == 0


def test_a_list_field_without_blank_cells_keeps_no_positions(tmp_path: Path) -> None:
    root = tmp_path / "data"
    folder = root / "air-bench-foundation"
    (folder / "Foundation").mkdir(parents=True)
    tone_wav(folder / "Foundation" / "q.wav", 330, seconds=0.2)
    row = {"uniq_id": "u", "question": "Which?", "answer_gt": "cat", "task_name": "T", "dataset_name": "x",
           "task_id": "T_x", "audio": "Foundation/q.wav", "choice_a": "dog", "choice_b": "cat",
           "choice_c": "cow", "choice_d": "owl"}  # fmt: skip
    write_jsonl(folder / "manifest.jsonl", [row])
    spec, where = load_shipped("air-bench-foundation")
    (sample,) = load_samples(spec, where, root=root).samples
    assert sample.get("choices_by_column") is None
    assert AirBenchFoundationScorer().score(Prediction("B", "B"), sample).stats["official_correct"] == 1
