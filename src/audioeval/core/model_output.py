"""What a model under test produced for one sample: text, audio, or a recorded error."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

NO_CONTENT = "the model answered with no content (empty, blank or only a <think> block)"
"""The `error` of a live model's answer that says nothing: kept with its `text`, counted as
no output (never scored, never cached, asked again on a rerun)."""

MAX_ANSWER_CHARS = 1_000_000
"""The longest text answer stored (docs/reliability.md, "Bounds"): about 150,000 words, far
beyond any transcript, translation or reply we score. A longer answer in a predictions file, or
from a live model, is refused where it enters (a failure of that sample naming file, line, id
and field, never truncated and scored), so one line cannot take gigabytes of memory, a scorer
minutes, or a report hundreds of MB."""


def answer_too_long(text: str | None) -> str | None:
    """Why `text` is over the bound on a stored answer, or None."""
    if text is None or len(text) <= MAX_ANSWER_CHARS:
        return None
    return f"answer of {len(text):,} characters, over the bound of {MAX_ANSWER_CHARS:,} on a stored answer"


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
