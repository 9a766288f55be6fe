"""Opus at a chosen bitrate, through PyAV (the `av` wheel bundles FFmpeg with libopus).

Encoding writes an in-memory Ogg Opus file with libopus (FFmpeg's defaults: application
`audio`, VBR, 20 ms frames, complexity 10). Decoding uses FFmpeg's Opus decoder, which honours
the Ogg pre-skip and end trimming, so the decoded stream is already as long as the input; the
delay left is measured anyway (see `AudioCodec.delay_samples`).
"""

from __future__ import annotations

import io

import numpy as np

from audioeval.adapters.codecs._deps import require_speech
from audioeval.adapters.codecs.base import AudioCodec, to_pcm16
from audioeval.audio.decode import Clip, resample

OPUS_RATES = (8000, 12000, 16000, 24000, 48000)
MIN_BPS, MAX_BPS = 6000, 256000


def format_bitrate(bps: int) -> str:
    return f"{bps // 1000}k" if bps % 1000 == 0 else str(bps)


class OpusCodec(AudioCodec):
    """Opus (libopus) at `bitrate_bps`; input at 8/12/16/24/48 kHz is encoded as it is."""

    sample_rate = 48000
    input_rates = OPUS_RATES

    def __init__(self, bitrate_bps: int) -> None:
        super().__init__()
        if not MIN_BPS <= bitrate_bps <= MAX_BPS:
            raise ValueError(f"Opus bitrate must be between {MIN_BPS} and {MAX_BPS} bps for mono")
        self.bitrate_bps = bitrate_bps
        self.name = f"opus:{format_bitrate(bitrate_bps)}"

    def _encode(self, samples: np.ndarray, rate: int) -> bytes:
        av = require_speech("av")
        buf = io.BytesIO()
        with av.open(buf, "w", format="ogg") as out:
            stream = out.add_stream("libopus", rate=rate)
            stream.bit_rate = self.bitrate_bps
            stream.layout = "mono"
            frame = av.AudioFrame.from_ndarray(to_pcm16(samples)[None, :], format="s16", layout="mono")
            frame.sample_rate = rate
            for packet in stream.encode(frame):
                out.mux(packet)
            for packet in stream.encode(None):
                out.mux(packet)
        return buf.getvalue()

    def _decode(self, payload: bytes, rate: int, n_samples: int) -> np.ndarray:
        av = require_speech("av")
        converter = av.AudioResampler(format="flt", layout="mono")
        chunks: list[np.ndarray] = []
        decoded_rate = self.sample_rate
        with av.open(io.BytesIO(payload)) as container:
            for frame in container.decode(audio=0):
                for out in converter.resample(frame):
                    decoded_rate = out.sample_rate
                    chunks.append(out.to_ndarray().reshape(-1))
            for out in converter.resample(None):
                chunks.append(out.to_ndarray().reshape(-1))
        samples = np.concatenate(chunks).astype(np.float32) if chunks else np.zeros(0, np.float32)
        return resample(Clip(samples, decoded_rate), rate).samples
