"""The codec contract: audio → codes → audio, with the output aligned to the input."""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from dataclasses import dataclass

import numpy as np

from audioeval.adapters.codecs.alignment import estimate_lag, fit_length, probe_signal
from audioeval.audio.decode import Clip, require_finite, resample


@dataclass(frozen=True)
class EncodedAudio:
    """A codec's bitstream and what decoding it needs."""

    codec: str
    """The codec's spec name, e.g. `opus:12k`."""
    payload: bytes
    """The bitstream (Opus: an Ogg Opus file, container overhead included)."""
    n_samples: int
    """Samples encoded, at `sample_rate`."""
    sample_rate: int
    """The rate the encoder ran at."""

    @property
    def duration_s(self) -> float:
        return self.n_samples / float(self.sample_rate)

    @property
    def bitrate_bps(self) -> float:
        """The bitrate actually spent: payload bits per second of audio."""
        return len(self.payload) * 8 / self.duration_s if self.n_samples else 0.0


def to_pcm16(x: np.ndarray) -> np.ndarray:
    return (np.clip(x, -1.0, 1.0) * 32767.0).round().astype(np.int16)


def from_pcm16(x: np.ndarray) -> np.ndarray:
    return (np.asarray(x, dtype=np.float32) / 32768.0).astype(np.float32)


class AudioCodec(ABC):
    """A built-in codec. Subclasses implement `_encode` and `_decode` at one of their rates.

    `roundtrip` resamples to the codec's rate, appends a silent tail so the decoder flushes,
    removes the codec's delay (measured once per rate on a speech-like probe, see
    `alignment.py`) and returns exactly as many samples as it was given, at the input rate.
    Instances are stateless between calls and safe to share between threads.
    """

    name: str
    """Canonical spec string, stable across versions (used in result keys)."""
    sample_rate: int
    """The codec's native rate."""
    bitrate_bps: int
    """Nominal bitrate."""
    input_rates: tuple[int, ...] = ()
    """Other rates the encoder takes as they are (no resampling)."""
    tail_s: float = 0.1

    def __init__(self) -> None:
        self._delays: dict[int, int] = {}
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"<codec {self.name}>"

    def codec_rate(self, sr: int) -> int:
        """The rate the encoder runs at for input at `sr`."""
        return sr if sr in self.input_rates else self.sample_rate

    @abstractmethod
    def _encode(self, samples: np.ndarray, rate: int) -> bytes: ...

    @abstractmethod
    def _decode(self, payload: bytes, rate: int, n_samples: int) -> np.ndarray: ...

    def encode(self, audio: np.ndarray, sr: int) -> EncodedAudio:
        """Mono float audio at `sr` → the codec's bitstream (resampled to a codec rate first)."""
        rate = self.codec_rate(sr)
        x = _resample(_mono(audio), sr, rate)
        return EncodedAudio(self.name, self._encode(x, rate), len(x), rate)

    def decode(self, encoded: EncodedAudio) -> np.ndarray:
        """The decoder's raw output at `encoded.sample_rate` (not delay-compensated)."""
        return self._decode(encoded.payload, encoded.sample_rate, encoded.n_samples)

    def delay_samples(self, rate: int) -> int:
        """The codec's delay at `rate`, measured once on a probe signal and cached."""
        with self._lock:
            if rate not in self._delays:
                probe = probe_signal(rate)
                out = self._decode(self._encode(probe, rate), rate, len(probe))
                self._delays[rate] = estimate_lag(probe, fit_length(out, len(probe)), rate)
            return self._delays[rate]

    def roundtrip(self, audio: np.ndarray, sr: int) -> tuple[np.ndarray, int]:
        """Encode and decode; the result is aligned with `audio`, as long, at the same rate."""
        x = _mono(audio)
        if x.size == 0:
            return x.copy(), sr
        rate = self.codec_rate(sr)
        y = _resample(x, sr, rate)
        delay = self.delay_samples(rate)
        padded = np.concatenate([y, np.zeros(int(self.tail_s * rate), dtype=np.float32)])
        out = self._decode(self._encode(padded, rate), rate, len(padded))
        out = out[delay:] if delay >= 0 else np.concatenate([np.zeros(-delay, np.float32), out])
        back = _resample(fit_length(out, len(y)), rate, sr)
        return fit_length(back, len(x)).astype(np.float32), sr


def _mono(audio: np.ndarray) -> np.ndarray:
    x = np.asarray(audio, dtype=np.float32)
    if x.ndim != 1:
        raise ValueError(f"codecs take mono audio as a 1-D array, got shape {x.shape}")
    require_finite(x, source=None, field="audio")
    return x


def _resample(x: np.ndarray, sr: int, rate: int) -> np.ndarray:
    return resample(Clip(x, sr), rate).samples.astype(np.float32, copy=False)
