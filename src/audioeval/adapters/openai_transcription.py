"""OpenAI's `/audio/transcriptions` and `/audio/translations` (also served by vLLM for Whisper
and other ASR models): the multipart/form-data request and the reply's text.

The form (OpenAI API reference, "Create transcription" / "Create translation"):
`file` (the audio file, here a 16 kHz 16-bit WAV), `model`, and optionally `language`
(ISO-639-1, transcriptions only), `prompt` (a hint in the audio's style, not an instruction),
`response_format` (`json`, `text`, `verbose_json`, …) and `temperature`. The answer is
`{"text": …}` for json and verbose_json (which adds segments), the bare text for `text`.
`/audio/translations` always translates into English.

This module only translates; sending, retrying and caching belong to the engine.
"""

from __future__ import annotations

import uuid
from typing import Any, TypedDict

from audioeval.core.redact import excerpt
from audioeval.store.bounded_json import loads

RESPONSE_FORMATS = ("json", "text", "verbose_json")
FORM_FIELDS = ("language", "prompt", "response_format", "temperature")
"""Optional form fields besides `file` and `model`."""
ENGLISH = {"en", "eng", "english", "en-us", "en-gb", "en_us", "en_gb"}


class TranscriptionFields(TypedDict, total=False):
    """The optional form fields of one request (None: left out of the form)."""

    language: str | None
    response_format: str
    temperature: float | None
    prompt: str | None


class TranscriptionSegment(TypedDict, total=False):
    id: int
    start: float
    end: float
    text: str


class TranscriptionResponse(TypedDict, total=False):
    """The JSON answer (`json`; `verbose_json` adds the language, duration and segments)."""

    text: str
    language: str
    duration: float
    segments: list[TranscriptionSegment]


def is_english(language: Any) -> bool:
    return str(language).strip().lower() in ENGLISH


def _field_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value)) if abs(value) < 1e15 else repr(value)
    return str(value)


def build_transcription_form(
    wav: bytes,
    *,
    model: str,
    fields: TranscriptionFields,
    filename: str = "audio.wav",
    boundary: str | None = None,
) -> tuple[bytes, str]:
    """(the multipart/form-data body, its Content-Type with the boundary). Fields set to None
    are left out; `file` comes last, as the OpenAI SDK sends it."""
    boundary = boundary or f"audioeval-{uuid.uuid4().hex}"
    marker = f"--{boundary}".encode("ascii")
    if marker in wav:  # a boundary must not occur in the content (vanishingly rare)
        return build_transcription_form(wav, model=model, fields=fields, filename=filename)
    parts: list[bytes] = []
    for name, value in [("model", model), *fields.items()]:
        if value is None:
            continue
        parts += [
            marker,
            b"\r\n",
            f'Content-Disposition: form-data; name="{name}"\r\n\r\n'.encode(),
            _field_text(value).encode("utf-8"),
            b"\r\n",
        ]
    parts += [
        marker,
        b"\r\n",
        f'Content-Disposition: form-data; name="file"; filename="{filename}"\r\n'.encode(),
        b"Content-Type: audio/wav\r\n\r\n",
        wav,
        b"\r\n",
        marker,
        b"--\r\n",
    ]
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


def transcription_text(raw: bytes, response_format: str = "json") -> str:
    """The text of a transcription or translation answer; ValueError when malformed."""
    if response_format == "text":
        text = raw.decode("utf-8")
        if text.lstrip().startswith("{"):
            raise ValueError(f"expected plain text (response_format text), got JSON: {excerpt(raw, 200)}")
        return text.strip()
    try:
        body = loads(raw, nesting=None)
    except ValueError as exc:
        raise ValueError(f"not JSON: {excerpt(raw, 200)}") from exc
    text = body.get("text") if isinstance(body, dict) else None
    if not isinstance(text, str):
        raise ValueError(f"the answer has no text field: {excerpt(raw, 200)}")
    return text.strip()
