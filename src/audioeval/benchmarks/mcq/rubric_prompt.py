"""MMAR-Rubrics: judging a model's reasoning against an item's rubric (our wording).

Per judge call the judge returns a JSON list with one `{name, score, justification}` per
rubric item; the call scores Σ score / Σ max(choices). A call whose answer is not such a
list (wrong length, a score outside the item's choices) is a failed parse: recorded and
retried, never scored. The item score is the trimmed mean of the valid call scores (the
highest and lowest dropped). An answer that fails the official match scores 0 unjudged.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypedDict

from audioeval.core.messages import Message
from audioeval.judge.votes import reduce_votes, trimmed_mean  # noqa: F401 (trimmed_mean: re-exported)
from audioeval.postprocess.json_in_text import json_values
from audioeval.postprocess.think_tags import strip_think
from audioeval.prompts.templates import PromptTemplate, render

PROMPT_VERSION = "mmar-rubrics-v1"

SYSTEM_PROMPT = """\
You are an impartial, meticulous evaluator of answers to audio reasoning questions. Judge \
the submission strictly against the ground truth and the rubric below. Award a point only \
when the submission clearly meets the rubric item's scoring rule."""


@dataclass(frozen=True, slots=True)
class RubricItem:
    name: str
    scoring_point: str
    choices: tuple[float, ...]


def parse_rubric(value: Any) -> tuple[RubricItem, ...]:
    """Rubric items from an MMAR record's `rubric`; ValueError says what is wrong."""
    if not isinstance(value, list) or not value:
        raise ValueError("expected a non-empty list of rubric items")
    items = []
    for i, obj in enumerate(value):
        if not isinstance(obj, dict):
            raise ValueError(f"rubric[{i}] is not an object")
        name, point, choices = obj.get("name"), obj.get("scoring_point"), obj.get("choices")
        if not isinstance(name, str) or not isinstance(point, str):
            raise ValueError(f"rubric[{i}] needs string 'name' and 'scoring_point'")
        if not isinstance(choices, list) or not choices or not all(_is_number(c) for c in choices):
            raise ValueError(f"rubric[{i}].choices must be a non-empty list of numbers")
        items.append(RubricItem(name, point, tuple(float(c) for c in choices)))
    return tuple(items)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _fmt(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def output_format(rubric: Sequence[RubricItem]) -> str:
    """The JSON list the judge is asked to fill, one entry per rubric item (one line)."""
    template = [
        {"name": item.name, "score": "<allowed score>", "justification": "<one sentence>"} for item in rubric
    ]
    return json.dumps(template, ensure_ascii=False)


class RubricItemVariables(TypedDict):
    """One rubric item as a prompt template sees it (`choices` as written)."""

    name: str
    scoring_point: str
    choices: list[str]


class RubricVariables(TypedDict):
    """What a prompt template file is rendered with (`rubric_variables`)."""

    question: str
    answer: str
    reference: str
    rubric: list[RubricItemVariables]
    output_format: str
    thinking: str
    prediction: str


def rubric_variables(
    *,
    question: str,
    answer: str,
    reference: str,
    rubric: Sequence[RubricItem],
    thinking: str | None,
    prediction: str,
) -> RubricVariables:
    """What a prompt template file (`prompt_file`) is rendered with: the ground truth
    (`question`, `answer`, `reference`: the ideal reasoning), the `rubric` items (`name`,
    `scoring_point`, `choices` as written), `output_format` (the JSON list to fill), and the
    submission (`thinking`: the model's reasoning, "" when none; `prediction`: its answer)."""
    items = [
        RubricItemVariables(name=i.name, scoring_point=i.scoring_point, choices=[_fmt(c) for c in i.choices])
        for i in rubric
    ]
    return {
        "question": question,
        "answer": answer,
        "reference": reference,
        "rubric": items,
        "output_format": output_format(rubric),
        "thinking": (thinking or "").strip(),
        "prediction": prediction.strip(),
    }


def build_rubric_messages(
    *,
    question: str,
    answer: str,
    reference: str,
    rubric: Sequence[RubricItem],
    thinking: str | None,
    prediction: str,
    template: PromptTemplate | None = None,
) -> list[Message]:
    """The judge's system and user messages for one item (identical for every call): ours,
    or a prompt template file rendered with `rubric_variables`."""
    if template is not None:
        variables = rubric_variables(
            question=question, answer=answer, reference=reference, rubric=rubric,
            thinking=thinking, prediction=prediction,
        )  # fmt: skip
        return render(template, dict(variables))
    lines = [
        "## Ground truth",
        f"Question: {question}",
        f"Correct answer: {answer}",
        f"Reference reasoning: {reference}",
        "",
        "## Rubric",
    ]
    for i, item in enumerate(rubric, start=1):
        options = ", ".join(_fmt(c) for c in item.choices)
        lines += [
            f"{i}. {item.name}",
            f"   Scoring rule: {item.scoring_point}",
            f"   Allowed scores: {options}",
        ]
    lines += [
        "",
        "## Required output",
        "Return only a JSON list with one object per rubric item, in this order:",
        output_format(rubric),
        "",
        "## Submission to evaluate",
    ]
    if thinking:
        lines.append(thinking.strip())
    lines.append(f"The answer is {prediction.strip()}.")
    return [Message.text("system", SYSTEM_PROMPT), Message.text("user", "\n".join(lines))]


@dataclass(frozen=True, slots=True)
class RubricCall:
    """One judge answer read: the call's score in [0, 1], or why it is not valid."""

    score: float | None
    scores: tuple[float, ...] = ()
    error: str | None = None
    warning: str | None = None

    @property
    def valid(self) -> bool:
        return self.score is not None


def _json_list(text: str) -> list[Any] | None:
    """The first JSON list in the text that is empty or holds objects."""
    for value in json_values(text, "["):
        if isinstance(value, list) and (not value or isinstance(value[0], dict)):
            return value
    return None


def parse_rubric_answer(raw: str, rubric: Sequence[RubricItem]) -> RubricCall:
    """Read one judge answer against the rubric it was asked about."""
    data = _json_list(strip_think(raw or ""))
    if data is None:
        return RubricCall(None, error="no JSON list of rubric scores")
    if len(data) != len(rubric):
        return RubricCall(None, error=f"{len(data)} scores for {len(rubric)} rubric items")
    scores: list[float] = []
    renamed: list[str] = []
    for i, (entry, item) in enumerate(zip(data, rubric, strict=True)):
        score = entry.get("score") if isinstance(entry, dict) else None
        if isinstance(score, str):
            try:
                score = float(score.strip())
            except ValueError:
                score = None
        if not _is_number(score) or float(score) not in item.choices:  # type: ignore[arg-type]
            allowed = list(item.choices)
            return RubricCall(None, error=f"item {i + 1}: score {score!r} not in {allowed}")
        if isinstance(entry, dict) and entry.get("name") != item.name:
            renamed.append(str(i + 1))
        scores.append(float(score))  # type: ignore[arg-type]
    total = sum(max(item.choices) for item in rubric)
    value = sum(scores) / total if total else 0.0
    warning = f"rubric names differ at item(s) {', '.join(renamed)}" if renamed else None
    return RubricCall(value, tuple(scores), None, warning)


class ItemOutcome(TypedDict):
    """A judged item's valid call scores (the first `votes`), whether it failed, its score."""

    call_scores: list[float]
    failed: bool
    score: float | None


def item_outcome(call_scores: Sequence[float], votes: int, reducer: str = "trimmed_mean") -> ItemOutcome:
    """Score of a judged item from its valid call scores (the first `votes` count), reduced
    by the named reducer (`judge/votes.REDUCERS`).

    With fewer valid calls than `votes` the item is failed: recorded, counted, not scored.
    """
    out = reduce_votes(call_scores, votes, reducer)
    return {"call_scores": out.votes, "failed": out.failed, "score": out.score}
