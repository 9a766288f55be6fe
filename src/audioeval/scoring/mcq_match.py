"""`mcq_match`: the official MMAR / MMAU string match (see `mcq_official`), as a scorer.

The prediction is the model's answer text; correct iff it holds every answer token and no
token that only a distractor has. A missing prediction is wrong (as the official scripts
score an empty prediction). `stats = {"correct": 0|1}`. Under a scoring profile with a
multiple-choice rule (`scoring/profiles.py`, `mcq_texts`; `audiobench`: AudioBench's string
match, the same token-set rule on its label-cut texts) the answer and choices are read as the
profile says; under a profile without one, the rule is the official one and the signature
names no profile.
"""

from __future__ import annotations

from audioeval.core.sample import Sample
from audioeval.scoring.base import Prediction, Score, Scorer
from audioeval.scoring.mcq_fields import question
from audioeval.scoring.mcq_official import official_match
from audioeval.scoring.prediction import MissingDetail
from audioeval.scoring.profiles import DEFAULT_PROFILE, get_profile
from audioeval.scoring.scorer_hooks import ScorerSignature


class McqMatchSignature(ScorerSignature, total=False):
    rule: str
    answer_field: str
    choices_field: str
    profile: str
    texts: str  # the profile's reading of the answer and choices


class McqMatchDetail(MissingDetail, total=False):
    reason: str  # why the answer matched or did not
    missing_tokens: list[str]
    distractor_tokens: list[str]


class McqMatchScorer(Scorer[McqMatchDetail]):
    """The official token-set match against the sample's answer and choices."""

    name = "mcq_match"
    light = True  # a string match: scored on the event loop (`Scorer.light`)
    metrics = ("accuracy",)

    def __init__(
        self, *, answer_field: str = "answer", choices_field: str = "choices", profile: str = DEFAULT_PROFILE
    ) -> None:
        self.answer_field = answer_field
        self.choices_field = choices_field
        found = get_profile(profile) if profile != DEFAULT_PROFILE else None
        # a profile without a multiple-choice rule leaves the benchmark's official reading
        self._texts = found.mcq_texts if found is not None else None
        self.profile = profile if self._texts is not None else DEFAULT_PROFILE
        self._rule = found.mcq_rule if found is not None else ""

    def signature(self) -> McqMatchSignature:
        sig: McqMatchSignature = {
            "scorer": self.name,
            "rule": "mmar-mmau-official-string-match",
            "answer_field": self.answer_field,
            "choices_field": self.choices_field,
        }
        if self._texts is not None:
            sig.update(profile=self.profile, texts=self._rule)
        return sig

    def score(self, prediction: Prediction, sample: Sample) -> Score:
        answer, choices = question(sample, self.answer_field, self.choices_field, self.name)
        if self._texts is not None:
            answer, choices = self._texts(answer, list(choices))
        match = official_match(answer, prediction.text or "", choices)
        detail: McqMatchDetail = {"reason": match.reason}
        if match.missing:
            detail["missing_tokens"] = list(match.missing)
        if match.conflicts:
            detail["distractor_tokens"] = list(match.conflicts)
        if prediction.missing:
            detail.update({"missing": True, "outcome": prediction.outcome})
        correct = int(match.correct)
        return Score({"mcq_match": float(correct)}, {"correct": correct}, detail)
