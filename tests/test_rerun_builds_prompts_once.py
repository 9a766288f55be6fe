"""A rerun works out each pair's pending samples once: the endpoint check hands them to the
plan (`engine/evaluate.PendingByFolder`), so a finished sample's prompt is rebuilt once to
compare its digest, not once for the check and again for the plan."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import audioeval.engine.evaluate as evaluate
from audioeval.benchmarks.mcq.preset import SCORE
from audioeval.presets.preset_run import run_preset

N = 12


def predictions(path: Path, answered: int) -> Path:
    items = []
    for k in range(N):
        item = {
            "id": f"q{k}",
            "question": f"Which source is heard in clip {k}?",
            "choices": ["Dog", "Cat", "Bird", "Cow"],
            "answer": "Cat",
            "modality": "sound",
            "category": "Signal Layer",
            "sub-category": "Counting",
        }
        if k < answered:
            item["answer_prediction"] = ["Cat", "B", "Dog", "The answer is (B) Cat."][k % 4]
        items.append(item)
    path.write_text("\n".join(json.dumps(i) for i in items) + "\n", encoding="utf-8")
    return path


def counting_builds(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    built: list[str] = []
    real = evaluate.build_messages

    def build(bench, sample, template=None):  # type: ignore[no-untyped-def]
        built.append(sample.id)
        return real(bench, sample, template)

    monkeypatch.setattr(evaluate, "build_messages", build)
    return built


def test_a_finished_rerun_builds_each_prompt_once_and_asks_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cfg = {
        "benchmark": "mmar",
        "predictions": predictions(tmp_path / "p.jsonl", N),
        "output_dir": tmp_path / "o",
    }
    run_preset(SCORE, {**cfg, "progress": False})
    records = sorted((tmp_path / "o").rglob("records.jsonl"))
    assert records, "the first run wrote no records"
    before = [r.read_bytes() for r in records]
    built = counting_builds(monkeypatch)
    run_preset(SCORE, {**cfg, "progress": False})
    assert sorted(built) == sorted(f"q{k}" for k in range(N))  # once each, not twice
    assert [r.read_bytes() for r in records] == before  # nothing asked again, nothing appended
