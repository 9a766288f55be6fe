"""The OpenAI Realtime API's events (beta, `OpenAI-Beta: realtime=v1`; Azure OpenAI's
`/openai/realtime` speaks the same), for one turn per sample with server VAD off.

Client → server, in order:
1. `session.update` with `turn_detection: null` (no server VAD: the turn ends when we say),
   `modalities`, `instructions` (the prompt's system text), `voice`, PCM16 in and out;
2. `conversation.item.create`: one user message whose content holds `input_audio` (base64
   PCM16, 24 kHz mono, little-endian) and `input_text` parts in the prompt's order;
3. `response.create` with `modalities` (`["text"]`, or `["audio", "text"]` for speech).

Server → client, read until `response.done`: `response.text.delta` (text), `response.audio.
delta` (base64 PCM16 24 kHz) and `response.audio_transcript.delta` (what the audio says); the
GA names (`response.output_text.delta`, `response.output_audio.delta`,
`response.output_audio_transcript.delta`) are read alike. An `error` event, or a
`response.done` whose `response.status` is not `completed`, is a failure (`RealtimeError`).
Other events (`session.created`, `rate_limits.updated`, …) are passed over.
"""

from __future__ import annotations

import base64
import io
import wave
from dataclasses import dataclass, field
from typing import Any, Literal, TypedDict

from audioeval.adapters.api_usage import realtime_usage
from audioeval.core.usage import Usage

RATE = 24000
"""The Realtime API's PCM16 sample rate."""
TEXT_DELTAS = ("response.text.delta", "response.output_text.delta")
AUDIO_DELTAS = ("response.audio.delta", "response.output_audio.delta")
TRANSCRIPT_DELTAS = ("response.audio_transcript.delta", "response.output_audio_transcript.delta")


class SessionConfig(TypedDict, total=False):
    modalities: list[str]
    input_audio_format: Literal["pcm16"]
    output_audio_format: Literal["pcm16"]
    turn_detection: None
    instructions: str
    voice: str
    temperature: float


class SessionUpdate(TypedDict):
    type: Literal["session.update"]
    session: SessionConfig


class InputTextContent(TypedDict):
    type: Literal["input_text"]
    text: str


class InputAudioContent(TypedDict):
    type: Literal["input_audio"]
    audio: str  # base64 PCM16, 24 kHz mono


class UserMessage(TypedDict):
    type: Literal["message"]
    role: Literal["user"]
    content: list[InputTextContent | InputAudioContent]


class ItemCreate(TypedDict):
    type: Literal["conversation.item.create"]
    item: UserMessage


class ResponseConfig(TypedDict):
    modalities: list[str]


class ResponseCreate(TypedDict):
    type: Literal["response.create"]
    response: ResponseConfig


ClientEvent = SessionUpdate | ItemCreate | ResponseCreate
"""An event the client sends."""


class ErrorDetail(TypedDict, total=False):
    type: str
    code: str
    message: str


class ResponseStatus(TypedDict, total=False):
    status: str  # completed, cancelled, failed, incomplete
    status_details: object


class ServerEvent(TypedDict, total=False):
    """An event the server sends, with the fields read here (`TurnReply.feed` checks each)."""

    type: str
    delta: str
    error: ErrorDetail
    response: ResponseStatus


class RealtimeError(ValueError):
    """The server reported a failure (an `error` event, a response not completed)."""


def session_update(
    *, modalities: list[str], instructions: str | None, voice: str | None, temperature: float | None
) -> SessionUpdate:
    session: SessionConfig = {
        "modalities": modalities,
        "input_audio_format": "pcm16",
        "output_audio_format": "pcm16",
        "turn_detection": None,
    }
    if instructions:
        session["instructions"] = instructions
    if voice:
        session["voice"] = voice
    if temperature is not None:
        session["temperature"] = temperature
    return {"type": "session.update", "session": session}


def user_item(parts: list[tuple[str, str]]) -> ItemCreate:
    """`conversation.item.create` of one user message; parts are ("text", text) or
    ("audio", base64 PCM16)."""
    content: list[InputTextContent | InputAudioContent] = [
        {"type": "input_text", "text": value} if kind == "text" else {"type": "input_audio", "audio": value}
        for kind, value in parts
    ]
    return {
        "type": "conversation.item.create",
        "item": {"type": "message", "role": "user", "content": content},
    }


def response_create(modalities: list[str]) -> ResponseCreate:
    return {"type": "response.create", "response": {"modalities": modalities}}


def wav_to_pcm16(wav: bytes) -> bytes:
    """The frames of a 16-bit mono WAV (what `audio.encode.wav_bytes` writes)."""
    with wave.open(io.BytesIO(wav)) as w:
        if w.getsampwidth() != 2 or w.getnchannels() != 1:
            raise ValueError("expected a 16-bit mono WAV")
        return w.readframes(w.getnframes())


def pcm16_wav(pcm: bytes, rate: int = RATE) -> bytes:
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(pcm)
    return buf.getvalue()


@dataclass
class TurnReply:
    """What the server has said in one turn, gathered from its events."""

    text: list[str] = field(default_factory=list)
    transcript: list[str] = field(default_factory=list)
    audio: list[bytes] = field(default_factory=list)
    done: bool = False
    usage: Usage | None = None  # the tokens `response.done` reported

    def feed(self, event: Any) -> None:
        """Take one server event; raises RealtimeError on a failure, ValueError when malformed."""
        if not isinstance(event, dict) or not isinstance(event.get("type"), str):
            raise ValueError(f"not a Realtime event: {str(event)[:120]}")
        kind = event["type"]
        if kind == "error":
            err = event.get("error") if isinstance(event.get("error"), dict) else {}
            said = [str(err[k]) for k in ("type", "code", "message") if err.get(k)]
            raise RealtimeError(f"error event: {': '.join(said) or 'no detail'}")
        if kind in TEXT_DELTAS + TRANSCRIPT_DELTAS + AUDIO_DELTAS:
            delta = event.get("delta")
            if not isinstance(delta, str):
                raise ValueError(f"{kind} without a string delta")
            if kind in TEXT_DELTAS:
                self.text.append(delta)
            elif kind in TRANSCRIPT_DELTAS:
                self.transcript.append(delta)
            else:
                self.audio.append(base64.b64decode(delta, validate=True))
        elif kind == "response.done":
            response = event.get("response") if isinstance(event.get("response"), dict) else {}
            status = response.get("status")
            if status != "completed":
                details = response.get("status_details")
                raise RealtimeError(f"response {status or 'without status'}: {str(details)[:200]}")
            self.usage = realtime_usage(response)
            self.done = True

    def answer(self, *, audio: bool) -> tuple[str | None, bytes | None]:
        """(text, WAV bytes or None). Text: the text deltas, else the audio's transcript."""
        text = "".join(self.text) or "".join(self.transcript) or None
        if not audio:
            return text, None
        pcm = b"".join(self.audio)
        return ("".join(self.transcript) or text), (pcm16_wav(pcm) if pcm else None)
