"""The answer of one check, and the audio it is measured on (samples × channels, rate)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypedDict

import numpy as np

from audioeval.audio.decode import require_finite
from audioeval.core.errors import AudioError

YES, NO, CANNOT_TELL = "yes", "no", "cannot tell"
ANSWERS = (YES, NO, CANNOT_TELL)
# a slice may overrun the clip by this much (rounding of the times written in a rubric)
SLICE_SLACK_S = 0.05
MIN_SLICE_S = 0.05


class MeasurementRecord(TypedDict):
    """A measurement as records and reports keep it (the value rounded to 4 decimals)."""

    check: str
    value: float | int | str | None
    unit: str
    threshold: str
    answer: str
    reason: str


@dataclass(frozen=True)
class Measurement:
    """What a check measured (`value`, in `unit`), the `threshold` it compared it with, its
    `answer` (yes / no / cannot tell) and the `reason` in words."""

    check: str
    value: Any
    unit: str
    threshold: str
    answer: str
    reason: str

    def __post_init__(self) -> None:
        if self.answer not in ANSWERS:
            raise ValueError(f"answer must be one of {ANSWERS}, not {self.answer!r}")

    def to_dict(self) -> MeasurementRecord:
        value = self.value
        if isinstance(value, float | np.floating):
            value = round(float(value), 4)
        return {
            "check": self.check,
            "value": value,
            "unit": self.unit,
            "threshold": self.threshold,
            "answer": self.answer,
            "reason": self.reason,
        }


def cannot_tell(check: str, reason: str, threshold: str = "") -> Measurement:
    return Measurement(check, None, "", threshold, CANNOT_TELL, reason)


@dataclass(frozen=True)
class Audio:
    """float32 samples shaped (n, channels) in [-1, 1] and their rate; channels are kept (panning
    and layout need them), `mono` mixes them down."""

    samples: np.ndarray
    rate: int
    name: str = "clip"

    def __post_init__(self) -> None:
        if self.samples.ndim != 2:
            raise ValueError(f"{self.name}: samples must be (n, channels), got shape {self.samples.shape}")
        if self.rate <= 0:
            raise ValueError(f"{self.name}: sample rate must be positive, got {self.rate}")

    @classmethod
    def of(cls, samples: np.ndarray, rate: int, name: str = "clip") -> Audio:
        x = np.asarray(samples, dtype=np.float32)
        return cls(x[:, None] if x.ndim == 1 else x, int(rate), name)

    @property
    def mono(self) -> np.ndarray:
        return self.samples.mean(axis=1) if self.channels > 1 else self.samples[:, 0]

    @property
    def channels(self) -> int:
        return int(self.samples.shape[1])

    @property
    def duration_s(self) -> float:
        return self.samples.shape[0] / float(self.rate)


def load_audio(path: str | Path, name: str | None = None) -> Audio:
    """Decode a file keeping its channels; AudioError naming the file when it cannot be read."""
    import soundfile as sf

    p = Path(path)
    if not p.is_file():
        raise AudioError("audio file not found", file=str(p))
    try:
        data, rate = sf.read(str(p), dtype="float32", always_2d=True)
    except Exception as exc:  # soundfile raises several types for unreadable files
        raise AudioError(f"audio file could not be decoded ({exc})", file=str(p)) from exc
    require_finite(data, source=str(p))
    return Audio(np.ascontiguousarray(data), int(rate), name or p.name)


class SliceOutOfRange(ValueError):
    """A requested slice lies (partly) outside the clip: the answer is "cannot tell"."""


def take(audio: Audio, start: float | None, end: float | None) -> Audio:
    """The slice [start, end) in seconds (negative = from the end, None = open), or
    SliceOutOfRange when it is not inside the clip (Python slicing would silently clamp it)."""
    dur = audio.duration_s
    s = 0.0 if start is None else (dur + start if start < 0 else start)
    e = dur if end is None else (dur + end if end < 0 else end)
    label = f"[{'' if start is None else f'{start:g}s'}:{'' if end is None else f'{end:g}s'}]"
    if s < -SLICE_SLACK_S or e > dur + SLICE_SLACK_S:
        raise SliceOutOfRange(f"slice {label} lies outside the {dur:.2f} s {audio.name}")
    if e - s < MIN_SLICE_S:
        raise SliceOutOfRange(
            f"slice {label} of the {dur:.2f} s {audio.name} is shorter than {MIN_SLICE_S} s"
        )
    lo, hi = max(0, int(round(s * audio.rate))), min(audio.samples.shape[0], int(round(e * audio.rate)))
    return Audio(audio.samples[lo:hi], audio.rate, f"{audio.name}{label}")


def db(x: float | np.ndarray, floor: float = 1e-12) -> Any:
    return 10.0 * np.log10(np.maximum(x, floor))


def frame_rms_db(x: np.ndarray, rate: int, frame_s: float = 0.02) -> np.ndarray:
    n = max(1, int(rate * frame_s))
    k = len(x) // n
    if k == 0:
        return np.array([db(float(np.mean(x.astype(np.float64) ** 2)) if len(x) else 0.0)])
    frames = x[: k * n].astype(np.float64).reshape(k, n)
    return db(np.mean(frames**2, axis=1))
