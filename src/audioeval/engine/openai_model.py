"""A model under test behind OpenAI-compatible endpoints (vLLM, OpenAI, others).

The same client as the judge: several endpoints with least-outstanding balancing and
failover, retries with backoff inside each call's deadline, and the content-keyed response
cache, so a rerun never asks the same question twice.

Tasks with audio output (TTS, voice conversion, spoken answers) ask for speech:
- `api: chat` (default) sends the rendered messages with `modalities: ["text", "audio"]` and
  `audio: {voice, format: wav}`, and reads `choices[].message.audio.data` (gpt-4o-audio,
  vLLM-Omni and other speaking chat models);
- `api: speech` posts the sample's text to `/audio/speech` (`{model, input, voice,
  response_format: wav}`), the TTS endpoint of OpenAI and many TTS servers; it serves `tts`.
The audio is decoded and written to the WAV the engine asks for; audio that cannot be
decoded, or an answer without audio, is a recorded failure, never a score.
"""

from __future__ import annotations

import asyncio
import base64
import json
from dataclasses import dataclass, field
from typing import Literal, TypedDict

from audioeval.adapters.base import AdapterHooks, GenerationConfig, ModelRequest, ModelSignature
from audioeval.adapters.openai_chat import (
    AudioPartStyle,
    audio_output_fields,
    build_speech_request,
    reply_audio,
)
from audioeval.audio.clip_cache import ClipCache
from audioeval.audio.decode import decode_bytes
from audioeval.core.errors import AudioevalError, RunStopped
from audioeval.core.generation import Generation
from audioeval.core.messages import Message, TextPart
from audioeval.core.model_output import ModelOutput, OutputFault
from audioeval.core.redact import excerpt, redact, redact_optional
from audioeval.core.usage import Usage
from audioeval.engine.cached_judge import CachedJudge, through_cache
from audioeval.engine.chat_client import ChatClient, Reply
from audioeval.engine.endpoint_probe import check_endpoints
from audioeval.engine.output_gate import usable_text
from audioeval.store.bounded_json import loads
from audioeval.store.response_cache import ResponseCache, request_key

OpenAIApi = Literal["chat", "speech", "transcription", "translation"]
API_PATHS = {
    "chat": "/chat/completions",
    "speech": "/audio/speech",
    "transcription": "/audio/transcriptions",
    "translation": "/audio/translations",
}


def _spoken_reply(reply: Reply) -> str:
    """A chat answer in speech, kept as JSON text (so the response cache can hold it)."""
    text, audio_b64 = reply_audio(reply.json)
    return json.dumps({"text": text, "audio": audio_b64})


def _speech_reply(reply: Reply) -> str:
    """The audio bytes of a `/audio/speech` answer, kept as JSON text."""
    raw = reply.raw
    if not raw:
        raise ValueError("empty audio body")
    if raw[:1] == b"{":
        raise ValueError(f"expected audio, got JSON: {excerpt(raw, 200)}")
    return json.dumps({"text": None, "audio": base64.b64encode(raw).decode("ascii")})


def _audio_decodes(payload: str) -> bool:
    """Whether a spoken reply carries audio that decodes (only such replies are cached)."""
    try:
        reply = loads(payload, nesting=None)
        decode_bytes(base64.b64decode(reply["audio"]), source="cache", sample_id="", field="output.audio")
    except (AudioevalError, ValueError, KeyError, TypeError):
        return False
    return True


def _write_audio(payload: str, path: str, *, source: str, sample_id: str) -> tuple[str | None, float]:
    """Decode the audio of a spoken reply into the WAV at `path`; returns the reply's text and
    the audio's seconds."""
    import soundfile as sf

    reply = loads(payload, nesting=None)
    frames, rate = decode_bytes(
        base64.b64decode(reply["audio"]), source=source, sample_id=sample_id, field="output.audio"
    )
    sf.write(path, frames, rate, subtype="FLOAT")
    return reply.get("text"), len(frames) / rate if rate else 0.0


class GenerationMeta(TypedDict):
    """Where and how a generation was answered, as a model output records it."""

    endpoint: str | None
    latency_s: float | None
    cached: bool
    usage: Usage | None


def generation_meta(gen: Generation) -> GenerationMeta:
    """Where and how a generation was answered: endpoint, latency, cached, usage."""
    return {"endpoint": gen.endpoint, "latency_s": gen.latency_s, "cached": gen.cached, "usage": gen.usage}


def text_output(gen: Generation) -> ModelOutput:
    """A generation's text answer, or its failure, as the model's output (what the answer's
    text is worth is the output gate's to say: `engine/output_gate.py`); a 2xx answer that
    is not one (`gen.bad`) is a bad output."""
    fault = OutputFault.BAD_OUTPUT if gen.bad else None
    return ModelOutput(text=gen.text, error=redact_optional(gen.error), fault=fault, **generation_meta(gen))


async def generation_output(gen: Generation, request: ModelRequest, *, source: str) -> ModelOutput:
    """The model's output for a finished generation: its text (or failure); when the request
    asks for audio, the spoken reply decoded into `request.audio_out` (undecodable audio is
    the output's error). `source` names the model in errors when the endpoint is unknown."""
    if not gen.ok or request.audio_out is None:
        return text_output(gen)
    meta = generation_meta(gen)
    try:
        text, seconds = await asyncio.to_thread(
            _write_audio,
            gen.text or "",
            request.audio_out,
            source=gen.endpoint or source,
            sample_id=request.sample.id,
        )
    except AudioevalError as exc:  # the answer's audio does not decode
        return ModelOutput(error=redact(str(exc)), fault=OutputFault.BAD_OUTPUT, **meta)
    if gen.usage is not None and not gen.cached:
        meta["usage"] = gen.usage.with_audio(received_s=round(seconds, 3))
    return ModelOutput(text=text, audio_path=request.audio_out, **meta)


@dataclass
class OpenAIChatModel(AdapterHooks):
    name: str
    urls: list[str]
    served_model: str
    api_key: str | None = None
    max_concurrency: int = 8
    timeout_s: float = 300.0
    unreachable_after_s: float = 30.0
    audio_part: AudioPartStyle = "audio_url"
    sample_rate: int = 16000
    config: GenerationConfig = field(default_factory=GenerationConfig)
    cache: ResponseCache | None = None
    api: OpenAIApi = "chat"
    voice: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    provider: str = "openai"  # engine/api_providers.py: its key header and query below
    key_header: str = "Authorization"
    query: str = ""
    _client: ChatClient | None = None
    _call: CachedJudge | None = None
    _speak: CachedJudge | None = None

    @property
    def tasks(self) -> tuple[str, ...] | None:
        """`/audio/speech` only speaks text; a chat model takes every task."""
        return ("tts",) if self.api == "speech" else None

    def signature(self) -> ModelSignature:
        # Endpoints and keys do not move numbers; the served model and the audio policy do.
        sig: ModelSignature = {
            "model": self.name,
            "type": "openai",
            "served_model": self.served_model,
            "audio_part": self.audio_part,
            "sample_rate": self.sample_rate,
        }
        if self.api != "chat":
            sig["api"] = self.api
        if self.provider != "openai":
            sig["provider"] = self.provider
        if self.voice:
            sig["voice"] = self.voice
        return sig

    async def check_endpoints(self) -> None:
        """Check each endpoint once (endpoint_probe.py); keep the usable ones for the run."""
        self.urls = await check_endpoints(
            self.urls,
            role=f"model {self.name}",
            model=self.served_model,
            api_key=self.api_key,
            api_key_env=self.api_key_env,
            api_path=API_PATHS[self.api],
            key_header=self.key_header,
            query=self.query,
        )

    async def start(self) -> None:
        self._client = ChatClient(
            self.urls,
            api_key=self.api_key,
            timeout_s=self.timeout_s,
            concurrency=self.max_concurrency,
            unreachable_after_s=self.unreachable_after_s,
            role=f"model {self.name}",
            key_header=self.key_header,
            query=self.query,
            priced_as=self.served_model,
        )
        sampling = self.config.sampling()
        clips = ClipCache(target_rate=self.sample_rate)
        common = dict(model=self.served_model, style=self.audio_part, cache=self.cache)
        self._call = CachedJudge(
            self._client, clips, sampling=sampling, accept=usable_text, **common  # type: ignore[arg-type]
        )
        self._speak = CachedJudge(
            self._client,
            clips,
            sampling={**sampling, **audio_output_fields(self.voice)},
            parse=_spoken_reply,
            accept=_audio_decodes,
            **common,  # type: ignore[arg-type]
        )

    async def generate(self, request: ModelRequest) -> ModelOutput:
        assert self._call is not None and self._speak is not None, "start() first"
        try:
            # The pair's settings (task default, spec, user) are sent with every request.
            extra = request.config.sampling() or None
            messages = with_system_prompt(request.messages, request.config.system_prompt or self.config.system_prompt)
            if request.audio_out is None:
                gen = await self._call(messages, 0, extra=extra)
            elif self.api == "speech":
                gen = await self._tts(request)
            else:
                gen = await self._speak(messages, 0, extra=extra)
        except RunStopped:
            raise  # the run stops (a rerun resumes); never one sample's failure
        except AudioevalError as exc:
            return ModelOutput(error=redact(str(exc)))
        return await generation_output(gen, request, source=self.name)

    async def _tts(self, request: ModelRequest) -> Generation:
        assert self._client is not None
        text = request.sample.get("reference")
        if not text:
            return Generation(None, error="no text to speak (the sample's field 'reference' is empty)")
        body = build_speech_request(str(text), model=self.served_model, voice=self.voice)
        client = self._client
        return await through_cache(
            self.cache,
            request_key({"speech": body, "attempt": 0}),
            lambda: client.complete(body, path="/audio/speech", parse=_speech_reply),
            _audio_decodes,
        )

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()

    @property
    def calls(self) -> int:
        return self._client.calls if self._client else 0


def with_system_prompt(messages: tuple[Message, ...], system: str | None) -> list[Message]:
    """The messages with `--system-prompt` first: its own system message, or joined before the
    template's system text when the template has one (one system message per request)."""
    if not system:
        return list(messages)
    first = messages[0] if messages else None
    if first is not None and first.role == "system" and all(isinstance(p, TextPart) for p in first.parts):
        text = "".join(p.text for p in first.parts if isinstance(p, TextPart))
        return [Message.text("system", f"{system}\n\n{text}"), *messages[1:]]
    return [Message.text("system", system), *messages]
