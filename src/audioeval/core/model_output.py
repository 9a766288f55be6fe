"""What a model under test produced for one sample: text, audio, or a recorded error."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

NO_CONTENT = "the model answered with no content (empty, blank or only a <think> block)"
"""The `error` of a live model's answer that says nothing: kept with its `text`, counted as
no output (never scored, never cached, asked again on a rerun)."""


@dataclass(frozen=True, slots=True)
class ModelOutput:
    """The result of one `generate` call.

    On success `text` and/or `audio_path` (a WAV file the adapter wrote) is set; otherwise
    `error` says what went wrong, and the sample is counted as failed, never scored.
    """

    text: str | None = None
    audio_path: str | None = None
    error: str | None = None
    endpoint: str | None = None
    latency_s: float | None = None
    cached: bool = False
    # Where the error is, when the adapter knows (`InputError.as_record()`: file, id, field).
    error_detail: dict[str, Any] | None = None

    @property
    def ok(self) -> bool:
        return self.error is None and (self.text is not None or self.audio_path is not None)

    def to_record(self) -> dict[str, Any]:
        rec = {
            "text": self.text,
            "audio_path": self.audio_path,
            "error": self.error,
            "endpoint": self.endpoint,
            "latency_s": self.latency_s,
            "cached": self.cached,
        }
        if self.error_detail is not None:
            rec["error_detail"] = self.error_detail
        return rec

    @classmethod
    def from_record(cls, rec: dict[str, Any]) -> ModelOutput:
        return cls(
            rec.get("text"),
            rec.get("audio_path"),
            rec.get("error"),
            rec.get("endpoint"),
            rec.get("latency_s"),
            bool(rec.get("cached", False)),
            rec.get("error_detail"),
        )
