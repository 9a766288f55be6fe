"""The official MMAR / MMAU answer match (`string_match` in both `evaluation.py` scripts).

Reproduced exactly, quirks included: tokens are the *set* of `\\b\\w+\\b` matches in the
lower-cased text (word order is ignored), an empty prediction is wrong, and the prediction
is correct iff it holds every answer token and no token of the other choices that is not
also an answer token. Choices with exactly the answer's token set are ignored (the
order-blind bug: "From far to near" vs "From near to far").
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

from audioeval.postprocess.options import words


def tokens(text: str) -> frozenset[str]:
    """The official tokenisation: the set of `\\b\\w+\\b` matches in the lower-cased text.
    Those are the maximal runs of word characters, which `words` finds (`\\w+`, the same
    tokens: tests/test_mcq_speed_scoring.py), and keeps for the robust reading of the answer."""
    return frozenset(words(text))


@dataclass(frozen=True, slots=True)
class OfficialMatch:
    """Whether the prediction matched, and why not when it did not."""

    correct: bool
    reason: str  # "match" | "empty_prediction" | "answer_tokens_missing" | "distractor_tokens"
    missing: tuple[str, ...] = ()
    conflicts: tuple[str, ...] = ()


def distractor_tokens(answer: str, choices: Sequence[str]) -> frozenset[str]:
    """W: tokens of every choice whose token set differs from the answer's, minus the answer's."""
    a = tokens(answer)
    out: set[str] = set()
    for choice in choices:
        c = tokens(choice)
        if c != a:
            out.update(c - a)
    return frozenset(out)


@functools.lru_cache(maxsize=4096)
def _question_tokens(answer: str, choices: tuple[str, ...]) -> tuple[frozenset[str], frozenset[str]]:
    """(answer tokens, distractor tokens) of one question: tokenised once per question, not
    once per prediction (a run scores many predictions of the same questions)."""
    return tokens(answer), distractor_tokens(answer, choices)


def official_match(answer: str, prediction: str, choices: Sequence[str]) -> OfficialMatch:
    """Score one prediction exactly as the official scripts do. A prediction scored before
    against the same question (asked again, a bare letter) is not scored again: the match is
    a function of the three, and immutable."""
    return _match(answer, prediction, tuple(choices))


@functools.lru_cache(maxsize=4096)
def _match(answer: str, prediction: str, choices: tuple[str, ...]) -> OfficialMatch:
    p = tokens(prediction)
    if not p:
        return OfficialMatch(False, "empty_prediction")
    a, distractors = _question_tokens(answer, choices)
    missing = a - p
    conflicts = p & distractors
    if missing:
        return OfficialMatch(False, "answer_tokens_missing", tuple(sorted(missing)), tuple(sorted(conflicts)))
    if conflicts:
        return OfficialMatch(False, "distractor_tokens", (), tuple(sorted(conflicts)))
    return OfficialMatch(True, "match")
