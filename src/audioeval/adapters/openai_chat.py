"""OpenAI-compatible chat completions (vLLM, OpenAI, others): request body and reply text.

Audio parts are sent either as vLLM's `audio_url` with a base64 WAV data URI (default) or as
OpenAI's `input_audio` (`{"data": base64, "format": "wav"}`). This module only translates;
sending, retrying and caching belong to the engine.

Audio output: `audio_output_fields(voice)` are the request fields that ask a chat model for
speech (`modalities: ["text", "audio"]`, `audio: {voice, format: "wav"}`), and `reply_audio`
finds the base64 audio of the answer (`choices[i].message.audio.data`, OpenAI and vLLM-Omni)
and its text. `build_speech_request` is the body of the TTS endpoint `/audio/speech`.

`encode_chat_request` gives the wire bytes of the same body without passing the base64 audio
through `json.dumps`: base64 never needs a JSON escape, so each audio part is spliced in as it
is. The bytes equal `json.dumps(build_chat_request(...), ensure_ascii=False,
separators=(",", ":")).encode()` exactly.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any, Literal, cast

from audioeval.adapters.chat_wire import (
    AudioOutputFields,
    AudioOutputRequest,
    AudioUrlContent,
    ChatMessage,
    ChatRequest,
    ContentPart,
    FirstToken,
    InputAudioContent,
    SamplingFields,
    SpeechRequest,
)
from audioeval.audio.clip_cache import EncodedClip
from audioeval.audio.encode import data_uri
from audioeval.core.messages import AudioPart, AudioRef, Message, TextPart
from audioeval.core.redact import excerpt

AudioPartStyle = Literal["audio_url", "input_audio"]
ClipLookup = Callable[[AudioRef], EncodedClip]


def audio_part(clip: EncodedClip, style: AudioPartStyle) -> InputAudioContent | AudioUrlContent:
    if style == "input_audio":
        return {"type": "input_audio", "input_audio": {"data": clip.b64_wav, "format": "wav"}}
    return {"type": "audio_url", "audio_url": {"url": data_uri(clip.b64_wav)}}


def _content(message: Message, clips: ClipLookup, style: AudioPartStyle | None) -> str | list[ContentPart]:
    """Wire content of one message; with style None, audio is replaced by its content hash."""
    if all(isinstance(p, TextPart) for p in message.parts) and message.role == "system":
        return "".join(p.text for p in message.parts if isinstance(p, TextPart))
    out: list[ContentPart] = []
    for part in message.parts:
        if isinstance(part, TextPart):
            out.append({"type": "text", "text": part.text})
        elif isinstance(part, AudioPart):
            clip = clips(part.audio)
            out.append({"type": "audio", "sha256": clip.sha256} if style is None else audio_part(clip, style))
    return out


def build_chat_request(
    messages: list[Message],
    *,
    model: str,
    clips: ClipLookup,
    style: AudioPartStyle = "audio_url",
    sampling: SamplingFields | None = None,
) -> ChatRequest:
    """The JSON body of a POST to `{base_url}/chat/completions`."""
    wire: list[ChatMessage] = [{"role": m.role, "content": _content(m, clips, style)} for m in messages]
    return {"model": model, "messages": wire, **set_fields(sampling)}


def set_fields(sampling: SamplingFields | None) -> SamplingFields:
    """The request settings that are set (a setting given as None is left out)."""
    return cast(SamplingFields, {k: v for k, v in (sampling or {}).items() if v is not None})


_dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
_AUDIO_URL = (b'{"type":"audio_url","audio_url":{"url":"data:audio/wav;base64,', b'"}}')
_INPUT_AUDIO = (b'{"type":"input_audio","input_audio":{"data":"', b'","format":"wav"}}')


def _json(value: Any) -> bytes:
    return _dumps(value).encode("utf-8")


def _audio_part_json(clip: EncodedClip, style: AudioPartStyle) -> list[bytes]:
    """The JSON of `audio_part(clip, style)`, in pieces: the base64 is copied, not escaped."""
    if not clip.b64_is_json_safe:
        return [_json(audio_part(clip, style))]
    head, tail = _INPUT_AUDIO if style == "input_audio" else _AUDIO_URL
    return [head, clip.b64_wav.encode("ascii"), tail]


def encode_chat_request(
    messages: list[Message],
    *,
    model: str,
    clips: ClipLookup,
    style: AudioPartStyle = "audio_url",
    sampling: SamplingFields | None = None,
) -> bytes:
    """The body of `build_chat_request(...)` as UTF-8 JSON bytes, exactly as
    `json.dumps(body, ensure_ascii=False, separators=(",", ":"))` writes it."""
    extra = set_fields(sampling)
    if any(not isinstance(k, str) or k in ("model", "messages") for k in extra):
        # Keys json.dumps would convert or reorder: let it write the whole body.
        body = build_chat_request(messages, model=model, clips=clips, style=style, sampling=sampling)
        return _json(body)
    out: list[bytes] = [b'{"model":', _json(model), b',"messages":[']
    for i, message in enumerate(messages):
        out.append(b'{"role":' if i == 0 else b',{"role":')
        out.append(_json(message.role))
        out.append(b',"content":')
        if message.role == "system" and all(isinstance(p, TextPart) for p in message.parts):
            out.append(_json("".join(p.text for p in message.parts if isinstance(p, TextPart))))
            out.append(b"}")
            continue
        out.append(b"[")
        first = True
        for part in message.parts:
            if isinstance(part, TextPart):
                piece = [b'{"type":"text","text":', _json(part.text), b"}"]
            elif isinstance(part, AudioPart):
                piece = _audio_part_json(clips(part.audio), style)
            else:
                continue
            if not first:
                out.append(b",")
            first = False
            out.extend(piece)
        out.append(b"]}")
    out.append(b"]")
    for k, v in extra.items():
        out.append(b"," + _json(k) + b":" + _json(v))
    out.append(b"}")
    return b"".join(out)


def request_identity(
    messages: list[Message], *, model: str, clips: ClipLookup, sampling: SamplingFields | None
) -> ChatRequest:
    """What the request says, with audio as content hashes: the base of a cache key."""
    return build_chat_request(messages, model=model, clips=clips, style=None, sampling=sampling)  # type: ignore[arg-type]


def reply_text(body: Any) -> str:
    """The assistant text of a chat completion response; ValueError when there is none."""
    try:
        message = body["choices"][0]["message"]
    except (KeyError, IndexError, TypeError) as exc:
        raise ValueError(f"response has no choices[0].message: {excerpt(str(body), 200)}") from exc
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, list):
        content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
    if not isinstance(content, str):
        raise ValueError("response message has no text content")
    return content


def reply_first_token(body: Any) -> FirstToken:
    """The text of a chat completion asked for logprobs, with the `top_logprobs` of its first
    token as [token, logprob] pairs (`choices[0].logprobs.content[0].top_logprobs`, as vLLM
    and OpenAI send them); `top_logprobs` is None when the server sent none. ValueError when
    the body has no text or malformed logprobs."""
    text = reply_text(body)
    logprobs = body["choices"][0].get("logprobs")
    content = logprobs.get("content") if isinstance(logprobs, dict) else None
    if not content:
        return {"text": text, "top_logprobs": None}
    first = content[0]
    top = first.get("top_logprobs") if isinstance(first, dict) else None
    if not isinstance(top, list):
        raise ValueError("logprobs.content[0] has no top_logprobs list")
    pairs: list[list[str | float]] = []
    for entry in top:
        token, logprob = (
            (entry.get("token"), entry.get("logprob")) if isinstance(entry, dict) else (None, None)
        )
        if not isinstance(token, str) or not isinstance(logprob, int | float) or isinstance(logprob, bool):
            raise ValueError(f"malformed top_logprobs entry: {excerpt(str(entry), 120)}")
        if not math.isfinite(logprob) or logprob > 1e-4:  # a log-probability is finite and ≤ 0
            raise ValueError(f"impossible logprob {logprob!r} for token {token!r}: not a finite number ≤ 0")
        pairs.append([token, min(float(logprob), 0.0)])
    return {"text": text, "top_logprobs": pairs}


def audio_output_fields(voice: str | None) -> AudioOutputFields:
    """Request fields asking a chat model to answer in speech (WAV)."""
    audio: AudioOutputRequest = {"format": "wav"}
    if voice:
        audio = {"voice": voice, "format": "wav"}
    return {"modalities": ["text", "audio"], "audio": audio}


def reply_audio(body: Any) -> tuple[str | None, str]:
    """(text, base64 audio) of a chat completion answered in speech; ValueError without audio.

    The text is the message content, else the audio's transcript. Servers that answer text and
    speech as separate choices (vLLM-Omni) are read choice by choice.
    """
    try:
        choices = body["choices"]
        messages = [
            c["message"] for c in choices if isinstance(c, dict) and isinstance(c.get("message"), dict)
        ]
    except (KeyError, TypeError) as exc:
        raise ValueError(f"response has no choices: {excerpt(str(body), 200)}") from exc
    audio_b64, text = None, None
    for message in messages:
        audio = message.get("audio")
        if (
            audio_b64 is None
            and isinstance(audio, dict)
            and isinstance(audio.get("data"), str)
            and audio["data"]
        ):
            audio_b64 = audio["data"]
            if text is None and isinstance(audio.get("transcript"), str):
                text = audio["transcript"]
        content = message.get("content")
        if isinstance(content, list):
            content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
        if isinstance(content, str) and content:
            text = content
    if audio_b64 is None:
        raise ValueError(
            "the response holds no audio (choices[].message.audio.data); does the served model speak?"
        )
    return text, audio_b64


def build_speech_request(text: str, *, model: str, voice: str | None) -> SpeechRequest:
    """The JSON body of a POST to `{base_url}/audio/speech` (text to speech, WAV back)."""
    body: SpeechRequest = {"model": model, "input": text, "response_format": "wav"}
    if voice:
        body["voice"] = voice
    return body
