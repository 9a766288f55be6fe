"""The `rubric_items` scorer as AnyAudio-Judge's own code judges a bench row (scorer
`anyaudio_items`, the one `audioeval judge-eval` uses).

Two differences from the generic `rubric_items` (`judge/rubric_items.py`), both the
official's (`shared/reference/official-rules.md` §3.6-3.7):
- `all_at_once` (the official generate mode) lists the items with ids from 0 and reads the
  answer with the official reader (`generate_reader.py`): items it leaves unparsed drop out
  of the row's score, answers are taken by position when the JSON is not a list;
- an item with an empty question is judged, as the official keeps it.

`per_item` (the official logits mode) is the generic one. It records under its own name
(`anyaudio_items`; the judge-eval export also reads records of `rubric_items`, which
judge-eval used before); the signature names the reader.

Beside the row's score (`rubric_score`), its stats hold what the pair summary computes the
judge-eval figures from (`metrics/binary_judge.JUDGE_STATS`): the row's label (`label_yes`,
1 yes, 0 no), its subset (`macro_group`, for the macro accuracy over subsets) and, at the
run's `threshold` (when it is known before judging: the default or `--threshold`; in the
signature), whether the score said yes (`said_yes`) and was right (`correct`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Literal

from audioeval.benchmarks.anyaudio_bench.generate_reader import OFFICIAL_READER
from audioeval.core.checks import number_problem
from audioeval.core.errors import InputError
from audioeval.core.record import Score
from audioeval.core.sample import Sample
from audioeval.judge.rubric_items import VALUE, RubricDetail, RubricItemsScorer, RubricItemsSignature
from audioeval.metrics.binary_judge import CORRECT_KEY, GROUP_KEY, LABEL_KEY, SAID_YES_KEY
from audioeval.postprocess.yes_no import read_label
from audioeval.scoring.base import Prediction
from audioeval.scoring.judged import JudgeGenerate

SCORER_NAME = "anyaudio_items"


class AnyAudioItemsSignature(RubricItemsSignature, total=False):
    threshold: float  # the verdicts' threshold, when known before judging


class AnyAudioItemsScorer(RubricItemsScorer):
    """`rubric_items` with AnyAudio-Judge's generate-mode reader and its empty questions."""

    scorer_name = SCORER_NAME
    all_at_once_reader = OFFICIAL_READER
    empty_questions = True

    def __init__(
        self,
        *,
        mode: Literal["per_item", "all_at_once"] = "per_item",
        rubric_field: str = "rubric",
        samples: int = 5,
        max_attempts: int = 3,
        threshold: float | None = None,
    ) -> None:
        super().__init__(mode=mode, rubric_field=rubric_field, samples=samples, max_attempts=max_attempts)
        problem = None if threshold is None else number_problem(threshold)
        if problem:
            raise InputError(f"threshold: {problem}", field="scorers.anyaudio_items.threshold")
        self.threshold = threshold

    def signature(self) -> AnyAudioItemsSignature:
        sig = AnyAudioItemsSignature(**super().signature())
        if self.threshold is not None:  # it moves `correct` and `said_yes`
            sig["threshold"] = self.threshold
        return sig

    async def score_async(self, prediction: Prediction, sample: Sample, generate: JudgeGenerate) -> Score:
        return self.labelled(await super().score_async(prediction, sample, generate), sample)

    def rescore(self, prediction: Prediction, sample: Sample, stored: RubricDetail) -> Score:
        return self.labelled(super().rescore(prediction, sample, stored), sample)

    def labelled(self, score: Score, sample: Sample) -> Score:
        """The row's score with its label, subset and (at a known threshold) verdict; a sample
        without a label (the scorer in a run of unlabelled rows) has its score alone."""
        if sample.get("label") is None:
            return score
        yes = read_label(sample.get("label"))
        if yes is None:
            raise InputError("expected yes or no", sample_id=sample.id, field="label")
        value = float(score.stats[VALUE])
        stats = {**score.stats, LABEL_KEY: int(yes), GROUP_KEY: str(sample.get("subset"))}
        if self.threshold is not None:
            said_yes = value >= self.threshold
            stats |= {SAID_YES_KEY: int(said_yes), CORRECT_KEY: int(said_yes == yes)}
        return replace(score, stats=stats)
