"""Stored text outputs as a model (`--model predictions:hyps.jsonl`) for text tasks, and
`--language` for ad-hoc manifests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from audioeval.benchmarks.sources.text_predictions import text_predictions_by_id
from audioeval.cli.main import app
from tests.run_helpers import tone_asr_manifest, write_jsonl

runner = CliRunner()


def run(*args: str) -> Any:
    return runner.invoke(app, ["run", *args, "--no-progress", "--resamples", "50"], catch_exceptions=False)


def records(out: Path) -> dict[str, dict[str, Any]]:
    (path,) = out.glob("*/*/records.jsonl")
    return {r["id"]: r for r in (json.loads(x) for x in path.read_text().splitlines())}


def test_reader_checks_every_item(tmp_path: Path) -> None:
    path = tmp_path / "hyps.jsonl"
    path.write_text(
        '{"id": "a", "text": "one"}\n{"id": 7, "text": "seven"}\n{"id": "a", "text": "again"}\n'
        '{"id": "", "text": "x"}\n{"id": "b", "text": 3}\n{"id": "c"}\n["not", "an", "object"]\n',
        encoding="utf-8",
    )
    texts, errors = text_predictions_by_id(path)
    assert texts == {"a": "one", "7": "seven"}
    where = [(e.line, e.sample_id, e.field) for e in errors]
    assert where == [(3, "a", "id"), (4, None, "id"), (5, "b", "text"), (6, "c", "text"), (7, None, None)]
    assert all(e.file == str(path) for e in errors)


def test_asr_from_stored_hypotheses(tmp_path: Path) -> None:
    refs = tone_asr_manifest(tmp_path / "data", n=5)
    rows = [json.loads(x) for x in refs.read_text().splitlines()]
    hyps = [{"id": r["id"], "text": r["text"]} for r in rows[:3]]
    hyps[1]["text"] = "the tone number one is wobbly"  # one substitution in six words
    hyps += [{"id": "c3", "text": 42}, {"id": "nope", "text": "no such sample"}]  # c4: no item at all
    preds = write_jsonl(tmp_path / "hyps.jsonl", hyps)
    out = tmp_path / "out"
    res = run("--model", f"predictions:{preds}", "--task", "asr", "--benchmark", str(refs), "-o", str(out),
              "--max-failed", "2")  # fmt: skip
    assert res.exit_code == 0, res.output
    recs = records(out)
    assert recs["c3"]["error"] and "field 'text'" in recs["c3"]["error"] and not recs["c3"].get("scores")
    assert "no prediction for id 'c4'" in recs["c4"]["error"]
    assert "nope" in res.output  # an item that answers no sample is reported
    summary = json.loads((out / "summary.json").read_text())
    # c3 and c4 are the system's failures: counted as full deletions (6 words each) by default
    assert summary["wer"] == pytest.approx((1 + 6 + 6) / 30)
    assert summary["failed"] == 2


def test_language_zh_scores_cer_at_the_top(tmp_path: Path) -> None:
    root = tmp_path / "data"
    refs = tone_asr_manifest(root, n=2)
    rows = [json.loads(x) for x in refs.read_text().splitlines()]
    rows[0]["text"], rows[1]["text"] = "今天天气很好", "我们去公园"
    write_jsonl(refs, rows)
    preds = write_jsonl(
        tmp_path / "hyps.jsonl", [{"id": "c0", "text": "今天天气很好"}, {"id": "c1", "text": "我们去公圆"}]
    )
    out = tmp_path / "out"
    res = run("--model", f"predictions:{preds}", "--task", "asr", "--benchmark", str(refs), "--language", "zh",
              "-o", str(out))  # fmt: skip
    assert res.exit_code == 0, res.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["cer"] == pytest.approx(1 / 11) and "wer" not in summary  # one character of eleven


def test_language_of_a_spec_is_its_own(tmp_path: Path) -> None:
    res = run(
        "--model", "oracle", "--benchmark", "demo-speech-en", "--language", "zh", "-o", str(tmp_path / "o")
    )
    assert res.exit_code == 2 and "--language zh applies to an ad-hoc manifest" in res.output


def test_a_list_of_references_is_kept_as_a_list(tmp_path: Path) -> None:
    from audioeval.benchmarks.sources.records_to_samples import RowMapping, path_resolver

    mapping = RowMapping("refs.jsonl", {}, [], path_resolver(tmp_path))
    sample = mapping.to_sample({"id": "a", "reference": ["a cat", "the cat"]}, 0)
    assert sample.fields["reference"] == ["a cat", "the cat"]
