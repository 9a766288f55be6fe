"""`bbh_match`: VoiceBench's BBH answer reading (`evaluate.py --evaluator bbh`), as a scorer.

The row's task id (VoiceBench passes its `id`, e.g. `navigate_12`) selects the rule list of
its BBH task (sports understanding, hyperbaton, navigate, web of lies; `bbh_rules`); the reply
is normalised (lower case; `<|user|>`, `<1>`-style prefixes and `<|turn_end|>` removed;
`: ** " - , . ：` turned into spaces; spaces collapsed) and the first rule that fires gives
0 (no / (A)) or 1 (yes / (B)), compared with the reference (`yes`, `no`, `(A)`, `(B)`).

Reproduced exactly, quirks included (a bare "b" reads as (A); "... must be lying" and "the
sentence ... is not plausible" read as yes; rules holding "." never fire). Where no rule
fires VoiceBench picks 0 or 1 at random (unseeded); the official figure
(`official_accuracy`) gives such a reply that pick's expectation, 1/2, so it is deterministic
and equals the mean of VoiceBench's accuracy over its random picks (/100). Beside it, ours
(`correct`, metric `accuracy`): such a reply is unparseable, scored wrong and counted
(`unparseable`), never guessed. The official figure reads the raw reply (`prediction.raw`), as
VoiceBench does (think blocks and all); ours reads the post-processed answer (`prediction.text`,
think blocks stripped by the spec's chain). A task id naming no BBH task and a
reference that is not yes/no/(A)/(B) are InputErrors (the sample fails, it is not scored;
VoiceBench raises too). No reply at all (the model failed): 0 in both, flagged `missing`.
`stats = {"official_accuracy": 0|0.5|1, "correct": 0|1, "unparseable": 0|1}`.
"""

from __future__ import annotations

import re
from typing import TypedDict

from audioeval.benchmarks.voicebench.bbh_rules import GOLD, TASK_RULES, Rule
from audioeval.core.errors import InputError
from audioeval.core.sample import Sample
from audioeval.scoring.base import Prediction, Score, Scorer
from audioeval.scoring.fields import text_list
from audioeval.scoring.scorer_hooks import ScorerSignature

RANDOM_PICK_EXPECTATION = 0.5
"""VoiceBench's `random.choice([0, 1])` for an unread reply is right half the time."""

_SPACED = (":", "**", '"', "-", ",", ".", "：")


def normalise(reply: str) -> str:
    """VoiceBench's BBH normalisation of a reply."""
    text = reply.lower()
    if text.endswith("<|user|>"):
        text = text[:-8].strip()
    if text.startswith(("<1>", "<2>", "<3>")):
        text = text[3:].strip()
    text = text.replace("<|turn_end|>", "")
    for mark in _SPACED:
        text = text.replace(mark, " ")
    return " ".join(text.split())


def _fires(rule: Rule, text: str) -> bool:
    kind, pattern, _ = rule
    if kind == "in":
        return pattern in text
    if kind == "re":
        return re.search(pattern, text) is not None
    if kind == "eq":
        return text == pattern
    if kind == "starts":
        return text.startswith(pattern)
    return text.endswith(pattern)


def task_of(task_id: str) -> str | None:
    """The BBH task a row's task id names (the first of VoiceBench's order it contains)."""
    return next((task for task, _ in TASK_RULES if task in task_id), None)


def read_answer(reply: str, task: str) -> tuple[int | None, Rule | None]:
    """(0 or 1, the rule that fired) for a reply to a question of `task`; (None, None) if none fires."""
    text = normalise(reply)
    rules = dict(TASK_RULES)[task]
    rule = next((r for r in rules if _fires(r, text)), None)
    return (rule[2], rule) if rule is not None else (None, None)


class BbhSignature(ScorerSignature):
    rule: str
    unread: str
    answer_field: str
    task_field: str


class BbhDetail(TypedDict, total=False):
    """The task, the gold answer (0/1), each reading's answer and the rule that fired (the
    official one on the raw reply, ours on the processed answer); `missing` and `outcome` for
    no reply."""

    task: str
    gold: int
    missing: bool
    outcome: str
    official_answer: int | None
    official_rule: list[str] | None
    answer: int | None
    rule: list[str] | None


class BbhMatchScorer(Scorer[BbhDetail]):
    """1 when the answer read from the reply is the reference, else 0."""

    name = "bbh_match"
    metrics = ("mean:official_accuracy", "accuracy", "mean:unparseable")

    def __init__(self, *, answer_field: str = "answer", task_field: str | None = None) -> None:
        self.answer_field = answer_field
        self.task_field = task_field

    def signature(self) -> BbhSignature:
        return {
            "scorer": self.name,
            "rule": "voicebench-bbh-answer-phrases@5338154",
            "unread": "official: expectation 1/2 of a random pick; correct: wrong",
            "answer_field": self.answer_field,
            "task_field": self.task_field or "id",
        }

    def _task(self, sample: Sample) -> str:
        task_id = sample.id if self.task_field is None else text_list(sample, self.task_field, self.name)[0]
        task = task_of(task_id)
        if task is None:
            raise InputError(
                f"task id {task_id!r} names no BBH task ({', '.join(t for t, _ in TASK_RULES)})",
                file=sample.source or None,
                sample_id=sample.id,
                field=self.task_field or "id",
            )
        return task

    def _gold(self, sample: Sample) -> int:
        reference = text_list(sample, self.answer_field, self.name)[0]
        gold = GOLD.get(reference.strip().lower())
        if gold is None:
            raise InputError(
                f"reference {reference!r} is none of yes, no, (A), (B)",
                file=sample.source or None,
                sample_id=sample.id,
                field=self.answer_field,
            )
        return gold

    def score(self, prediction: Prediction, sample: Sample) -> Score:
        task, gold = self._task(sample), self._gold(sample)
        detail = BbhDetail(task=task, gold=gold)
        reply = prediction.raw if prediction.raw is not None else prediction.text
        if reply is None:  # no reply at all: a failed output, never scored as an answer
            detail.update(missing=True, outcome=prediction.outcome)
            return Score({self.name: 0.0}, {"official_accuracy": 0.0, "correct": 0, "unparseable": 1}, detail)
        official_answer, official_rule = read_answer(reply, task)
        answer, rule = read_answer(prediction.text, task) if prediction.text is not None else (None, None)
        correct = int(answer == gold)
        official = RANDOM_PICK_EXPECTATION if official_answer is None else float(official_answer == gold)
        detail.update(
            official_answer=official_answer,
            official_rule=list(official_rule[:2]) if official_rule is not None else None,
            answer=answer,
            rule=list(rule[:2]) if rule is not None else None,
        )
        stats = {"official_accuracy": official, "correct": correct, "unparseable": int(answer is None)}
        return Score({self.name: float(correct)}, stats, detail)
