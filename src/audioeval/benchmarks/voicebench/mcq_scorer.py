"""`voicebench_mcq`: VoiceBench's multiple-choice score (openbookqa, mmsu), official and ours.

Per reply, two readings side by side:

- **official** (`official_accuracy`): VoiceBench's reader (`mcq_reader`) on the raw reply, as
  VoiceBench sees it (think blocks and all); 1 if the letter read equals the reference
  (compared as VoiceBench does: `==`, no case folding), 0 if another letter. A reply it cannot
  read gets a random letter in VoiceBench (`random.choice('ABCD')`, unseeded); here it gets
  that pick's expectation instead, 1/4 when the reference is one of A-D, so the figure is
  deterministic and equals the mean of VoiceBench's accuracy over its random picks (/100).
  Such replies are flagged `unreadable` (mean:unreadable is VoiceBench's `fail` /100).
- **robust** (`robust_correct`, ours): the letter the benchmark's post-processing chain read
  (`prediction.text`: think blocks stripped, `extract_letter`), compared with the reference
  ignoring case and surrounding spaces; no letter is `unparseable`, scored wrong, never guessed.

No reply at all (the model failed) is not a reply VoiceBench ever reads: it counts 0 in both,
is flagged `missing`, and the run counts it as a failed output; it is not `unreadable`.
"""

from __future__ import annotations

from audioeval.benchmarks.voicebench.mcq_reader import LETTERS, TEMPLATES, read_letter
from audioeval.core.sample import Sample
from audioeval.scoring.base import Prediction, Score, Scorer
from audioeval.scoring.fields import text_list
from audioeval.scoring.scorer_hooks import ScorerSignature

RANDOM_PICKS = tuple(letter.upper() for letter in LETTERS)
"""The letters VoiceBench picks from at random for a reply it cannot read."""


def official_value(letter: str | None, reference: str) -> float:
    """VoiceBench's score of one item, its random pick replaced by the pick's expectation."""
    if letter is None:
        return sum(pick == reference for pick in RANDOM_PICKS) / len(RANDOM_PICKS)
    return float(letter == reference)


class VoiceBenchMcqSignature(ScorerSignature):
    rule: str
    templates: int
    unreadable: str
    robust: str
    answer_field: str


class VoiceBenchMcqScorer(Scorer):
    """The official VoiceBench MCQ value of one reply, and our robust reading beside it."""

    name = "voicebench_mcq"
    metrics = ("mean:official_accuracy", "mean:unreadable", "mean:robust_correct", "mean:unparseable")

    def __init__(self, *, answer_field: str = "answer") -> None:
        self.answer_field = answer_field

    def signature(self) -> VoiceBenchMcqSignature:
        return {
            "scorer": self.name,
            "rule": "voicebench-mcq-templates@5338154",
            "templates": len(TEMPLATES),
            "unreadable": "expectation of a uniform pick from " + "".join(RANDOM_PICKS),
            "robust": "the spec's post-processing chain",
            "answer_field": self.answer_field,
        }

    def score(self, prediction: Prediction, sample: Sample) -> Score:
        reference = text_list(sample, self.answer_field, self.name)[0]
        reply = prediction.raw if prediction.raw is not None else prediction.text
        if reply is None:  # no reply: a failed output, never scored as an answer
            detail = {"missing": True, "outcome": prediction.outcome}
            stats = {"official_accuracy": 0.0, "unreadable": 0, "robust_correct": 0, "unparseable": 1}
            return Score({self.name: 0.0, "robust": 0.0}, stats, detail)
        reading = read_letter(reply)
        official = official_value(reading.letter, reference)
        robust = prediction.text
        robust_correct = int(robust is not None and robust.strip().upper() == reference.strip().upper())
        stats = {
            "official_accuracy": official,
            "unreadable": int(reading.letter is None),
            "robust_correct": robust_correct,
            "unparseable": int(robust is None),
        }
        detail = {"official_letter": reading.letter, "official_rule": reading.rule, "robust_letter": robust}
        if robust is None:
            detail["robust_outcome"] = prediction.outcome
        return Score({self.name: official, "robust": float(robust_correct)}, stats, detail)
