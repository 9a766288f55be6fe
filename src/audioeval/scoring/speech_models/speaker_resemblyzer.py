"""Resemblyzer (GE2E d-vector, 256-d; weights ship in its wheel), the paper-comparable SIM.

It needs torch, which audioeval's `speech` extra does not install; see RESEMBLYZER_HINT.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

import numpy as np

from audioeval.scoring.speech_models._audio import mono_at
from audioeval.scoring.speech_models._deps import RESEMBLYZER_HINT, dist_version, require
from audioeval.scoring.speech_models.runtime import ModelStats

RATE = 16000


class ResemblyzerEmbedder:
    """Resemblyzer's VoiceEncoder on CPU, with its own preprocessing (VAD trim, normalisation)."""

    backend = "resemblyzer"

    def __init__(self) -> None:
        self._module = require("resemblyzer", RESEMBLYZER_HINT)
        self._encoder = self._module.VoiceEncoder("cpu", verbose=False)
        self.stats = ModelStats()
        self._lock = threading.Lock()

    @property
    def signature(self) -> str:
        return f"resemblyzer {dist_version('resemblyzer')}:VoiceEncoder"

    def embed(self, audio: np.ndarray, sr: int) -> np.ndarray:
        wav = mono_at(audio, sr, RATE)
        t0 = time.perf_counter()
        with self._lock:
            emb = self._encoder.embed_utterance(self._module.preprocess_wav(wav, source_sr=RATE))
        self.stats.add(len(wav) / RATE, time.perf_counter() - t0)
        return np.asarray(emb, dtype=np.float32)

    def embed_batch(self, clips: Sequence[tuple[np.ndarray, int]]) -> list[np.ndarray]:
        return [self.embed(audio, sr) for audio, sr in clips]
