"""AudioBench's string match of a multiple-choice answer (AudioLLMs/AudioBench
`src/dataset_src/eval_methods/string_match.py`, `string_match_one_sample`), the figure its
`mmau_mini` set reports as `string_match`.

Texts become sets of word tokens (`\\b\\w+\\b`, lower case). A reply is right when it holds
every token of the answer and no token of a wrong choice, where a wrong choice's tokens are
those not in the answer (a choice whose tokens equal the answer's adds none); an empty reply
is wrong. The answer and choices are given without their `(A) ` prefixes (their `[4:]`).
"""

from __future__ import annotations

import re

from audioeval.core.errors import InputError
from audioeval.core.record import Score
from audioeval.core.sample import Sample
from audioeval.scoring.base import Prediction, Scorer
from audioeval.scoring.mcq_official import official_match
from audioeval.scoring.scorer_hooks import ScorerSignature

NAME = "audiobench_string_match"


LABEL = re.compile(r"\([A-Z]\) ")
"""`(A) `: the label of an option in AudioBench's multiple-choice sets, four characters."""
RULE = (
    "AudioBench string match (src/dataset_src/eval_methods/string_match.py): the `(A) ` label of the answer "
    "and of each choice cut (their [4:]; a text without one is taken as is), then the MMAR / MMAU token-set "
    "rule their string_match_one_sample copies"
)


def unlabelled(answer: str, choices: list[str]) -> tuple[str, list[str]]:
    """The answer and choices as their `mmau_string_match` reads them: each `(A) ` label cut
    (`[4:]`); a text without one (audioeval's own MMAU items) is taken as it is."""

    def cut(text: str) -> str:
        return text[4:] if LABEL.match(text) else text

    return cut(answer), [cut(c) for c in choices]


def string_match(answer: str, reply: str, choices: list[str]) -> bool:
    """Their rule for one reply (the answer and choices without their `(A) ` prefixes): their
    `string_match_one_sample` is the MMAR / MMAU official token-set match, line for line, so it
    is that one code (`scoring/mcq_official.py`)."""
    return official_match(answer, reply, choices).correct


class StringMatchSignature(ScorerSignature):
    source: str  # the code it follows


class StringMatchScorer(Scorer):
    """`audiobench_string_match`: 1 when the reply passes AudioBench's string match, else 0."""

    name = NAME
    metrics = (f"mean:{NAME}",)
    light = True

    def signature(self) -> StringMatchSignature:
        return {"scorer": NAME, "source": "AudioLLMs/AudioBench src/dataset_src/eval_methods/string_match.py"}

    def score(self, prediction: Prediction, sample: Sample) -> Score:
        answer, choices = sample.get("answer"), sample.get("choices")
        if not isinstance(answer, str) or not isinstance(choices, list):
            raise InputError(
                "needs the text `answer` and the list `choices`", sample_id=sample.id, field="answer"
            )
        hit = prediction.text is not None and string_match(answer, prediction.text, [str(c) for c in choices])
        return Score({NAME: float(hit)}, {NAME: float(hit)}, {})
