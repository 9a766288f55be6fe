"""Small generated benchmarks for `audioeval run` tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.fakes.mcq_server import FREQS, tone_wav

DEMO_SPEECH = (
    Path(__file__).resolve().parents[1] / "src" / "audioeval" / "benchmarks" / "demo" / "demo_data" / "speech"
)


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def tone_asr_manifest(root: Path, n: int = 6) -> Path:
    """An ASR manifest over tone clips; references are short sentences."""
    rows = []
    root.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        tone_wav(root / f"c{i}.wav", 220 + 110 * i, seconds=0.3)
        rows.append({"id": f"c{i}", "audio": f"c{i}.wav", "text": f"the tone number {i} is steady"})
    return write_jsonl(root / "asr.jsonl", rows)


def tone_mcq_manifest(root: Path, n: int = 8) -> Path:
    """An MCQ manifest the fake audio model answers by measuring each tone's pitch."""
    rows = []
    (root / "audio").mkdir(parents=True, exist_ok=True)
    for i in range(n):
        hz = FREQS[i % len(FREQS)]
        tone_wav(root / "audio" / f"t{i}.wav", hz, seconds=0.4 + 0.01 * i)
        choices = [f"{f} Hz" for f in FREQS[i % 4 :] + FREQS[: i % 4]]
        rows.append(
            {
                "id": f"t{i}",
                "audio": f"audio/t{i}.wav",
                "question": "Which tone frequency is heard?",
                "choices": choices,
                "answer": f"{hz} Hz",
                "difficulty": ("easy", "hard")[i % 2],
            }
        )
    return write_jsonl(root / "mcq.jsonl", rows)


def demo_speech_as_wavs(folder: Path, n: int = 3, name: str = "speech.jsonl") -> Path:
    """The first `n` bundled speech clips as 16-bit PCM WAVs (which the stdlib fake workers
    read), with a manifest of `id`, `audio` and `text` beside them."""
    from audioeval.audio.decode import load_clip
    from audioeval.audio.encode import wav_bytes

    rows = [json.loads(line) for line in (DEMO_SPEECH / "manifest.jsonl").read_text().splitlines()][:n]
    for row in rows:
        (folder / f"{row['id']}.wav").write_bytes(wav_bytes(load_clip(str(DEMO_SPEECH / row["audio"]))))
    return write_jsonl(
        folder / name, [{"id": r["id"], "audio": f"{r['id']}.wav", "text": r["text"]} for r in rows]
    )


SPEECH_SCORERS = {
    "asr_wer", "asr_cer", "asr_includes", "asr_accuracy", "sim", "dnsmos", "pesq_stoi", "utmos", "mmae_verifiers",
}  # fmt: skip
"""Scorers of output audio: they load metric models or measure the audio (tests/test_generation_eval.py,
tests/test_runtime_metrics.py and tests/test_mmae_verifiers.py run them on real audio)."""


CAPTION_SCORERS = {"coco_bleu", "coco_rouge_l", "cider_d", "meteor", "spice"}
"""Scorers that run Java tools (SPICE also Stanford CoreNLP): tests/test_caption_metrics.py scores
with them, skipping with the reason where a tool is missing."""


def text_scorers() -> list[str]:
    """The registered scorers that score text (every scorer less the speech ones)."""
    from audioeval.benchmarks.plugins import load_benchmarks
    from audioeval.scoring.scorer_registry import SCORERS

    load_benchmarks()  # registers every benchmark's scorers (the judged ones too)

    return [name for name in SCORERS.names() if name not in SPEECH_SCORERS]


def mcq_score_file(bench: Any, predictions: Path, out: Path | None = None, **kwargs: Any) -> Any:
    """`mcq score` of a predictions file (no judge) into `out` (default: beside the file);
    returns its `McqScoreResult` (rows, summary, disagreements)."""
    from audioeval.benchmarks.mcq.preset import SCORE
    from audioeval.presets.preset_run import run_preset

    folder = out or predictions.parent / f"{predictions.name}.out"
    values = {"benchmark": bench.name, "predictions": predictions, "output_dir": folder, "progress": False}
    renamed = {"n_resamples": "resamples"}  # the config field it was once given as
    values.update({renamed.get(k, k): v for k, v in kwargs.items()})
    return run_preset(SCORE, values).engine.exports[folder]
