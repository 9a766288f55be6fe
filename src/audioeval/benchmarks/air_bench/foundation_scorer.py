"""`air_bench_foundation`: AIR-Bench foundation's official rule (`foundation_rule.py`) as a
scorer.

Per reply, as `score_foundation.py` counts it:

- read: `official_correct` 1 or 0 (the letter read equals the gold letter);
- unreadable (`official_letter` is None): `official_correct` None, so the reply stays out of
  `mean:official_correct` as it stays out of the official denominator, and `official_left_out`
  1, so it is counted and shown (`mean:official_left_out`, per task too);
- a line without task_name: skipped by the official script, not even a failure:
  `official_skipped` 1, in neither count;
- a read letter whose gold text is none of the choices: the official script stops the whole
  run there; here the sample fails (InputError: recorded and counted, never scored).

The gold letter is found among the choice columns by position, as the official script compares
`answer_gt` with `choice_a` ... `choice_d` in turn: an empty, null or blank cell keeps its
letter (the loader's `choices_by_column`), so `["", "guitar", "", "piano"]` with answer
"piano" is D, never B.

`mean:official_correct` per `task_id` group (task_name + "_" + dataset_name, the spec's
taxonomy) is the official per-task accuracy. The official script prints no overall figure, so
`mean:official_correct` over all samples (pooled over the counted replies) is ours. The reply
is read as the model gave it (`raw`, before post-processing), as the official script reads the
stored response. Our reading beside it is `mcq_robust` (every reply counted; a letter or option
text; one naming no option is wrong).
"""

from __future__ import annotations

from typing import TypedDict

from audioeval.benchmarks.air_bench.foundation_rule import gold_letter, official_letter, task_id
from audioeval.benchmarks.sources.records_to_samples import by_column
from audioeval.core.errors import InputError
from audioeval.core.sample import Sample
from audioeval.scoring.base import Prediction, Score, Scorer
from audioeval.scoring.fields import text_list
from audioeval.scoring.scorer_hooks import ScorerSignature

RULE = "air-bench-score_foundation.py@9832476"


class FoundationSignature(ScorerSignature):
    rule: str
    answer_field: str
    choices_field: str
    task_key: str


class FoundationDetail(TypedDict, total=False):
    """The task id, the letter read and the gold one, and why it scored as it did."""

    task_id: str
    letter: str
    gold: str
    reason: str


class AirBenchFoundationScorer(Scorer[FoundationDetail]):
    """The official letter reading; unreadable replies left out of the accuracy and counted."""

    name = "air_bench_foundation"
    metrics = ("mean:official_correct", "mean:official_left_out")

    def __init__(
        self,
        *,
        answer_field: str = "answer",
        choices_field: str = "choices",
        task_key: str = "task_name",
        dataset_key: str = "dataset_name",
    ) -> None:
        self.answer_field = answer_field
        self.choices_field = choices_field
        self.task_key = task_key
        self.dataset_key = dataset_key

    def signature(self) -> FoundationSignature:
        return {
            "scorer": self.name,
            "rule": RULE,
            "answer_field": self.answer_field,
            "choices_field": self.choices_field,
            "task_key": self.task_key,
        }

    def score(self, prediction: Prediction, sample: Sample) -> Score:
        task = sample.taxonomy.get(self.task_key)
        if task is None:
            stats = {"official_correct": None, "official_left_out": 0, "official_skipped": 1}
            return Score({"official_correct": None}, stats, {"reason": "no task_name: skipped"})
        dataset = sample.taxonomy.get(self.dataset_key)
        detail = FoundationDetail(task_id=task_id(str(task), str(dataset)))
        letter = official_letter(prediction.raw)
        if letter is None:
            detail["reason"] = "unreadable: left out of the official count"
            stats = {"official_correct": None, "official_left_out": 1, "official_skipped": 0}
            return Score({"official_correct": None}, stats, detail)
        answer = text_list(sample, self.answer_field, self.name)[0]
        gold = gold_letter(answer, self._cells(sample))
        if gold is None:
            raise InputError(
                f"the answer {answer!r} is none of the choices: AIR-Bench's score_foundation.py "
                "stops the whole run here (exit 1)",
                file=sample.source or None,
                sample_id=sample.id,
                field=self.answer_field,
            )
        correct = int(letter == gold)
        detail.update(letter=letter, gold=gold, reason="correct" if correct else "wrong")
        stats = {"official_correct": correct, "official_left_out": 0, "official_skipped": 0}
        return Score({"official_correct": float(correct)}, stats, detail)

    def _cells(self, sample: Sample) -> list[str | None]:
        """The choice cells by column position (A-D), an empty cell None, as the official script
        compares them; the compacted list where no cell was empty."""
        cells = sample.get(by_column(self.choices_field))
        if isinstance(cells, list) and all(c is None or isinstance(c, str) for c in cells):
            return cells
        return list(text_list(sample, self.choices_field, self.name))
