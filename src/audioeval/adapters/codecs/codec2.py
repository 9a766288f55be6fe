"""Codec2, the low-bitrate speech vocoder (8 kHz), through pycodec2 (bundles libcodec2, LGPL-2.1)."""

from __future__ import annotations

import numpy as np

from audioeval.adapters.codecs._deps import require_speech
from audioeval.adapters.codecs.base import AudioCodec, from_pcm16, to_pcm16
from audioeval.adapters.codecs.codec2_rng import seeded

CODEC2_MODES = ("3200", "2400", "1600", "1400", "1300", "1200", "700C")


class Codec2Codec(AudioCodec):
    """Codec2 in one of `CODEC2_MODES`; a vocoder, so its output matches the input in
    envelope, not in phase. Decoding is reproducible where `codec2_rng.reproducible()`."""

    sample_rate = 8000

    def __init__(self, mode: str) -> None:
        super().__init__()
        if mode not in CODEC2_MODES:
            raise ValueError(f"unknown Codec2 mode {mode!r}; valid modes: {', '.join(CODEC2_MODES)}")
        self.mode = mode
        self.bitrate_bps = int(mode.rstrip("C"))
        self.name = f"codec2:{mode}"

    def _state(self):  # a fresh state per call: encoder and decoder keep history
        return require_speech("pycodec2").Codec2(self.bitrate_bps)

    def _encode(self, samples: np.ndarray, rate: int) -> bytes:
        codec = self._state()
        n = codec.samples_per_frame()
        pcm = to_pcm16(samples)
        pcm = np.concatenate([pcm, np.zeros((-len(pcm)) % n, dtype=np.int16)])
        return b"".join(bytes(codec.encode(pcm[i : i + n])) for i in range(0, len(pcm), n))

    def _decode(self, payload: bytes, rate: int, n_samples: int) -> np.ndarray:
        codec = self._state()
        size = codec.bytes_per_frame()
        with seeded():  # same bitstream → same audio (see codec2_rng.py)
            frames = [codec.decode(payload[i : i + size]) for i in range(0, len(payload), size)]
        return from_pcm16(np.concatenate(frames)) if frames else np.zeros(0, np.float32)
