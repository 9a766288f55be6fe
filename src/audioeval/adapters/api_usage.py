"""The `usage` objects of the OpenAI-compatible APIs, read into a `Usage` (tokens only; the
engine adds calls, retries, wall time and audio seconds).

- chat completions: `usage.prompt_tokens`, `usage.completion_tokens`, and their audio parts
  `usage.prompt_tokens_details.audio_tokens` / `usage.completion_tokens_details.audio_tokens`
  (OpenAI; vLLM sends no details: the audio part is then unknown);
- transcription and translation (`/audio/transcriptions`, JSON formats): `usage` of
  `type: tokens` (`input_tokens`, `output_tokens`, `input_token_details.audio_tokens`), or of
  `type: duration` (`seconds`: the audio billed, no tokens);
- Realtime API: `response.done`'s `response.usage` (`input_tokens`, `output_tokens`,
  `input_token_details.audio_tokens`, `output_token_details.audio_tokens`).

A field that is absent, or not a whole number ≥ 0, is unknown (None), never 0.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from audioeval.core.usage import Usage

_UNKNOWN_TOKENS = Usage(calls=None, retries=None, wall_s=None)


def _count(obj: Any, *path: str) -> int | None:
    for key in path:
        obj = obj.get(key) if isinstance(obj, dict) else None
    return obj if type(obj) is int and obj >= 0 else None


def _seconds(obj: Any) -> float | None:
    ok = (
        isinstance(obj, int | float)
        and not isinstance(obj, bool)
        and obj >= 0
        and obj == obj
        and obj != float("inf")
    )
    return float(obj) if ok else None


def chat_usage(body: Any) -> Usage:
    """The tokens of a chat completion's `usage` (all None when it has none)."""
    usage = body.get("usage") if isinstance(body, dict) else None
    return replace(
        _UNKNOWN_TOKENS,
        input_tokens=_count(usage, "prompt_tokens"),
        input_audio_tokens=_count(usage, "prompt_tokens_details", "audio_tokens"),
        output_tokens=_count(usage, "completion_tokens"),
        output_audio_tokens=_count(usage, "completion_tokens_details", "audio_tokens"),
    )


def transcription_usage(body: Any) -> Usage:
    """The tokens (or billed seconds, as `audio_sent_s`) of a transcription answer's `usage`."""
    usage = body.get("usage") if isinstance(body, dict) else None
    if isinstance(usage, dict) and usage.get("type") == "duration":
        return replace(_UNKNOWN_TOKENS, audio_sent_s=_seconds(usage.get("seconds")))
    return replace(
        _UNKNOWN_TOKENS,
        input_tokens=_count(usage, "input_tokens"),
        input_audio_tokens=_count(usage, "input_token_details", "audio_tokens"),
        output_tokens=_count(usage, "output_tokens"),
        # a transcription answers text only
        output_audio_tokens=0 if _count(usage, "output_tokens") is not None else None,
    )


def realtime_usage(response: Any) -> Usage:
    """The tokens of a Realtime `response.done` event's `response.usage`."""
    usage = response.get("usage") if isinstance(response, dict) else None
    return replace(
        _UNKNOWN_TOKENS,
        input_tokens=_count(usage, "input_tokens"),
        input_audio_tokens=_count(usage, "input_token_details", "audio_tokens"),
        output_tokens=_count(usage, "output_tokens"),
        output_audio_tokens=_count(usage, "output_token_details", "audio_tokens"),
    )
