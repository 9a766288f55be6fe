"""A model behind `/audio/transcriptions` (asr) or `/audio/translations` (ast): OpenAI's
Whisper and gpt-4o-transcribe, vLLM serving Whisper or another ASR model.

Each sample's input clip goes out as a 16 kHz WAV in a multipart form
(`adapters/openai_transcription.py`) through the same `ChatClient` as chat models (retries,
timeouts, endpoint balancing, the stop when every endpoint is unreachable) and the response
cache, so a rerun asks nothing twice. Form fields: `model`; `language` (transcription only:
the sample's `language`, else the benchmark's); `temperature` (the pair's setting: greedy 0
for asr and ast); `response_format` (`json`, or a `--gen-arg response_format=…`) and `prompt`
when given as generation arguments. The rendered prompt template is not sent: the `prompt`
field of these APIs is a style hint, not an instruction.

`/audio/translations` translates into English only: a sample whose target language
(`target_language`, sample or benchmark) is another one is a recorded failure, never a
translation into the wrong language scored as an answer.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, replace

from audioeval.adapters.api_usage import transcription_usage
from audioeval.adapters.base import ModelRequest
from audioeval.adapters.openai_transcription import (
    RESPONSE_FORMATS,
    TranscriptionFields,
    build_transcription_form,
    is_english,
    transcription_text,
)
from audioeval.audio.clip_cache import ClipCache
from audioeval.core.errors import AudioevalError, RunStopped
from audioeval.core.generation import Generation
from audioeval.core.model_output import ModelOutput
from audioeval.core.redact import redact
from audioeval.engine.cached_judge import through_cache
from audioeval.engine.chat_client import ChatClient
from audioeval.engine.openai_model import API_PATHS, OpenAIChatModel, text_output
from audioeval.engine.output_gate import usable_text
from audioeval.store.response_cache import request_key

API_TASKS = {"transcription": ("asr",), "translation": ("ast",)}


@dataclass
class OpenAITranscriptionModel(OpenAIChatModel):
    _clips: ClipCache | None = None

    @property
    def tasks(self) -> tuple[str, ...] | None:
        return API_TASKS[self.api]

    async def start(self) -> None:
        await super().start()
        self._clips = ClipCache(target_rate=self.sample_rate)

    def _fields(self, request: ModelRequest) -> TranscriptionFields:
        """The optional form fields of one request (None: left out)."""
        sampling = request.config.sampling()
        fields: TranscriptionFields = {
            "response_format": sampling.get("response_format", "json"),
            "temperature": sampling.get("temperature"),
            "prompt": sampling.get("prompt"),
        }
        if self.api == "transcription":
            language = request.sample.get("language") or request.variables.get("language")
            fields = {"language": str(language) if language else None, **fields}
        return fields

    async def generate(self, request: ModelRequest) -> ModelOutput:
        assert self._client is not None and self._clips is not None, "start() first"
        ref = request.sample.audio.get("audio")
        if ref is None:
            return ModelOutput(error="the sample has no input audio to transcribe")
        target = request.sample.get("target_language") or request.variables.get("target_language")
        if self.api == "translation" and target and not is_english(target):
            return ModelOutput(
                error=f"/audio/translations translates into English only; this sample asks for {target}"
            )
        fields = self._fields(request)
        fmt = str(fields["response_format"])
        if fmt not in RESPONSE_FORMATS:
            return ModelOutput(
                error=f"response_format {fmt!r} is not read here: one of {', '.join(RESPONSE_FORMATS)}"
            )
        try:
            clip = self._clips.get(ref, sample_id=request.sample.id, field="audio")
            gen = await self._ask(clip.b64_wav, clip.sha256, fields, fmt)
            if gen.usage is not None and gen.usage.calls and not gen.usage.audio_sent_s:  # billed seconds win
                gen = replace(gen, usage=gen.usage.with_audio(sent_s=round(clip.duration_s, 3)))
        except RunStopped:
            raise
        except AudioevalError as exc:
            return ModelOutput(error=redact(str(exc)))
        return text_output(gen)

    async def _ask(self, b64_wav: str, sha256: str, fields: TranscriptionFields, fmt: str) -> Generation:
        client = self._client
        assert client is not None
        ident = {"api": self.api, "model": self.served_model, "audio": sha256, **fields}

        return await through_cache(
            self.cache,
            request_key({"transcription": ident, "attempt": 0}),
            lambda: self._send(client, b64_wav, fields, fmt),
            usable_text,
        )

    async def _send(
        self, client: ChatClient, b64_wav: str, fields: TranscriptionFields, fmt: str
    ) -> Generation:
        """One live request (on a cache miss): the form is built only then."""
        form, content_type = build_transcription_form(
            base64.b64decode(b64_wav), model=self.served_model, fields=fields
        )
        return await client.complete(
            form,
            path=API_PATHS[self.api],
            parse=lambda reply: transcription_text(reply.raw, fmt),
            content_type=content_type,
            usage=transcription_usage,
        )
