"""Typed records: `SampleRecord` and `Score` round-trip through JSON; failure kinds are an
enum; judge answers are a field of the record; an earlier version's lines read as their
equivalent; a line that is not a record is ignored with its reason."""

from __future__ import annotations

import json
from pathlib import Path

from audioeval.core.messages import AudioRef
from audioeval.core.model_output import ModelOutput
from audioeval.core.record import Answer, FailureKind, SampleRecord, Score, latest_records
from audioeval.core.sample import Sample
from audioeval.store.run_folder import read_pair


def full_record() -> SampleRecord:
    sample = Sample(
        "s1",
        {"audio": AudioRef("/data/a.wav", 0.5, -1.0), "input2": AudioRef("/data/b.wav")},
        {"reference": "a dog barks", "choices": ["a", "b"], "n": 3},
        {"modality": "speech", "operation": ["add", "remove"]},
        "/data/manifest.jsonl",
    )
    return SampleRecord(
        "s1",
        sample,
        sample_sha256="ab" * 32,
        prompt_hash="0123456789abcdef",
        prompt="Transcribe.",
        output=ModelOutput(text="a dog", endpoint="http://h/v1", latency_s=0.25, cached=True),
        processed=Answer("a dog", "ok", {"step": "strip"}),
        scores={
            "wer": Score({"wer": 0.5}, {"substitutions": 0, "deletions": 1, "ref_len": 3}, {"h": "a dog"})
        },
        judge={"mmae_rubrics": {"rubrics": [{"rubric_index": 0, "attempts": [{"raw": "A"}]}]}},
        time=1700000000.5,
    )


def roundtrip(rec: SampleRecord) -> SampleRecord:
    return SampleRecord.from_json(json.loads(json.dumps(rec.to_json(), allow_nan=False)))


def test_a_record_survives_a_json_round_trip() -> None:
    rec = full_record()
    assert roundtrip(rec) == rec
    assert roundtrip(rec).sample.audio["audio"] == AudioRef("/data/a.wav", 0.5, -1.0)
    assert roundtrip(rec).taxonomy["operation"] == ["add", "remove"]


def test_a_failed_output_round_trips_with_its_kind_and_counted_scores() -> None:
    rec = SampleRecord("s2", Sample("s2"), output=ModelOutput(error="HTTP 500 from http://h/v1"))
    rec.failed("HTTP 500 from http://h/v1", FailureKind.MODEL, {"file": None, "id": "s2"})
    rec.output_failed = True
    rec.failure_scores = {"wer": Score({"wer": 1.0}, {"deletions": 3, "ref_len": 3})}
    back = roundtrip(rec)
    assert back == rec and back.failure is FailureKind.MODEL and not back.ok
    assert rec.to_json()["failure"] == "model"


def test_failed_clears_the_outcome_and_unscored_keeps_what_rescoring_reads() -> None:
    rec = full_record()
    rec.failed("cannot score (wer): field reference", FailureKind.CANNOT_SCORE)
    assert rec.scores is None and rec.processed is None and rec.failure is FailureKind.CANNOT_SCORE
    again = rec.unscored()
    assert again.error is None and again.failure is None and again.scores is None
    assert again.output == rec.output and again.judge == rec.judge and again.judge is not rec.judge


def test_a_record_of_an_earlier_version_reads_as_its_equivalent() -> None:
    """Judge answers were the judged score's detail (named by `judged_by`), and failure kinds
    were prefixes of the error text."""
    old = {
        "id": "x",
        "taxonomy": {},
        "sample": {"fields": {}, "audio": {}, "source": ""},
        "output": {"text": None, "audio_path": "/o.wav", "error": None},
        "judged_by": ["mmae_rubrics"],
        "scores": {
            "mmae_rubrics": {"values": {"IFR": 1.0}, "stats": {"ifr": 100.0}, "detail": {"rubrics": [1]}}
        },
        "error": None,
    }
    rec = SampleRecord.from_json(old)
    assert rec.judge == {"mmae_rubrics": {"rubrics": [1]}}
    assert rec.scores == {"mmae_rubrics": Score({"IFR": 1.0}, {"ifr": 100.0})}
    kinds = {
        "prompt: template error": FailureKind.PROMPT,
        "input: unreadable clip": FailureKind.INPUT,
        "cannot score (wer): no reference": FailureKind.CANNOT_SCORE,
        "judge: 1 of 3 rubric(s) failed": FailureKind.JUDGE,
        "timed out after 30 s": FailureKind.MODEL,
    }
    for error, kind in kinds.items():
        out = {"text": None, "audio_path": None, "error": error} if kind is FailureKind.MODEL else None
        assert SampleRecord.from_json({**old, "scores": None, "error": error, "output": out}).failure is kind


def test_stored_lines_are_typed_and_bad_ones_ignored_with_the_reason(tmp_path: Path) -> None:
    good = full_record().to_json()
    lines = [
        good,
        {**good, "id": "s3", "output": "not a mapping"},
        {**good, "id": "s4", "sample": {"fields": {}, "audio": {"audio": "no list"}}},
        {**good, "id": "s1", "time": 2.0},
    ]
    path = tmp_path / "records.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines) + '{"id": "cut', encoding="utf-8")
    stored = read_pair(tmp_path, None, signature={})
    assert [r.id for r in stored.records] == ["s1", "s1"]
    assert all(isinstance(r, SampleRecord) for r in stored.records)
    assert latest_records(stored.records)["s1"].time == 2.0
    assert len(stored.ignored) == 3, stored.ignored
    assert "records.jsonl:2: id 's3': output 'not a mapping' is not a mapping" in stored.ignored[0]
    assert "records.jsonl:3: id 's4': not a record" in stored.ignored[1]
    assert stored.ignored[2].endswith("records.jsonl:5: cut short (the last line of a write that stopped)")


def test_bounds_hold_for_scalar_stats_not_for_lists_of_counts(tmp_path: Path) -> None:
    """A 0/1 `correct` above 1 is a corrupt line; BLEU's `correct` n-gram counts (a list) are
    counts, and a record holding them is read back, not ignored."""
    bleu = {
        "values": {"bleu": 71.6},
        "stats": {"sys_len": 3, "ref_len": 4, "correct": [3, 2, 1, 0], "total": [3, 2, 1, 0]},
    }
    lines = [
        {"id": "a", "scores": {"bleu": bleu}},
        {"id": "b", "scores": {"accuracy": {"values": {"accuracy": 1.0}, "stats": {"correct": 3}}}},
    ]
    path = tmp_path / "records.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    stored = read_pair(tmp_path, None, signature={})
    assert [r.id for r in stored.records] == ["a"]
    assert stored.records[0].scores["bleu"].stats["correct"] == [3, 2, 1, 0]
    assert stored.ignored == [f"{path}:2: id 'b': scores.accuracy.stats: correct 3 is outside 0–1"]
