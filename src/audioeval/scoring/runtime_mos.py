"""`utmos` from a runtime the user provides: `scorers: [{utmos: {runtime: my-utmos.yaml}}]`.

No UTMOS ships its weights in a registry package, so audioeval cannot embed one; a user who
has one runs it as a metric runtime (`runtime_metric.py`) serving task `mos`, which answers
each clip's predicted MOS as text. An answer that is no finite number fails the sample
(recorded, counted, retried by the next run), never a score.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from audioeval.core.errors import InputError
from audioeval.core.messages import AudioRef
from audioeval.core.sample import Sample
from audioeval.scoring.base import Prediction, Score, Scorer
from audioeval.scoring.runtime_metric import RuntimeMetricModel, RuntimeMetricSignature, metric_runtime
from audioeval.scoring.scorer_hooks import ScorerSignature

MOS_TASK = "mos"


def parse_mos(text: str | None) -> float | None:
    """The worker's answer as a finite number, or None."""
    try:
        value = float((text or "").strip())
    except ValueError:
        return None
    return value if math.isfinite(value) else None


class RuntimeMosSignature(ScorerSignature, total=False):
    runtime: RuntimeMetricSignature


@dataclass
class RuntimeMosScorer(Scorer):
    """The MOS of each output clip from a runtime's worker; the value is named after the scorer."""

    name: str
    runtime: str
    requires = ("metric model",)
    _model: RuntimeMetricModel = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._model = metric_runtime(self.runtime, MOS_TASK, self.name)

    @property
    def metrics(self) -> tuple[str, ...]:
        return (f"mean:{self.name}",)

    def signature(self) -> RuntimeMosSignature:
        return {"scorer": self.name, "runtime": self._model.signature}

    def score(self, prediction: Prediction, sample: Sample) -> Score:
        if not prediction.audio_path:
            raise InputError("the model returned no audio", sample_id=sample.id, field="output.audio_path")
        text = self._model.ask(AudioRef(prediction.audio_path), sample.id, self.name)
        value = parse_mos(text)
        if value is None:
            raise InputError(
                f"runtime {self._model.spec.name!r} answered {text!r}, not a number",
                sample_id=sample.id,
                field=self.name,
            )
        return Score({self.name: value}, {self.name: value}, {"runtime": self._model.spec.name})
