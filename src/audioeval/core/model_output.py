"""What a model under test produced for one sample: text, audio, or a recorded error."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TypedDict

from audioeval.core.errors import ErrorRecord
from audioeval.core.usage import Usage, UsageRecord


class OutputRecord(TypedDict, total=False):
    """A model output as a record stores it (`records.jsonl`'s `output`)."""

    text: str | None
    audio_path: str | None
    error: str | None
    endpoint: str | None
    latency_s: float | None
    cached: bool
    error_detail: ErrorRecord
    fault: str
    usage: UsageRecord


class OutputFault(StrEnum):
    """Why the output gate (`engine/output_gate.py`) refused an answer: the model said nothing
    (`no output`), or said something that is not an answer (`bad output`: a web page, a body
    that is not the format asked for, a text over the bound, a number where text is due,
    audio that does not decode). The values are failure kinds (`core/record.FailureKind`)."""

    NO_OUTPUT = "no output"
    BAD_OUTPUT = "bad output"


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
    error_detail: ErrorRecord | None = None
    # Set with `error` when the model answered but the answer is none (`OutputFault`); an
    # error without it is a failed call (HTTP error, timeout, worker crash).
    fault: OutputFault | None = None
    # What the call used (`core/usage.py`); None: not measured (a record written before usage
    # was recorded, an adapter that makes no API call).
    usage: Usage | None = None

    @property
    def ok(self) -> bool:
        return self.error is None and (self.text is not None or self.audio_path is not None)

    def to_record(self) -> OutputRecord:
        rec: OutputRecord = {
            "text": self.text,
            "audio_path": self.audio_path,
            "error": self.error,
            "endpoint": self.endpoint,
            "latency_s": self.latency_s,
            "cached": self.cached,
        }
        if self.error_detail is not None:
            rec["error_detail"] = self.error_detail
        if self.fault is not None:
            rec["fault"] = self.fault.value
        if self.usage is not None:
            rec["usage"] = self.usage.to_record()
        return rec

    @classmethod
    def from_record(cls, rec: OutputRecord) -> ModelOutput:
        return cls(
            rec.get("text"),
            rec.get("audio_path"),
            rec.get("error"),
            rec.get("endpoint"),
            rec.get("latency_s"),
            bool(rec.get("cached", False)),
            rec.get("error_detail"),
            _fault(rec.get("fault")),
            Usage.from_record(rec["usage"]) if "usage" in rec else None,
        )


def _fault(value: str | None) -> OutputFault | None:
    try:
        return OutputFault(value) if value else None
    except ValueError:
        return None
