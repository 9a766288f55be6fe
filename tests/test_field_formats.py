"""The field's own output files read without conversion: each tool's file, built exactly as
the tool writes it, is read by `audioeval run -m NAME=predictions:FILE -b BENCHMARK`; rows
without ids find their samples by reference text (equal texts in order), a row of no sample
is listed, a sample of no row fails, and the rule is printed and in the signature. Every
registered format without ids is enumerated."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from audioeval.adapters.unkeyed_rows import BY_TEXT
from audioeval.benchmarks.plugins import load_benchmarks
from audioeval.benchmarks.prediction_formats import PREDICTION_FORMATS
from audioeval.cli.main import app

runner = CliRunner()

# The samples: raw references; "d" is answered by no row of any file.
REFS = {"a": "Hello, world.", "b": "The cat sat.", "c": "hello world", "d": "nobody answers me"}
# What every file says, in its own words: (reference as the tool keeps it, answer); the last
# row belongs to no sample.
ROWS = [("hello world", "hello word"), ("the cat sat", "the cat sat"), ("Hello world", "hello world"),
        ("a row of no sample", "x")]  # fmt: skip
EXPECTED = {"a": "hello word", "b": "the cat sat", "c": "hello world"}


def _lines(path: Path, items: list[dict]) -> Path:
    path.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in items), encoding="utf-8")
    return path


def lmms(tmp: Path) -> Path:
    """lmms-eval `save_results_samples`: `doc` and `arguments` dropped, `resps` dropped when it
    equals `filtered_resps`, `target` as text, `input` added."""
    return _lines(tmp / "2025-01-01T00-00-00_samples_librispeech_test_clean.jsonl", [
        {"doc_id": i, "target": ref, "filtered_resps": [out], "filter": "none", "metrics": ["wer"],
         "doc_hash": f"d{i}", "prompt_hash": f"p{i}", "target_hash": f"t{i}", "wer": {"gt": ref, "pred": out},
         "input": "Transcribe"}
        for i, (ref, out) in enumerate(ROWS)
    ])  # fmt: skip


def kimi(tmp: Path) -> Path:
    """Kimi-Audio-Evalkit `merge_one_dataset`: the dataset rows plus `prediction`, `real_prompt`."""
    return _lines(tmp / "kimi_librispeech_test_clean.jsonl", [
        {"index": i, "audio_path": f"/data/{i}.wav", "question": "Transcribe", "answer": ref,
         "subset": "test_clean", "prediction": out, "real_prompt": "Transcribe"}
        for i, (ref, out) in enumerate(ROWS)
    ])  # fmt: skip


def ultraeval(tmp: Path) -> Path:
    """UltraEval-Audio's recorder: prompt, inference, post_process, eval lines per sample."""
    lines = []
    for i, (ref, out) in enumerate(ROWS):
        lines += [
            {"type": "prompt", "id": i, "data": {"content": [{"role": "user", "contents": []}]}},
            {"type": "inference", "id": i, "data": {"content": f" {out} "}},
            {"type": "post_process", "id": i, "data": {"content": out}},
            {"type": "eval", "id": i, "data": {"wer%": 0.0, "pred": out, "ref": ref}},
        ]
    return _lines(tmp / "2025-01-01_00-00-00.jsonl", lines)


def voicebench(tmp: Path) -> Path:
    """VoiceBench `main.py`: the subset row without audio, plus `response`."""
    return _lines(
        tmp / "naive-sd-qa-usa.jsonl",
        [{"prompt": ref, "reference": "x", "response": out} for ref, out in ROWS],
    )


def audiobench(tmp: Path) -> Path:
    """AudioBench's WER log: normalised texts, json.dump(indent=4)."""
    log = {"wer": 0.1, "sample_wer": [{"reference": r.lower(), "prediction": p, "wer": 0.0} for r, p in ROWS]}
    path = tmp / "librispeech_test_clean_wer_score.json"
    path.write_text(json.dumps(log, indent=4, ensure_ascii=False), encoding="utf-8")
    return path


WRITERS: dict[str, Callable[[Path], Path]] = {
    "lmms_eval_samples": lmms,
    "kimi_evalkit_results": kimi,
    "ultraeval_results": ultraeval,
    "voicebench_outputs": voicebench,
    "audiobench_wer_log": audiobench,
}


def test_every_format_without_ids_is_tested_here() -> None:
    load_benchmarks()
    unkeyed = {n for n, f in PREDICTION_FORMATS.items() if f.matching == BY_TEXT and "asr" in f.tasks}
    assert unkeyed == set(WRITERS)


@pytest.mark.parametrize("fmt", sorted(WRITERS))
def test_file_as_the_tool_writes_it_is_read_matched_and_its_rule_recorded(fmt: str, tmp_path: Path) -> None:
    manifest = tmp_path / "set.jsonl"
    manifest.write_text(
        "".join(json.dumps({"id": i, "audio": f"{i}.wav", "text": t}) + "\n" for i, t in REFS.items())
    )
    predictions = WRITERS[fmt](tmp_path)
    out = tmp_path / "out"
    res = runner.invoke(
        app,
        ["run", "-m", f"x=predictions:{predictions}", "-b", str(manifest), "--task", "asr", "--language", "en",
         "-o", str(out), "--no-progress", "--no-probe"],
        env={"COLUMNS": "400"},
    )  # fmt: skip
    said = " ".join(res.output.split())
    assert f"read as {fmt} (the one format it matches)" in said, said
    assert "matched by reference text" in said
    records = {
        r["id"]: r for r in map(json.loads, (out / "set" / "x" / "records.jsonl").read_text().splitlines())
    }
    assert {sid: records[sid]["output"]["text"] for sid in EXPECTED} == EXPECTED
    assert records["d"]["output"]["text"] is None and "no prediction" in records["d"]["output"]["error"]
    skipped = json.loads((out / "set" / "x" / "model_skipped.json").read_text())
    assert any("a row of no sample" in json.dumps(e) for e in skipped)
    signature = json.dumps(json.loads((out / "run.json").read_text()))
    assert f'"format": "{fmt}"' in signature and "by reference text" in signature


def test_lmms_file_of_several_filters_needs_a_key(tmp_path: Path) -> None:
    path = lmms(tmp_path)
    extra = [{**json.loads(x), "filter": "strict"} for x in path.read_text().splitlines()]
    path.write_text(path.read_text() + "".join(json.dumps(x) + "\n" for x in extra))
    manifest = tmp_path / "set.jsonl"
    manifest.write_text(json.dumps({"id": "a", "audio": "a.wav", "text": "hello"}) + "\n")
    args = ["run", "-m", f"x=predictions:{path}", "-b", str(manifest), "--task", "asr", "--language", "en",
            "-o", str(tmp_path / "o"), "--no-progress", "--no-probe"]  # fmt: skip
    res = runner.invoke(app, args, env={"COLUMNS": "400"})
    assert res.exit_code == 2 and "none, strict" in " ".join(res.output.split())
    res = runner.invoke(app, [*args, "--prediction-key", "strict"], env={"COLUMNS": "400"})
    assert "answers under 'strict'" in " ".join(res.output.split())


def test_kimi_null_prediction_is_listed_not_scored(tmp_path: Path) -> None:
    path = _lines(tmp_path / "k.jsonl", [
        {"index": 0, "audio_path": "a", "question": "q", "answer": "hello", "subset": "s", "prediction": "null",
         "real_prompt": ""}])  # fmt: skip
    from audioeval.benchmarks.sources.tool_outputs import FORMATS

    read = FORMATS["kimi_evalkit_results"].reader(None)(path)
    assert read.rows == [] and "not answered" in read.errors[0].message
