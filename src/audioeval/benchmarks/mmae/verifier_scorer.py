"""MMAE's rubrics answered by measurement (`--judge verifiers`): a judge anyone can run offline.

Each rubric MMAE's check rules (`check_rules.py`) or its own `check` field make checkable is
measured on the clips (`judge/checkable.py`, `audio/verifiers/`) and scores 1 when the measured
Yes / No is the right choice, 0 otherwise. A rubric with no check, or whose measurement cannot
tell, is **not judged**: recorded with its reason, counted (`n_not_judged`), never scored (IFR
and CR average the measured rubrics only; EM is unknown unless a measured rubric failed). No
judge is asked; the figures are the verifiers', never MMAE's published protocol.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from audioeval.benchmarks.mmae.aggregate import failed_output_row, per_sample_row
from audioeval.benchmarks.mmae.preset import MEASURED_SCORER, VERIFIERS
from audioeval.benchmarks.mmae.records import (
    MmaeSample,
    RubricOutcome,
    RubricsDetail,
    is_instruction_following,
)
from audioeval.benchmarks.mmae.rubric_checks import VerifiersSignature, measure_rubrics, verifiers_signature
from audioeval.benchmarks.mmae.rubric_scorer import _row_score, failed_output_detail, stored_rubrics
from audioeval.benchmarks.mmae.source import mmae_item
from audioeval.core.errors import AudioError, InputError
from audioeval.core.sample import Sample
from audioeval.scoring.base import Prediction, Score
from audioeval.scoring.scorer_hooks import Scorer


class VerifiersScorerSignature(VerifiersSignature):
    """The signature of `--judge verifiers`: no judge asked, the verifiers that answer."""

    name: str
    judge: str
    aggregation: str


class MmaeVerifierScorer(Scorer):
    """IFR / CR / EM of one edited clip over the rubrics a measurement answers."""

    metrics = ("mean:ifr", "mean:cr", "mean:em")

    def __init__(self) -> None:
        self.name = MEASURED_SCORER

    @property
    def metric_units(self) -> Mapping[str, str]:  # type: ignore[override]
        return dict.fromkeys(self.metrics, "percent")

    def signature(self) -> VerifiersScorerSignature:
        return {
            "name": self.name,
            "judge": VERIFIERS,
            **verifiers_signature(),
            "aggregation": "per sample: IFR, CR means of measured rubrics; EM; unmeasured rubrics not judged",
        }

    def _resolver(self, prediction: Prediction, sample: Sample) -> Callable[[str], str]:
        output = prediction.audio_path
        if not output:
            raise InputError("the model returned no edited audio", sample_id=sample.id, field="output")
        if not Path(output).is_file():
            raise AudioError(f"audio file not found: {output}", sample_id=sample.id, field="output")

        def resolve(label: str) -> str:
            if label == "output":
                return str(output)
            ref = sample.audio.get(label)
            if ref is None:
                raise InputError(f"the sample has no clip {label!r}", sample_id=sample.id, field="audio")
            return ref.path

        return resolve

    def score(self, prediction: Prediction, sample: Sample) -> Score:
        ms = mmae_item(sample)
        measured = measure_rubrics(ms, self._resolver(prediction, sample))
        outcomes: list[RubricOutcome] = []
        for i, rubric in enumerate(ms.rubrics):
            base: RubricOutcome = {
                "rubric_index": i,
                "category": rubric.category,
                "axis": "IF" if is_instruction_following(rubric.category) else "CR",
            }
            m = measured.get(i)
            if m is None:
                outcomes.append({**base, "score": None, "not_judged": "no check recognises this question"})
            else:
                outcomes.append({**base, **m})
        return self._result(ms, outcomes)

    def _result(self, ms: MmaeSample, outcomes: list[RubricOutcome]) -> Score:
        done = per_sample_row(ms, {int(o["rubric_index"]): o for o in outcomes})
        detail: RubricsDetail = {"rubrics": outcomes, "rubric_scores": done.row["rubric_scores"]}
        return _row_score(done, detail)

    def rescore(self, prediction: Prediction, sample: Sample, stored: Mapping[str, Any]) -> Score:
        """Aggregate the stored measurements again (no audio read)."""
        outcomes = [RubricOutcome(**o) for o in stored_rubrics(stored)]
        return self._result(mmae_item(sample), outcomes)

    def failed_output_score(self, sample: Sample, output_kind: str = "text") -> Score:
        done = failed_output_row(mmae_item(sample), "no usable output")
        return _row_score(done, failed_output_detail(done))
