"""Audio-output health: what makes a generated, edited or decoded clip unfit to be scored as a
normal output — silent, clipped, truncated or padded against its input, at the wrong sample
rate, with a DC offset, or the input returned unchanged."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypedDict

from audioeval.audio.verifiers import compare, level
from audioeval.audio.verifiers.measurement import NO, YES, Audio, Measurement, MeasurementRecord

LENGTH_SLACK = 0.1  # truncated / padded: length off by more than 10 % of the input ...
LENGTH_SLACK_S = 0.2  # ... and by more than 0.2 s
PROBLEMS = ("silent", "clipped", "truncated", "padded", "wrong_rate", "dc_offset", "identical_to_input")


class HealthRecord(TypedDict):
    """An output's health as records keep it: the problems found and every check's measurement."""

    problems: list[str]
    checks: dict[str, MeasurementRecord]


@dataclass(frozen=True)
class Health:
    """Each check's measurement by problem name; `problems`: those answered yes."""

    checks: dict[str, Measurement]

    @property
    def problems(self) -> list[str]:
        return [name for name in PROBLEMS if name in self.checks and self.checks[name].answer == YES]

    def to_dict(self) -> HealthRecord:
        return {"problems": self.problems, "checks": {k: m.to_dict() for k, m in self.checks.items()}}


def _length(name: str, out: Audio, ref: Audio) -> Measurement:
    diff = out.duration_s - ref.duration_s
    limit = max(LENGTH_SLACK * ref.duration_s, LENGTH_SLACK_S)
    bad = diff < -limit if name == "truncated" else diff > limit
    threshold = f"{'shorter' if name == 'truncated' else 'longer'} than the input by > {limit:.2f} s"
    reason = f"{out.duration_s:.2f} s against the input's {ref.duration_s:.2f} s"
    return Measurement(name, diff, "s", threshold, YES if bad else NO, reason)


def output_health(out: Audio, ref: Audio | None = None, expected_rate: int | None = None) -> Health:
    """The health checks of `out`; those against the input only with `ref`, the rate check only
    with `expected_rate`."""
    checks = {"silent": level.silent(out), "clipped": level.clipped(out), "dc_offset": level.dc_offset(out)}
    if expected_rate is not None:
        wrong = out.rate != expected_rate
        checks["wrong_rate"] = Measurement(
            "wrong_rate",
            out.rate,
            "Hz",
            f"!= {expected_rate} Hz",
            YES if wrong else NO,
            f"{out.name} is at {out.rate} Hz",
        )
    if ref is not None:
        checks["truncated"] = _length("truncated", out, ref)
        checks["padded"] = _length("padded", out, ref)
        same = compare.same_as(out, ref)
        checks["identical_to_input"] = Measurement(
            "identical_to_input", same.value, same.unit, same.threshold, same.answer, same.reason
        )
    return Health(checks)
