"""Embedded audio generators under test: espeak-ng as a TTS model, built-in codecs.

- `espeak-ng[:VOICE]` speaks the sample's text (`reference`) with the espeak-ng binary;
- `opus:12k`, `codec2:3200`, `mulaw`, … round-trip the sample's input audio through the codec
  (`adapters/codecs`), so a codec is evaluated like any model with audio output.
Both write the WAV the engine asks for (`ModelRequest.audio_out`).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from audioeval.adapters.base import AdapterHooks, ModelRequest, ModelSignature
from audioeval.core.errors import AudioevalError, InputError
from audioeval.core.model_output import ModelOutput

if TYPE_CHECKING:
    from audioeval.adapters.codecs.base import AudioCodec


def _write_wav(path: str, samples: Any, rate: int) -> None:
    import soundfile as sf

    sf.write(path, samples, rate, subtype="PCM_16")


@dataclass
class EspeakTts(AdapterHooks):
    """espeak-ng as the embedded TTS model (rule-based formant synthesis, offline)."""

    name: str
    voice: str = "en-us"
    speed: int = 160
    max_concurrency: int = 2
    tasks: ClassVar[tuple[str, ...]] = ("tts",)

    def signature(self) -> ModelSignature:
        import subprocess

        version = subprocess.run(["espeak-ng", "--version"], capture_output=True, text=True, check=False)
        return {
            "model": self.name,
            "type": "tts",
            "engine": version.stdout.strip(),
            "voice": self.voice,
            "speed": self.speed,
        }

    async def start(self) -> None:
        from audioeval.audio.tts_espeak import ESPEAK_HINT, espeak_available
        from audioeval.core.errors import OptionalDependencyError

        if not espeak_available():
            raise OptionalDependencyError(ESPEAK_HINT)

    async def generate(self, request: ModelRequest) -> ModelOutput:
        from audioeval.audio.tts_espeak import synthesize_espeak

        text = request.sample.get("reference")
        if not text or request.audio_out is None:
            return ModelOutput(error="espeak-ng: the sample has no text to speak (field 'reference')")
        try:
            audio = await asyncio.to_thread(synthesize_espeak, str(text), voice=self.voice, speed=self.speed)
            await asyncio.to_thread(_write_wav, request.audio_out, audio, 16000)
        except AudioevalError as exc:
            return ModelOutput(error=str(exc))
        return ModelOutput(audio_path=request.audio_out)

    async def aclose(self) -> None:
        return None


@dataclass
class CodecModel(AdapterHooks):
    """A built-in codec as a model: input audio -> codes -> audio."""

    name: str
    spec: str
    max_concurrency: int = 2
    tasks: ClassVar[tuple[str, ...]] = ("codec",)
    _codec: AudioCodec | None = field(default=None, repr=False)  # built by start()

    def signature(self) -> ModelSignature:
        return {
            "model": self.name,
            "type": "codec",
            "codec": self.spec,
            "bitrate_bps": self._codec.bitrate_bps if self._codec is not None else None,
        }

    async def start(self) -> None:
        from audioeval.adapters.codecs.registry import parse_codec_spec

        self._codec = parse_codec_spec(self.spec)

    async def generate(self, request: ModelRequest) -> ModelOutput:
        ref = request.sample.audio.get("audio")
        if ref is None or request.audio_out is None:
            return ModelOutput(error=f"{self.spec}: the sample has no input audio")
        try:
            decoded, rate = await asyncio.to_thread(self._roundtrip, ref, request.sample.id)
            await asyncio.to_thread(_write_wav, request.audio_out, decoded, rate)
        except InputError:
            raise  # the sample's own clip is unreadable: the engine records it as an input error
        except AudioevalError as exc:
            return ModelOutput(error=str(exc))
        except Exception as exc:  # a codec library failing on one clip fails that sample only
            return ModelOutput(error=f"{self.spec}: {type(exc).__name__}: {exc}")
        return ModelOutput(audio_path=request.audio_out)

    def _roundtrip(self, ref: Any, sample_id: str) -> tuple[Any, int]:
        from audioeval.audio.decode import load_clip
        from audioeval.audio.slicing import cut

        clip = load_clip(ref.path, sample_id=sample_id, field="audio")
        if ref.is_slice:
            clip = cut(clip, ref.start, ref.end)
        out, rate = self._codec.roundtrip(clip.samples, clip.sample_rate)
        return out, rate

    async def aclose(self) -> None:
        return None
