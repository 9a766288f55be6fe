"""The MMAE paper's two reference baselines: Identity (the input unchanged) and Noise
(Gaussian white noise of the input's length and sample rate)."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Literal

import numpy as np

from audioeval.benchmarks.mmae.loading import read_json_records, resolve_path
from audioeval.benchmarks.mmae.records import MetadataItem, PredictionItem, Turn
from audioeval.core.audio_path import audio_path_problem
from audioeval.core.errors import AudioError, InputError
from audioeval.core.shorten import shorten_path
from audioeval.store.atomic import write_json_atomic
from audioeval.store.run_lock import prepare_output_dir

Baseline = Literal["identity", "noise"]


def _first_input(item: MetadataItem) -> str | None:
    """The first user clip of a metadata item as read (checked part by part)."""
    for msg in item.get("messages", []):
        if isinstance(msg, dict) and msg.get("role") == "user" and isinstance(msg.get("content"), list):
            for part in msg["content"]:
                if (
                    isinstance(part, dict)
                    and part.get("type") == "audio"
                    and isinstance(part.get("audio_url"), str)
                ):
                    return str(part["audio_url"])
    return None


def _noise(src: Path, dst: Path, seed_text: str) -> None:
    import soundfile as sf

    info = sf.info(str(src))
    seed = int.from_bytes(hashlib.sha256(seed_text.encode()).digest()[:8], "big")
    noise = np.random.default_rng(seed).normal(0.0, 0.1, size=info.frames).astype(np.float32)
    dst.parent.mkdir(parents=True, exist_ok=True)
    sf.write(str(dst), np.clip(noise, -1.0, 1.0), info.samplerate, subtype="PCM_16")


def write_baseline(
    kind: Baseline, *, metadata: str | Path, audio_root: str | Path, out_dir: str | Path
) -> tuple[Path, list[InputError]]:
    """Write `predictions.json` (and, for noise, `audio/<id>.wav`) under `out_dir`."""
    root, out = Path(audio_root).resolve(), prepare_output_dir(Path(out_dir)).resolve()
    preds: list[PredictionItem] = []
    errors: list[InputError] = []
    for item in read_json_records(metadata, "metadata"):
        sid = item.get("id") if isinstance(item, dict) else None
        first = _first_input(item) if isinstance(item, dict) else None
        if not isinstance(sid, str) or first is None:
            errors.append(
                InputError("no id or no user audio", file=str(metadata), sample_id=sid, field="messages")
            )
            continue
        problem = audio_path_problem(first)
        if problem:
            errors.append(InputError(problem, file=str(metadata), sample_id=sid, field="messages"))
            continue
        src = resolve_path(first, root)
        if not src.is_file():
            errors.append(
                AudioError(
                    f"input audio not found: {shorten_path(src)}",
                    file=str(metadata),
                    sample_id=sid,
                    field="messages",
                )
            )
            continue
        if kind == "identity":
            output = src
        else:
            output = out / "audio" / f"{sid}.wav"
            try:
                _noise(src, output, sid)
            except RuntimeError as exc:
                errors.append(
                    AudioError(
                        f"unreadable input audio {src}: {exc}",
                        file=str(metadata),
                        sample_id=sid,
                        field="messages",
                    )
                )
                continue
        messages: list[Turn] = [
            m for m in item["messages"] if isinstance(m, dict) and m.get("role") == "user"
        ]
        messages.append({"role": "assistant", "content": [{"type": "audio", "audio_url": str(output)}]})
        preds.append({"id": sid, "messages": messages})
    out.mkdir(parents=True, exist_ok=True)
    path = out / "predictions.json"
    write_json_atomic(path, preds)
    return path, errors
