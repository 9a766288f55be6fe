"""`mcq score` reads the same predictions formats as `run`, through the same reader: every
registered format that answers multiple-choice questions with text is enumerated, a file of
it built as its tool writes it, and `audioeval run -m x=predictions:FILE -b BENCHMARK` and
`audioeval mcq score --predictions FILE [--metadata META]` give the same official figure,
equal to the count the replies were built to have. lmms-eval's MMAR task logs its target as a
letter: it is read as the option at that position of the logged `doc.choices`."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from audioeval.benchmarks.plugins import load_benchmarks
from audioeval.benchmarks.prediction_formats import PREDICTION_FORMATS
from audioeval.benchmarks.sources.tool_outputs import FORMATS
from audioeval.cli import exit_codes
from audioeval.cli.main import app

runner = CliRunner()
ENV = {"COLUMNS": "400"}

# Items valid for MMAU (task, difficulty) and MMAR (modality, category) alike. m1 and m4 ask
# the same question with the same answer (rows of equal texts go to them in file order).
ITEMS = [
    {"id": "m1", "question": "Which animal is heard?", "choices": ["Cat", "Dog", "Cow", "Owl"], "answer": "Dog"},
    {"id": "m2", "question": "How many knocks?", "choices": ["One", "Two", "Three"], "answer": "Three"},
    {"id": "m3", "question": "What plays the melody?", "choices": ["Piano", "Violin", "Flute", "Drums"],
     "answer": "Violin"},
    {"id": "m4", "question": "Which animal is heard?", "choices": ["Cat", "Dog", "Cow", "Owl"], "answer": "Dog"},
    {"id": "m5", "question": "Is the speaker happy?", "choices": ["Yes", "No"], "answer": "No"},
    {"id": "m6", "question": "Where is it recorded?", "choices": ["Street", "Forest"], "answer": "Forest"},
]  # fmt: skip
for _item in ITEMS:
    _item.update(task="sound", difficulty="easy", modality="sound", category="Signal Layer",
                 **{"sub-category": "Counting"}, audio_id=f"{_item['id']}.wav", audio_path=f"{_item['id']}.wav")  # fmt: skip
# m1 right, m2 wrong, m3 right in a sentence, m4 wrong (another option), m5 right; m6 unanswered.
REPLIES = {"m1": "Dog", "m2": "Two", "m3": "It is a violin.", "m4": "Cat", "m5": "No"}
EXPECTED = 3 / 5 * 100  # m6 without a prediction is left out, as the official script skips it


def _lines(path: Path, items: list[dict]) -> Path:
    path.write_text("".join(json.dumps(x) + "\n" for x in items), encoding="utf-8")
    return path


def _answered() -> list[tuple[int, dict]]:
    return [(i, item) for i, item in enumerate(ITEMS) if item["id"] in REPLIES]


def text(tmp: Path) -> Path:
    path = tmp / "answers.json"
    path.write_text(json.dumps([{"id": it["id"], "text": REPLIES[it["id"]]} for _, it in _answered()]))
    return path


def own(key: str) -> Callable[[Path], Path]:
    """The benchmark's own file: its metadata with the answer under its prediction key."""

    def write(tmp: Path) -> Path:
        items = [{**it, **({key: REPLIES[it["id"]]} if it["id"] in REPLIES else {})} for it in ITEMS]
        path = tmp / "own.json"
        path.write_text(json.dumps(items, indent=4))
        return path

    return write


def lmms(tmp: Path) -> Path:
    """lmms-eval's mmau task: target the answer text, `doc` logged with choices as JSON text."""
    return _lines(tmp / "2025-01-01T00-00-00_samples_mmau_test_mini.jsonl", [
        {"doc_id": i, "doc": {**it, "choices": json.dumps(it["choices"])}, "target": it["answer"],
         "resps": [[f"{REPLIES[it['id']]}"]], "filtered_resps": [REPLIES[it["id"]]], "filter": "none",
         "metrics": ["accuracy"], "doc_hash": "d", "prompt_hash": "p", "target_hash": "t",
         "accuracy": {"overall": 0.0, "task": "sound"}, "input": it["question"]}
        for i, it in _answered()
    ])  # fmt: skip


def kimi(tmp: Path) -> Path:
    return _lines(tmp / "kimi_mmau.jsonl", [
        {"index": i, "audio_path": it["audio_id"], "question": it["question"], "answer": it["answer"],
         "subset": "sound", "prediction": REPLIES[it["id"]], "real_prompt": it["question"]}
        for i, it in _answered()
    ])  # fmt: skip


def ultraeval(tmp: Path) -> Path:
    lines: list[dict] = []
    for i, it in _answered():
        out = REPLIES[it["id"]]
        lines += [
            {"type": "prompt", "id": i, "data": {"content": []}},
            {"type": "inference", "id": i, "data": {"content": f" {out} "}},
            {"type": "post_process", "id": i, "data": {"content": out}},
            {"type": "eval", "id": i, "data": {"match": 0, "pred": out, "ref": it["answer"]}},
        ]
    return _lines(tmp / "2025-01-01_00-00-00.jsonl", lines)


def voicebench(tmp: Path) -> Path:
    return _lines(tmp / "mmau.jsonl", [
        {"prompt": it["question"], "reference": it["answer"], "response": REPLIES[it["id"]]} for _, it in _answered()
    ])  # fmt: skip


def audiobench(tmp: Path) -> Path:
    """AudioBench's string-match log: `(A) ` labelled reference and choices, json.dump(indent=4);
    its copy of MMAU may list an item's choices in another order (here reversed), as the
    published Qwen2-Audio log does."""

    def label(choices: list[str], text: str) -> str:
        return f"({'ABCD'[choices.index(text)]}) {text}"

    details = [
        {"question": it["question"], "reference": label(it["choices"][::-1], it["answer"]),
         "model_prediction": REPLIES[it["id"]], "choices": [label(it["choices"][::-1], c) for c in it["choices"][::-1]],
         "rate_score": 0.0, "task": "sound"}
        for _, it in _answered()
    ]  # fmt: skip
    path = tmp / "mmau_mini_string_match_score.json"
    path.write_text(json.dumps({"string_match": {"judge_score": 0.0}, "details": details}, indent=4))
    return path


# format -> (benchmark, writer); the benchmark's own formats are read without --metadata.
WRITERS: dict[str, tuple[str, Callable[[Path], Path]]] = {
    "text": ("mmau", text),
    "mmau": ("mmau", own("model_output")),
    "mmar": ("mmar", own("answer_prediction")),
    "lmms_eval_samples": ("mmau", lmms),
    "kimi_evalkit_results": ("mmau", kimi),
    "ultraeval_results": ("mmau", ultraeval),
    "voicebench_outputs": ("mmau", voicebench),
    "audiobench_score_log": ("mmau", audiobench),
}
SPEC = {"mmau": ("mmau-test-mini", "mmau/mmau-test-mini.json"), "mmar": ("mmar", "mmar/MMAR-meta.jsonl")}


def mcq_formats() -> set[str]:
    load_benchmarks()
    return {n for n, f in PREDICTION_FORMATS.items() if "mcq" in f.tasks and f.output == "text"}


def test_every_format_answering_mcq_is_tested_here() -> None:
    assert mcq_formats() == set(WRITERS)


def _metadata(tmp: Path, bench: str) -> Path:
    """The benchmark's metadata, laid out under a data root as its spec reads it."""
    path = tmp / "data" / SPEC[bench][1]
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix == ".jsonl":
        _lines(path, ITEMS)
    else:
        path.write_text(json.dumps(ITEMS, indent=4))
    return path


def _run_figure(tmp: Path, bench: str, predictions: Path) -> float:
    out = tmp / "run"
    res = runner.invoke(app, [
        "run", "-m", f"x=predictions:{predictions}", "-b", SPEC[bench][0], "--data-root", str(tmp / "data"),
        "-o", str(out), "--no-progress", "--no-probe", "--max-failed", "100%",
    ], env=ENV)  # fmt: skip
    assert res.exit_code == 0, res.output
    summary = json.loads((out / SPEC[bench][0] / "x" / "summary.json").read_text())
    return float(summary["metrics"]["accuracy"]["value"]) * 100


def _score(tmp: Path, bench: str, predictions: Path, *extra: str) -> tuple[int, str, Path]:
    """`mcq score` into a folder of its own (a folder holds the run of one predictions file)."""
    out = tmp / f"score{len(list(tmp.glob('score*')))}"
    args = ["mcq", "score", "--benchmark", bench, "--predictions", str(predictions), "-o", str(out),
            "--no-progress", *extra]  # fmt: skip
    res = runner.invoke(app, args, env=ENV)
    return res.exit_code, " ".join(res.output.split()), out


@pytest.mark.parametrize("fmt", sorted(WRITERS))
def test_run_and_mcq_score_read_each_format_to_the_same_official_figure(fmt: str, tmp_path: Path) -> None:
    bench, write = WRITERS[fmt]
    metadata = _metadata(tmp_path, bench)
    predictions = write(tmp_path)
    from_run = _run_figure(tmp_path, bench, predictions)
    extra = [] if fmt == bench else ["--metadata", str(metadata)]
    code, said, out = _score(tmp_path, bench, predictions, *extra)
    assert code == 0, said
    summary = json.loads((out / "mcq_summary.json").read_text())
    assert summary["overall"]["official"]["accuracy"] == pytest.approx(from_run) == pytest.approx(EXPECTED)
    assert summary["counts"]["without_prediction"] == 1 and summary["without_prediction_ids"] == ["m6"]
    assert f"read as {fmt}" in said
    if fmt != bench:
        assert summary["predictions_format"] == fmt and summary["metadata"] == str(metadata)
        signature = json.dumps(json.loads((out / "run.json").read_text()))
        assert f'"format": "{fmt}"' in signature


def test_another_format_without_metadata_is_refused_naming_the_option(tmp_path: Path) -> None:
    code, said, _ = _score(tmp_path, "mmau", lmms(tmp_path))
    assert code == 2 and "read as lmms_eval_samples" in said and "--metadata" in said


def test_a_format_that_answers_no_mcq_is_refused(tmp_path: Path) -> None:
    metadata = _metadata(tmp_path, "mmau")
    code, said, _ = _score(
        tmp_path,
        "mmau",
        lmms(tmp_path),
        "--metadata",
        str(metadata),
        "--predictions-format",
        "audiobench_wer_log",
    )
    assert code == 2 and "answers no multiple-choice question" in said and "asr" in said


def test_several_answer_keys_exit_2_listing_them_then_score_with_the_key(tmp_path: Path) -> None:
    """Through --metadata too: the format's own rule (an MMAU file with both keys; an lmms-eval
    file of two filters) is the same error as in `run`."""
    metadata = _metadata(tmp_path, "mmau")
    both = tmp_path / "both.json"
    mmau_only = [{k: v for k, v in it.items() if k not in ("modality", "category")} for it in ITEMS]
    both.write_text(
        json.dumps([{**it, "model_output": "Cat", "model_prediction": it["answer"]} for it in mmau_only])
    )
    code, said, _ = _score(tmp_path, "mmau", both, "--metadata", str(metadata))
    assert code == 2 and "'model_output', 'model_prediction'" in said
    code, said, out = _score(
        tmp_path, "mmau", both, "--metadata", str(metadata), "--prediction-key", "model_prediction"
    )
    assert code == 0, said
    assert json.loads((out / "mcq_summary.json").read_text())["overall"]["official"]["accuracy"] == 100.0
    path = lmms(tmp_path)
    rows = [json.loads(x) for x in path.read_text().splitlines()]
    _lines(path, rows + [{**r, "filter": "strict", "filtered_resps": [r["target"]]} for r in rows])
    code, said, _ = _score(tmp_path, "mmau", path, "--metadata", str(metadata))
    assert code == 2 and "none, strict" in said
    code, said, out = _score(
        tmp_path, "mmau", path, "--metadata", str(metadata), "--prediction-key", "strict"
    )
    assert code == 0 and "answers under 'strict'" in said
    assert json.loads((out / "mcq_summary.json").read_text())["overall"]["official"]["accuracy"] == 100.0


def test_an_item_answered_with_no_text_is_listed_not_silently_without_prediction(tmp_path: Path) -> None:
    """`run` fails the item naming the row; `mcq score --metadata` lists the same row (the item
    has no prediction, as m6), never drops it without a word."""
    metadata = _metadata(tmp_path, "mmau")
    path = text(tmp_path)
    rows = json.loads(path.read_text())
    rows[1]["text"] = 5  # m2
    path.write_text(json.dumps(rows, indent=None, separators=(",", ":")).replace("},{", "},\n{"))
    code, said, out = _score(tmp_path, "mmau", path, "--metadata", str(metadata))
    assert code == 0, said
    assert "answers.json:2, id 'm2', field 'text': text is a int, not a string" in said
    summary = json.loads((out / "mcq_summary.json").read_text())
    assert sorted(summary["without_prediction_ids"]) == ["m2", "m6"]


def test_another_predictions_file_of_another_format_is_scored_into_the_same_folder(tmp_path: Path) -> None:
    """As with the benchmark's own format: the changed items are scored again, the others kept,
    and the figures are those of a fresh folder (the file's path is no setting)."""
    metadata = _metadata(tmp_path, "mmau")
    first = text(tmp_path)
    second = tmp_path / "second.json"
    second.write_text(json.dumps([{"id": "m1", "text": "Cat"}, {"id": "m6", "text": "Forest"}]))
    out = tmp_path / "same"
    for path in (first, second):
        res = runner.invoke(app, ["mcq", "score", "--benchmark", "mmau", "--predictions", str(path), "--metadata",
                                  str(metadata), "-o", str(out), "--no-progress"], env=ENV)  # fmt: skip
        assert res.exit_code == 0, res.output
    code, said, fresh = _score(tmp_path, "mmau", second, "--metadata", str(metadata))
    assert code == 0, said
    again, alone = (json.loads((d / "mcq_summary.json").read_text()) for d in (out, fresh))
    assert again["overall"] == alone["overall"] and again["counts"] == alone["counts"]
    assert alone["overall"]["official"]["accuracy"] == 50.0 and again["predictions"] == str(second)


@pytest.mark.parametrize("fmt, number", [("lmms_eval_samples", "doc_id"), ("kimi_evalkit_results", "index")])
def test_a_row_repeated_is_listed_never_given_to_another_item_of_equal_text(
    fmt: str, number: str, tmp_path: Path
) -> None:
    """The tools number their rows (lmms-eval's `doc_id`, the kit's `index`): m1's row logged
    twice is one answer of m1; the second copy is listed, not the answer of m4 (the same
    question and answer), which the file does not answer. `run` reads the file alike."""
    bench, write = WRITERS[fmt]
    metadata = _metadata(tmp_path, bench)
    path = write(tmp_path)
    rows = [json.loads(x) for x in path.read_text().splitlines()]
    (m1,) = [r for r in rows if r[number] == 0]
    rows = [r for r in rows if r[number] != 3]  # m4 unanswered
    again = {**m1, **({"filtered_resps": ["Cat"]} if fmt == "lmms_eval_samples" else {"prediction": "Cat"})}
    _lines(path, [rows[0], again, *rows[1:]])
    code, said, out = _score(tmp_path, bench, path, "--metadata", str(metadata))
    assert code == 0, said
    assert f"{path.name}:2, field '{number}': {number} 0 repeated (first on line 1); the first is kept" in said
    summary = json.loads((out / "mcq_summary.json").read_text())
    assert sorted(summary["without_prediction_ids"]) == ["m4", "m6"]
    assert summary["overall"]["official"]["accuracy"] == pytest.approx(3 / 4 * 100)  # m1, m3, m5 of m1-m3, m5
    assert _run_figure(tmp_path, bench, path) == pytest.approx(3 / 4 * 100)


# lmms-eval's MMAR task (`lmms_eval/tasks/mmar/utils.py`): `doc.choices` labelled "A. text",
# `doc_to_target` the answer letter, `mmar_accuracy` the per-sample metric.
def lmms_mmar(tmp: Path, target: Callable[[int, dict], str] | None = None, doc: bool = True) -> Path:
    lines = []
    for i, it in _answered():
        letter = "ABCD"[it["choices"].index(it["answer"])]
        logged = {
            **it,
            "choices": [f"{'ABCD'[j]}. {c}" for j, c in enumerate(it["choices"])],
            "answer": letter,
        }
        lines.append({
            "doc_id": i, **({"doc": logged} if doc else {}), "target": target(i, it) if target else letter,
            "filtered_resps": [REPLIES[it["id"]]], "filter": "none", "metrics": ["mmar_accuracy"],
            "doc_hash": "d", "prompt_hash": "p", "target_hash": "t", "input": it["question"],
            "mmar_accuracy": {"id": it["id"], "prediction": letter, "ground_truth": letter, "score": 1.0},
        })  # fmt: skip
    return _lines(tmp / "2025-01-01T00-00-00_samples_mmar.jsonl", lines)


def test_lmms_letter_target_is_the_option_at_its_position(tmp_path: Path) -> None:
    metadata = _metadata(tmp_path, "mmar")
    predictions = lmms_mmar(tmp_path)
    assert _run_figure(tmp_path, "mmar", predictions) == pytest.approx(EXPECTED)
    code, said, out = _score(tmp_path, "mmar", predictions, "--metadata", str(metadata))
    assert code == 0, said
    summary = json.loads((out / "mcq_summary.json").read_text())
    assert summary["overall"]["official"]["accuracy"] == pytest.approx(EXPECTED)
    assert summary["without_prediction_ids"] == ["m6"]


def test_lmms_letter_outside_the_choices_names_file_doc_id_and_field(tmp_path: Path) -> None:
    metadata = _metadata(tmp_path, "mmar")
    predictions = lmms_mmar(
        tmp_path, target=lambda i, it: "E" if it["id"] == "m2" else "ABCD"[it["choices"].index(it["answer"])]
    )
    code, said, out = _score(tmp_path, "mmar", predictions, "--metadata", str(metadata))
    assert code == 0, said
    assert f"{predictions.name}:2, field 'target': doc_id 1: target 'E' is no option of its 3 choices" in said
    summary = json.loads((out / "mcq_summary.json").read_text())
    assert sorted(summary["without_prediction_ids"]) == ["m2", "m6"]  # listed, never scored


def test_lmms_one_letter_target_without_logged_choices_is_its_text(tmp_path: Path) -> None:
    # a one-word transcript ("I") is a target as written, never refused as a letter
    read = FORMATS["lmms_eval_samples"].reader(None)
    row = {"doc_id": 7, "target": "I", "filtered_resps": ["I"], "filter": "none"}
    got = read(_lines(tmp_path / "s.jsonl", [row]))
    assert [(r.text, r.output) for r in got.rows] == [("I", "I")] and got.errors == []
    # an MCQ log without its documents: the letters match no item's answer and are listed
    metadata = _metadata(tmp_path, "mmar")
    code, said, out = _score(tmp_path, "mmar", lmms_mmar(tmp_path, doc=False), "--metadata", str(metadata))
    summary = json.loads((out / "mcq_summary.json").read_text()) if out.exists() else {}
    assert "field 'target': no sample of mmar has this reference ('B')" in said, said
    assert code == exit_codes.TOO_MANY_FAILURES, said  # nothing scored as an answer: a non-zero exit
    assert len(summary["without_prediction_ids"]) == 6 and summary["overall"]["n"] == 0, summary["overall"]


@pytest.mark.parametrize(
    ("choices", "target", "text"),
    [
        (["A", "C", "E", "G"], "C", "C"),  # MMAU note names: an option's own text stays text
        (["A", "C", "E", "G"], "B", "C"),  # a letter that is no option's text: by position
        (["A. dog", "B. cat"], "B", "cat"),  # labelled options: always a letter
        (json.dumps(["dog", "cat"]), "A", "dog"),  # choices logged as JSON text (lmms-eval's mmau)
        (["dog", "cat"], "cat", "cat"),  # an option text target, as before
    ],
)
def test_lmms_target_reading(choices: object, target: str, text: str, tmp_path: Path) -> None:
    row = {
        "doc_id": 0,
        "doc": {"choices": choices},
        "target": target,
        "filtered_resps": ["x"],
        "filter": "none",
    }
    got = FORMATS["lmms_eval_samples"].reader(None)(_lines(tmp_path / "s.jsonl", [row]))
    assert got.errors == [] and got.rows[0].text == text
