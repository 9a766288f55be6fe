"""ROUGE-L: the longest common subsequence of whitespace tokens, as an F-measure.

    P = LCS / len(hypothesis), R = LCS / len(reference),
    F = (1 + β²)·P·R / (R + β²·P)            (β = 1: the harmonic mean, as `rouge-score`;
                                              β = 1.2: the COCO caption evaluation)

Both sides pass through the same normaliser (default: lower case, no punctuation); with
several references the best F counts. `stats = {"rouge_l": F}`; the corpus metric is the
mean. An empty hypothesis or reference scores 0.

`coco_rouge_l` is the COCO caption evaluation's ROUGE-L (pycocoevalcap's `Rouge`, `ROUGE_L`),
which differs: tokens split on single spaces (an empty caption is one empty token), β = 1.2,
and with several references the best precision and the best recall are taken separately (not
the best F) before the F-measure; the `coco_rouge_l` scorer (`caption_scorers`) feeds it PTB
tokens.
"""

from __future__ import annotations

from collections.abc import Sequence

from audioeval.core.sample import Sample
from audioeval.postprocess.step_library import StepSpec
from audioeval.postprocess.steps import PostprocessChain, SpecItem
from audioeval.scoring.base import Prediction, Score, Scorer, as_normaliser
from audioeval.scoring.fields import references
from audioeval.scoring.prediction import MissingDetail
from audioeval.scoring.scorer_hooks import ScorerSignature


def lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of the longest common subsequence (dynamic programming, O(len(a)·len(b)))."""
    if len(a) < len(b):
        a, b = b, a
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b):
            cur.append(prev[j] + 1 if x == y else max(prev[j + 1], cur[j]))
        prev = cur
    return prev[-1]


def rouge_l(
    hypothesis: Sequence[str], reference: Sequence[str], beta: float = 1.0
) -> tuple[float, float, float]:
    """(precision, recall, F) of ROUGE-L for two token sequences."""
    lcs = lcs_length(hypothesis, reference)
    if lcs == 0:
        return 0.0, 0.0, 0.0
    p, r = lcs / len(hypothesis), lcs / len(reference)
    return p, r, (1 + beta**2) * p * r / (r + beta**2 * p)


def coco_rouge_l(candidate: str, references: Sequence[str], beta: float = 1.2) -> float:
    """pycocoevalcap's ROUGE-L of a tokenised caption against its tokenised references."""
    if not references:
        raise ValueError("ROUGE-L needs at least one reference")
    cand = candidate.split(" ")
    best_p = best_r = 0.0
    for ref in references:
        tokens = ref.split(" ")
        lcs = lcs_length(tokens, cand)
        best_p, best_r = max(best_p, lcs / len(cand)), max(best_r, lcs / len(tokens))
    if best_p == 0 or best_r == 0:
        return 0.0
    return ((1 + beta**2) * best_p * best_r) / float(best_r + beta**2 * best_p)


class RougeSignature(ScorerSignature, total=False):
    beta: float
    tokens: str
    reference_field: str
    normaliser: list[StepSpec]


class RougeLScorer(Scorer[MissingDetail]):
    """`rouge_l`: sentence ROUGE-L F-measure, best over references."""

    name = "rouge_l"
    metrics = ("rouge_l",)

    def __init__(
        self,
        *,
        beta: float = 1.0,
        reference_field: str | None = None,
        normaliser: PostprocessChain | Sequence[SpecItem] | None = None,
    ) -> None:
        if not isinstance(beta, int | float) or beta <= 0:
            raise ValueError(f"beta must be a positive number, got {beta!r}")
        self.beta = float(beta)
        self.reference_field = reference_field
        self.normaliser = as_normaliser(normaliser, default=["lower", "remove_punctuation"])

    def signature(self) -> RougeSignature:
        return {
            "scorer": self.name,
            "beta": self.beta,
            "tokens": "whitespace",
            "reference_field": self.reference_field or "references | reference",
            "normaliser": self.normaliser.describe(),
        }

    def score(self, prediction: Prediction, sample: Sample) -> Score:
        hyp = self.normaliser.normalise(prediction.text or "").split()
        refs = [
            self.normaliser.normalise(r).split() for r in references(sample, self.reference_field, self.name)
        ]
        p, r, f = max((rouge_l(hyp, ref, self.beta) for ref in refs), key=lambda prf: prf[2])
        detail: MissingDetail = (
            {"missing": True, "outcome": prediction.outcome} if prediction.missing else {}
        )
        return Score({"rouge_l": f, "rouge_l_precision": p, "rouge_l_recall": r}, {"rouge_l": f}, detail)
