"""`mcq_robust`: the answer read by the robust choice chain (`postprocess/chain.py`), as a scorer.

The flexible counterpart of `mcq_match` (the official, strict token-set match), as
lm-eval pairs strict and flexible filters: the chain strips think blocks and markdown and
reads one choice (option text, letter, answer statement); a reply naming no single choice
is the explicit unparseable outcome, scored wrong and counted, never guessed.
`stats = {"robust_correct": 0|1, "unparseable": 0|1}` (named apart from `mcq_match`'s `correct`,
as both score the same sample).
"""

from __future__ import annotations

from collections.abc import Sequence

from audioeval.core.sample import Sample
from audioeval.postprocess.chain import ROBUST_MCQ, ChoiceChainDescription
from audioeval.postprocess.options import words
from audioeval.scoring.base import Prediction, Score, Scorer
from audioeval.scoring.mcq_fields import question
from audioeval.scoring.scorer_hooks import ScorerSignature


def answer_index(answer: str, choices: Sequence[str]) -> int | None:
    """The choice that is the answer: exact text first, then ignoring surrounding spaces."""
    for i, c in enumerate(choices):
        if c == answer:
            return i
    stripped = answer.strip()
    for i, c in enumerate(choices):
        if c.strip() == stripped:
            return i
    return None


def is_answer(choice: str, answer: str, answer_at: int | None) -> bool:
    """Whether a chosen option is the answer: the same text (ignoring surrounding spaces;
    repeated choices are the same answer), or, for an answer that is not among the choices,
    the same words."""
    if answer_at is not None:
        return choice.strip() == answer.strip()
    return words(choice) == words(answer)


class McqRobustSignature(ScorerSignature, total=False):
    chain: ChoiceChainDescription
    answer_field: str
    choices_field: str


class McqRobustScorer(Scorer):
    """One choice read from the raw answer; correct iff it is the answer."""

    name = "mcq_robust"
    light = True  # a string match: scored on the event loop (`Scorer.light`)
    metrics = ("mean:robust_correct",)

    def __init__(self, *, answer_field: str = "answer", choices_field: str = "choices") -> None:
        self.answer_field = answer_field
        self.choices_field = choices_field

    def signature(self) -> McqRobustSignature:
        return {
            "scorer": self.name,
            "chain": ROBUST_MCQ.describe(),
            "answer_field": self.answer_field,
            "choices_field": self.choices_field,
        }

    def score(self, prediction: Prediction, sample: Sample) -> Score:
        answer, choices = question(sample, self.answer_field, self.choices_field, self.name)
        ex = ROBUST_MCQ(prediction.raw or "", choices)
        correct = int(
            ex.index is not None and is_answer(choices[ex.index], answer, answer_index(answer, choices))
        )
        detail = {"choice": ex.letter, "method": ex.method, "reason": ex.reason}
        unparseable = int(not ex.parsed)
        stats = {"robust_correct": correct, "unparseable": unparseable}
        return Score({self.name: float(correct)}, stats, detail)
