"""What requests to a model or a judge used: calls, retries, tokens, audio seconds, wall time.

A `Usage` is recorded per request where the client receives the response
(`engine/chat_client.py`, `engine/realtime_model.py`), stored with each sample's record (the
model's in `output.usage`, the judge's in `judge_usage`), and summed per pair into its
summary (`metrics/usage_totals.py`).

Unknown is never zero: a field is None when the API did not say (a server that sends no
`usage`, a record written before usage was recorded), and a sum that meets an unknown value
is unknown. An answer taken from the response cache made no request: every count is a known 0.

Tokens: `input_tokens` and `output_tokens` are all the request's tokens, audio included, as
the APIs count them (`prompt_tokens` / `completion_tokens` of a chat completion,
`input_tokens` / `output_tokens` of the transcription and Realtime APIs);
`input_audio_tokens` and `output_audio_tokens` are the audio part of each (the APIs'
`*_tokens_details.audio_tokens`), None where the API gives no split.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields, replace
from typing import Any, TypedDict

COUNT_FIELDS = (
    "calls",
    "retries",
    "input_tokens",
    "input_audio_tokens",
    "output_tokens",
    "output_audio_tokens",
)
"""The fields that count (whole numbers)."""
SECOND_FIELDS = ("audio_sent_s", "audio_received_s", "wall_s")
"""The fields in seconds."""


class UsageRecord(TypedDict):
    """A `Usage` as a record and a summary store it (null: unknown)."""

    calls: int | None
    retries: int | None
    input_tokens: int | None
    input_audio_tokens: int | None
    output_tokens: int | None
    output_audio_tokens: int | None
    audio_sent_s: float | None
    audio_received_s: float | None
    wall_s: float | None


@dataclass(frozen=True, slots=True)
class Usage:
    """What one request (or a sum of requests) used; None: unknown."""

    calls: int | None = 0
    """Requests asked live (a request retried counts once; 0: answered from the cache)."""
    retries: int | None = 0
    """Further tries of those requests (transport errors, timeouts, 429 and 5xx answers)."""
    input_tokens: int | None = None
    """Input tokens, audio included (`prompt_tokens`, `input_tokens`)."""
    input_audio_tokens: int | None = None
    """The audio part of `input_tokens` (`prompt_tokens_details.audio_tokens`)."""
    output_tokens: int | None = None
    """Output tokens, audio included (`completion_tokens`, `output_tokens`)."""
    output_audio_tokens: int | None = None
    """The audio part of `output_tokens` (`completion_tokens_details.audio_tokens`)."""
    audio_sent_s: float | None = None
    """Seconds of audio sent (the clips as encoded for the request)."""
    audio_received_s: float | None = None
    """Seconds of audio received (a spoken answer)."""
    wall_s: float | None = 0.0
    """Seconds from the first try to the answer."""

    @classmethod
    def unknown(cls) -> Usage:
        """Nothing known (a record without usage)."""
        return cls(**{f.name: None for f in fields(cls)})

    @classmethod
    def nothing_asked(cls) -> Usage:
        """No request made (an answer from the response cache): every count a known zero."""
        return cls(0, 0, 0, 0, 0, 0, 0.0, 0.0, 0.0)

    def __add__(self, other: Usage) -> Usage:
        return Usage(**{f.name: _plus(getattr(self, f.name), getattr(other, f.name)) for f in fields(self)})

    def with_audio(self, *, sent_s: float | None = None, received_s: float | None = None) -> Usage:
        """This usage with the audio seconds its caller measured (None: left as it is)."""
        out = self
        if sent_s is not None:
            out = replace(out, audio_sent_s=sent_s)
        if received_s is not None:
            out = replace(out, audio_received_s=received_s)
        return out

    def to_record(self) -> UsageRecord:
        """The JSON object a record stores (every field; null: unknown), as kept: a record
        reads back equal."""
        return UsageRecord(
            calls=self.calls,
            retries=self.retries,
            input_tokens=self.input_tokens,
            input_audio_tokens=self.input_audio_tokens,
            output_tokens=self.output_tokens,
            output_audio_tokens=self.output_audio_tokens,
            audio_sent_s=self.audio_sent_s,
            audio_received_s=self.audio_received_s,
            wall_s=self.wall_s,
        )

    @classmethod
    def from_record(cls, data: Any) -> Usage:
        """The usage a record stored; a missing or malformed object, or field, reads as
        unknown (never as zero)."""
        if not isinstance(data, Mapping):
            return cls.unknown()
        values: dict[str, int | float | None] = {}
        for name in COUNT_FIELDS:
            v = data.get(name)
            values[name] = v if type(v) is int and v >= 0 else None
        for name in SECOND_FIELDS:
            v = data.get(name)
            ok = isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) and v >= 0
            values[name] = float(v) if ok else None
        return cls(**values)


def _plus(a: Any, b: Any) -> Any:
    return None if a is None or b is None else a + b


def total(usages: Iterable[Usage]) -> Usage:
    """The sum of `usages` (a known zero when there are none)."""
    out = Usage.nothing_asked()
    for u in usages:
        out = out + u
    return out
