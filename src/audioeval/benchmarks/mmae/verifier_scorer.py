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

from audioeval.audio.verifiers.measurement import Audio, load_audio
from audioeval.benchmarks.mmae.aggregate import failed_output_row, per_sample_row
from audioeval.benchmarks.mmae.check_rules import MMAE_CHECK_RULES
from audioeval.benchmarks.mmae.preset import MEASURED_SCORER, VERIFIERS
from audioeval.benchmarks.mmae.records import MmaeSample, is_instruction_following
from audioeval.benchmarks.mmae.rubric_scorer import _row_score
from audioeval.benchmarks.mmae.source import mmae_from_fields
from audioeval.core.errors import AudioError, InputError
from audioeval.core.sample import Sample
from audioeval.judge.checkable import VERIFIERS_VERSION, choice_for, measure, plan_check
from audioeval.scoring.base import Prediction, Score
from audioeval.scoring.scorer_hooks import Scorer


class MmaeVerifierScorer(Scorer):
    """IFR / CR / EM of one edited clip over the rubrics a measurement answers."""

    metrics = ("mean:ifr", "mean:cr", "mean:em")

    def __init__(self) -> None:
        self.name = MEASURED_SCORER

    @property
    def metric_units(self) -> Mapping[str, str]:  # type: ignore[override]
        return dict.fromkeys(self.metrics, "percent")

    def signature(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "judge": VERIFIERS,
            "verifiers_version": VERIFIERS_VERSION,
            "check_rules": [r.name for r in MMAE_CHECK_RULES],
            "aggregation": "per sample: IFR, CR means of measured rubrics; EM; unmeasured rubrics not judged",
        }

    def _loader(self, prediction: Prediction, sample: Sample) -> Callable[[str], Audio]:
        output = prediction.audio_path
        if not output:
            raise InputError("the model returned no edited audio", sample_id=sample.id, field="output")
        if not Path(output).is_file():
            raise AudioError(f"audio file not found: {output}", sample_id=sample.id, field="output")
        loaded: dict[str, Audio] = {}

        def load(label: str) -> Audio:
            if label not in loaded:
                if label == "output":
                    path = str(output)
                else:
                    ref = sample.audio.get(label)
                    if ref is None:
                        raise KeyError(label)
                    path = ref.path
                loaded[label] = load_audio(path, label)
            return loaded[label]

        return load

    def score(self, prediction: Prediction, sample: Sample) -> Score:
        ms = mmae_from_fields(sample)
        load = self._loader(prediction, sample)
        outcomes = [self._rubric(ms, i, load) for i in range(len(ms.rubrics))]
        return self._result(ms, outcomes)

    def _rubric(self, ms: MmaeSample, index: int, load: Callable[[str], Audio]) -> dict[str, Any]:
        rubric = ms.rubrics[index]
        item = {"question": rubric.question}
        base = {
            "rubric_index": index,
            "category": rubric.category,
            "axis": "IF" if is_instruction_following(rubric.category) else "CR",
        }
        try:
            check = plan_check(item, MMAE_CHECK_RULES)
        except ValueError as exc:
            raise InputError(f"rubric {index}: {exc}", sample_id=ms.id, field="rubrics") from None
        if check is None:
            return {**base, "score": None, "not_judged": "no check recognises this question"}
        m = measure(check, load)
        options = [rubric.right_choice, *rubric.wrong_choices]
        picked = choice_for(m.answer, options)
        out = {**base, "check": check.expression, "check_source": check.source, "measurement": m.to_dict()}
        if picked is None:
            why = (
                m.reason
                if m.answer == "cannot tell"
                else "no single Yes / No option to map the measurement onto"
            )
            return {**out, "score": None, "not_judged": f"{m.answer}: {why}"}
        return {**out, "score": int(picked == rubric.right_choice), "chosen": picked}

    def _result(self, ms: MmaeSample, outcomes: list[dict[str, Any]]) -> Score:
        row = per_sample_row(ms, {int(o["rubric_index"]): o for o in outcomes})
        return _row_score(row, {"rubrics": outcomes, "rubric_scores": row["rubric_scores"]})

    def rescore(self, prediction: Prediction, sample: Sample, stored: Mapping[str, Any]) -> Score:
        """Aggregate the stored measurements again (no audio read)."""
        return self._result(mmae_from_fields(sample), [dict(o) for o in stored.get("rubrics") or []])

    def failed_output_score(self, sample: Sample, output_kind: str = "text") -> Score:
        row = failed_output_row(mmae_from_fields(sample), "no usable output")
        return _row_score(row, {"rubric_scores": row["rubric_scores"], "failed_output": True})
