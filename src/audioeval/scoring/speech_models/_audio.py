"""Bringing input audio to what a model takes: mono float32 at its rate."""

from __future__ import annotations

import numpy as np

from audioeval.audio.decode import Clip, require_finite, resample


def mono_at(audio: np.ndarray, sr: int, rate: int) -> np.ndarray:
    """A 1-D float32 array at `rate` (soxr resampling when `sr` differs)."""
    x = np.asarray(audio, dtype=np.float32)
    if x.ndim != 1:
        raise ValueError(f"speech models take mono audio as a 1-D array, got shape {x.shape}")
    if sr <= 0:
        raise ValueError(f"sample rate must be positive, got {sr}")
    require_finite(x, source=None, field="audio")  # librosa and the ONNX models would fail or mislead
    return np.ascontiguousarray(resample(Clip(x, int(sr)), rate).samples, dtype=np.float32)
