"""Resemblyzer (GE2E d-vector, 256-d; weights ship in its wheel), the paper-comparable SIM.

It needs torch, which audioeval's `speech` extra does not install; see RESEMBLYZER_HINT.
torch and resemblyzer are imported when the embedder is first built, never at module import.

An embedding is exactly resemblyzer's reference usage,
`VoiceEncoder("cpu").embed_utterance(preprocess_wav(wav, source_sr=sr))`, on the clip brought to
mono float32 at 16 kHz the way the d-vector backend does it (soxr; a 16 kHz clip is untouched).
`preprocess_wav` normalises the volume and trims silences with webrtcvad, so a clip in which it
finds no speech has no embedding and raises AudioError, as does a clip under 0.1 s.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Sequence
from types import ModuleType

import numpy as np

from audioeval.core.errors import AudioError
from audioeval.scoring.speech_models._audio import mono_at
from audioeval.scoring.speech_models._deps import RESEMBLYZER_HINT, dist_version, require
from audioeval.scoring.speech_models.runtime import ModelStats

RATE = 16000


def _import_resemblyzer() -> ModuleType:
    with warnings.catch_warnings():
        # resemblyzer 0.1.4 imports binary_dilation from the deprecated scipy.ndimage.morphology.
        warnings.filterwarnings("ignore", category=DeprecationWarning, message=r".*scipy\.ndimage")
        return require("resemblyzer", RESEMBLYZER_HINT)


class ResemblyzerEmbedder:
    """Resemblyzer's VoiceEncoder on CPU, with its own preprocessing (VAD trim, normalisation).

    Thread-safe: calls into the encoder are serialised.
    """

    backend = "resemblyzer"

    def __init__(self) -> None:
        self._module = _import_resemblyzer()
        self._encoder = self._module.VoiceEncoder("cpu", verbose=False)
        self.stats = ModelStats(self.signature)
        self._lock = threading.Lock()

    @property
    def signature(self) -> str:
        return f"resemblyzer {dist_version('resemblyzer')}:VoiceEncoder"

    def embed(self, audio: np.ndarray, sr: int) -> np.ndarray:
        """The L2-normalised 256-d embedding of one clip (1-D array, any sample rate)."""
        wav = mono_at(audio, sr, RATE)
        if len(wav) < RATE // 10:
            raise AudioError("a speaker embedding needs at least 0.1 s of audio", field="audio")
        with self._lock, self.stats.measure(len(wav) / RATE):  # busy time: calls never overlap
            with np.errstate(
                divide="ignore", invalid="ignore"
            ):  # digital silence: log10(0) in the volume step
                speech = self._module.preprocess_wav(wav, source_sr=RATE)
            if len(speech) == 0:
                raise AudioError(
                    "resemblyzer's voice-activity trim found no speech in the clip, so it has no speaker embedding",
                    field="audio",
                )
            emb = self._encoder.embed_utterance(speech)
        return np.asarray(emb, dtype=np.float32)

    def embed_batch(self, clips: Sequence[tuple[np.ndarray, int]]) -> list[np.ndarray]:
        """Embeddings of several clips, in order (each clip on its own, as the reference does)."""
        return [self.embed(audio, sr) for audio, sr in clips]
