"""Scoring one item both ways: the official token-set match and the robust choice reading."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from audioeval.benchmarks.mcq.loading import McqItem
from audioeval.postprocess.chain import ROBUST_MCQ, ChoiceChain
from audioeval.postprocess.options import LETTERS, words
from audioeval.scoring.mcq_official import official_match


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


def score_item(item: McqItem, chain: ChoiceChain = ROBUST_MCQ) -> dict[str, Any]:
    """The per-item row: groups, both modes' outcome, and why.

    An item without a prediction gets `official` and `robust` None: it is counted, not scored.
    """
    row: dict[str, Any] = {
        "id": item.id,
        "line": item.line,
        **item.groups,
        "answer": item.answer,
        "prediction": item.prediction,
    }
    ai = answer_index(item.answer, item.choices)
    row["answer_letter"] = None if ai is None else LETTERS[ai]
    if item.prediction is None:
        row.update(official=None, robust=None, unparseable=None)
        return row
    om = official_match(item.answer, item.prediction, item.choices)
    ex = chain(item.prediction, item.choices)
    row.update(
        official=int(om.correct),
        official_reason=om.reason,
        robust=int(ex.index is not None and is_answer(item.choices[ex.index], item.answer, ai)),
        robust_choice=ex.letter,
        robust_method=ex.method,
        robust_reason=ex.reason,
        unparseable=int(not ex.parsed),
    )
    return row


def score_items(items: Sequence[McqItem], chain: ChoiceChain = ROBUST_MCQ) -> list[dict[str, Any]]:
    return [score_item(item, chain) for item in items]
