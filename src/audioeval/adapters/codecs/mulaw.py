"""G.711 μ-law at 8 kHz (64 kbit/s), in numpy: the 16-bit segment tables of the ITU-T standard."""

from __future__ import annotations

import numpy as np

from audioeval.adapters.codecs.base import AudioCodec, from_pcm16, to_pcm16

_BIAS = 0x84
_CLIP = 32635
# exponent = index of the highest set bit of (magnitude >> 7), for 8-bit values
_EXP_LUT = np.array([max(0, int(v).bit_length() - 1) for v in range(256)], dtype=np.int32)


def mulaw_encode(pcm: np.ndarray) -> np.ndarray:
    """int16 samples → 8-bit μ-law codes."""
    x = pcm.astype(np.int32)
    sign = np.where(x < 0, 0x80, 0)
    mag = np.minimum(np.abs(x), _CLIP) + _BIAS
    exponent = _EXP_LUT[(mag >> 7) & 0xFF]
    mantissa = (mag >> (exponent + 3)) & 0x0F
    return (~(sign | (exponent << 4) | mantissa) & 0xFF).astype(np.uint8)


def mulaw_decode(codes: np.ndarray) -> np.ndarray:
    """8-bit μ-law codes → int16 samples."""
    u = ~codes.astype(np.int32) & 0xFF
    exponent = (u >> 4) & 0x07
    mag = (((u & 0x0F) << 3) + _BIAS) << exponent
    return np.where(u & 0x80, _BIAS - mag, mag - _BIAS).astype(np.int16)


class MuLawCodec(AudioCodec):
    """G.711 μ-law: 8 kHz, 8 bits a sample, no delay."""

    name = "mulaw"
    sample_rate = 8000
    bitrate_bps = 64000

    def _encode(self, samples: np.ndarray, rate: int) -> bytes:
        return mulaw_encode(to_pcm16(samples)).tobytes()

    def _decode(self, payload: bytes, rate: int, n_samples: int) -> np.ndarray:
        return from_pcm16(mulaw_decode(np.frombuffer(payload, dtype=np.uint8)))
