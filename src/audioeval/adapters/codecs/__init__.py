"""Built-in audio codecs as round-trips (audio → codes → audio) on mono float32 arrays.

`parse_codec_spec("opus:12k").roundtrip(audio, sr)` returns audio aligned with the input and
exactly as long, so reference-based metrics (PESQ, STOI, SIM) compare like with like.
Neural codecs are not built in (see `NeuralCodecUnavailable`).
"""

from audioeval.adapters.codecs.base import AudioCodec, EncodedAudio
from audioeval.adapters.codecs.registry import (
    BUILTIN_CODECS,
    NEURAL_CODECS,
    CodecSpecError,
    NeuralCodecUnavailable,
    parse_codec_spec,
)

__all__ = [
    "BUILTIN_CODECS",
    "NEURAL_CODECS",
    "AudioCodec",
    "CodecSpecError",
    "EncodedAudio",
    "NeuralCodecUnavailable",
    "parse_codec_spec",
]
