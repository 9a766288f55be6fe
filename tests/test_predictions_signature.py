"""A predictions file's signature hashes its output clips once per adapter: the engine asks
for it for run.json, the folder check and each pair, and re-hashing 2,000 clips each time
was a visible share of a run's start-up."""

from __future__ import annotations

from pathlib import Path

import audioeval.adapters.predictions as predictions
from audioeval.adapters.predictions import PredictionsFile, PredictionsRead


def _clips(tmp_path: Path) -> None:
    for i in range(3):
        (tmp_path / f"c{i}.wav").write_bytes(b"RIFF" + bytes([i]) * 40)
    (tmp_path / "preds.json").write_text("[]")


def _file(tmp_path: Path) -> PredictionsFile:

    def load(path: Path) -> PredictionsRead:
        return PredictionsRead({f"s{i}": f"c{i}.wav" for i in range(3)}, [])

    return PredictionsFile("m", tmp_path / "preds.json", load)


def test_output_clips_hashed_once(tmp_path: Path, monkeypatch) -> None:
    calls: list[int] = []
    real = predictions.audio_digest

    def counted(paths, root):  # type: ignore[no-untyped-def]
        calls.append(1)
        return real(paths, root)

    monkeypatch.setattr(predictions, "audio_digest", counted)
    _clips(tmp_path)
    adapter = _file(tmp_path)
    first = adapter.signature()
    first["model"] = "changed by a caller"
    again = adapter.signature()
    assert len(calls) == 1
    assert again["model"] == "m"  # a caller's copy never changes the kept signature
    assert again == _file(tmp_path).signature()  # the same figure a fresh adapter computes


def test_other_clips_other_signature(tmp_path: Path) -> None:
    _clips(tmp_path)
    before = _file(tmp_path).signature()
    (tmp_path / "c1.wav").write_bytes(b"RIFF" + b"x" * 41)
    assert _file(tmp_path).signature()["outputs_sha256"] != before["outputs_sha256"]
