"""OpenAI-compatible chat completions (vLLM, OpenAI, others): request body and reply text.

Audio parts are sent either as vLLM's `audio_url` with a base64 WAV data URI (default) or as
OpenAI's `input_audio` (`{"data": base64, "format": "wav"}`). This module only translates;
sending, retrying and caching belong to the engine.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from audioeval.audio.clip_cache import EncodedClip
from audioeval.audio.encode import data_uri
from audioeval.core.messages import AudioPart, AudioRef, Message, TextPart

AudioPartStyle = Literal["audio_url", "input_audio"]
ClipLookup = Callable[[AudioRef], EncodedClip]


def audio_part(clip: EncodedClip, style: AudioPartStyle) -> dict[str, Any]:
    if style == "input_audio":
        return {"type": "input_audio", "input_audio": {"data": clip.b64_wav, "format": "wav"}}
    return {"type": "audio_url", "audio_url": {"url": data_uri(clip.b64_wav)}}


def _content(message: Message, clips: ClipLookup, style: AudioPartStyle | None) -> Any:
    """Wire content of one message; with style None, audio is replaced by its content hash."""
    if all(isinstance(p, TextPart) for p in message.parts) and message.role == "system":
        return "".join(p.text for p in message.parts if isinstance(p, TextPart))
    out: list[dict[str, Any]] = []
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
    sampling: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The JSON body of a POST to `{base_url}/chat/completions`."""
    body: dict[str, Any] = {
        "model": model,
        "messages": [{"role": m.role, "content": _content(m, clips, style)} for m in messages],
    }
    body.update({k: v for k, v in (sampling or {}).items() if v is not None})
    return body


def request_identity(
    messages: list[Message], *, model: str, clips: ClipLookup, sampling: dict[str, Any] | None
) -> dict[str, Any]:
    """What the request says, with audio as content hashes: the base of a cache key."""
    return build_chat_request(messages, model=model, clips=clips, style=None, sampling=sampling)  # type: ignore[arg-type]


def reply_text(body: Any) -> str:
    """The assistant text of a chat completion response; ValueError when there is none."""
    try:
        message = body["choices"][0]["message"]
    except (KeyError, IndexError, TypeError) as exc:
        raise ValueError(f"response has no choices[0].message: {str(body)[:200]}") from exc
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, list):
        content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
    if not isinstance(content, str):
        raise ValueError("response message has no text content")
    return content
