"""The answer and choices of one multiple-choice sample, as both MCQ scorers read them."""

from __future__ import annotations

from audioeval.core.sample import Sample
from audioeval.scoring.fields import text_list

_ONLY_STR = frozenset({str})  # the types of a list of strings


def question(
    sample: Sample, answer_field: str, choices_field: str, scorer: str
) -> tuple[str, tuple[str, ...]]:
    """(answer, choices): `text_list(answer_field)[0]` and `text_list(choices_field)`, with
    the same errors. A string answer and a non-empty list of strings (every MMAR / MMAU item)
    are taken as they are, which is what `text_list` makes of them: its general checks, four
    per sample and scorer, cost as much as matching a short answer."""
    fields = sample.fields
    answer, choices = fields.get(answer_field), fields.get(choices_field)
    if type(answer) is str and type(choices) is list and choices and _ONLY_STR.issuperset(map(type, choices)):
        return answer, tuple(choices)
    return text_list(sample, answer_field, scorer)[0], tuple(text_list(sample, choices_field, scorer))
