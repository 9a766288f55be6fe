"""Small generated benchmarks for `audioeval run` tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.fakes.mcq_server import FREQS, tone_wav


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
