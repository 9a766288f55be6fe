"""Encoding clips as 16-bit PCM WAV bytes, base64 and data URIs."""

from __future__ import annotations

import base64
import hashlib
import io

import numpy as np

from audioeval.audio.decode import Clip


def wav_bytes(clip: Clip) -> bytes:
    import soundfile as sf

    buf = io.BytesIO()
    samples = np.clip(clip.samples, -1.0, 1.0)
    sf.write(buf, samples, clip.sample_rate, format="WAV", subtype="PCM_16")
    return buf.getvalue()


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def data_uri(b64_wav: str) -> str:
    return "data:audio/wav;base64," + b64_wav


def content_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
