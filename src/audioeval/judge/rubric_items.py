"""Yes/no rubric items put to an audio judge (scorer `rubric_items`): AnyAudio-Judge style.

A sample carries its rubric: atomic yes/no items `{dimension, question, basis}` (made from
its caption by `audioeval rubric decompose`, or shipped with the benchmark) where "yes"
always means "the audio matches the caption". The judged audio is the model's output.

- `per_item` (default): one request per item, the audio part first and identical for every
  item of a sample (an endpoint with prefix caching encodes it once), then the item.
  `max_tokens: 1`, `logprobs: true`, `top_logprobs: 20`; P(yes) from the first token
  (`judge/p_yes.py`). When the server sends no logprobs, or lists neither yes nor no, the
  item's P(yes) is the share of "yes" over `samples` sampled answers (temperature 1), and the
  item records `method: "sampled"`; the signature names this fallback. Once the judge has
  answered a logprobs request without logprobs, later items of the run skip theirs and go
  straight to the sampled answers (`judge/logprobs_support.py`), recording
  `logprobs_skipped` with why: the value is the same, as the item is sampled either way.
- `all_at_once`: one request listing every item; the judge answers a JSON array of
  `{id, answer: yes|no, evidence}`. The answer is read by the scorer's `all_at_once_reader`
  (an `AllAtOnceReader`: the id of the first listed item, a reader, a name for the
  signature). Ours (`STRICT_READER`): ids from 1, each item covered exactly once with yes or
  no, else the answer is asked again (up to `max_attempts`). A benchmark may hook its own
  (a subclass setting `all_at_once_reader`): one that leaves items unparsed (None) gives them
  no value. An item's P(yes) is then 1 or 0.

Sample score `rubric_score` = mean P(yes) over the items with a value (metric
`mean:rubric_score`); an item the judge gave no value for is counted in the detail. No item
with a value: the sample fails (recorded, counted, never scored). Every answer is kept in
the detail, so rescoring re-reads the stored answers with no judge call.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypedDict

from audioeval.core.errors import InputError
from audioeval.core.messages import AudioPart, AudioRef, Message, TextPart
from audioeval.core.sample import Sample
from audioeval.judge.judged_items import JudgedItem, JudgeVote
from audioeval.judge.logprobs_support import SKIPPED_WHY, LogprobsSupport
from audioeval.judge.p_yes import has_first_token, p_yes, read_first_token
from audioeval.judge.votes import collect_votes
from audioeval.postprocess.json_in_text import fenced_blocks, json_values
from audioeval.postprocess.think_tags import strip_think
from audioeval.postprocess.yes_no import read_label, yes_no_answer
from audioeval.prompts.templates import PromptTemplate, render
from audioeval.scoring.base import Prediction, Score
from audioeval.scoring.judged import (
    JudgedScorer,
    JudgeFailed,
    JudgeGenerate,
    PromptSignature,
    prompt_signature,
)
from audioeval.scoring.scorer_hooks import ScorerSignature
from audioeval.store.bounded_json import loads

SCORER_NAME = "rubric_items"


class ItemAttempt(TypedDict):
    """One judge request of an item (or of every item, all at once), as stored in the detail."""

    attempt: int
    answer: str | None
    error: str | None


class SampledAttempt(ItemAttempt):
    """One sampled yes/no answer of an item (asked when its logprobs gave no P(yes))."""

    verdict: str | None


class ItemAnswers(TypedDict, total=False):
    """What judging one item stored: its logprobs requests, and the sampled answers when
    they gave no P(yes) (or the judge sends no logprobs: `logprobs_skipped` says so)."""

    attempts: list[ItemAttempt]
    sampled: list[SampledAttempt]
    logprobs_skipped: str


class ItemValue(TypedDict, total=False):
    """An item's P(yes), how it was read (`logprobs`, `sampled`, `all_at_once`), or why none."""

    p_yes: float | None
    method: str | None
    bound: str | None
    why: str


class RubricItem(TypedDict, total=False):
    """One item of a sample's rubric, as checked when read (`rubric_of`); `label`, the item's
    truth when known (yes/no, true/false, 1/0), calibrates the reliability figures."""

    dimension: str
    question: str
    basis: str
    label: str | bool | int | float


class ItemRow(RubricItem, ItemValue, ItemAnswers, total=False):
    """An item in the score's detail: the item, its value and what judging it stored."""


class RubricDetail(TypedDict, total=False):
    """What `rubric_items` keeps in a score's detail (`rescore` reads it back)."""

    mode: Literal["per_item", "all_at_once"]
    items: list[ItemRow]
    valued: int  # items with a P(yes)
    without_value: int
    attempts: list[ItemAttempt]  # all at once: the requests of every item
    failed_output: bool


class ItemVariables(TypedDict):
    """What a prompt template file gets per item in `per_item` mode."""

    dimension: str
    question: str
    basis: str


class NumberedItem(ItemVariables):
    id: int


class AllItemsVariables(TypedDict):
    """What a prompt template file gets in `all_at_once` mode."""

    items: list[NumberedItem]


class RubricItemsSignature(ScorerSignature, PromptSignature, total=False):
    mode: str
    rubric_field: str
    max_attempts: int
    p_yes: str
    reader: str
    empty_questions: str
PROMPT_VERSION = "rubric-items-v1"
VALUE = "rubric_score"
TOP_LOGPROBS = 20  # the judge's typed logprobs request: the first token's top 20
LOGPROBS = {"max_tokens": 1}  # the rest of that request
SAMPLED = {"max_tokens": 4, "temperature": 1.0, "seed": None}  # no fixed seed: k different draws

SYSTEM = (
    "You are an audio perception evaluator. You hear one audio clip and answer one question "
    "about it with a single word: yes or no.\n"
    "1. Judge only what you can hear in this clip; do not infer from world knowledge.\n"
    "2. Every question is phrased so that yes means the audio matches the description.\n"
    "3. If a feature cannot be heard clearly, answer no."
)
SYSTEM_ALL = (
    "You are an audio perception evaluator. You hear one audio clip and a numbered list of "
    "yes/no questions about it. Judge only what you can hear; yes means the audio matches "
    "the description; if a feature cannot be heard clearly, answer no. Reply with a JSON "
    'array only, one object per question: [{"id": 1, "answer": "yes", "evidence": "one '
    'sentence"}, ...].'
)


def rubric_of(sample: Sample, field: str, *, empty_questions: bool = False) -> list[RubricItem]:
    """The sample's items, checked: a non-empty list of objects with a non-empty question
    (`empty_questions`: a string question, possibly empty, as a benchmark's own code keeps it)."""
    raw = sample.get(field)
    if isinstance(raw, str):
        try:
            raw = loads(raw)
        except ValueError:
            raise InputError("not a JSON list of items", sample_id=sample.id, field=field) from None
    if not isinstance(raw, list) or not raw:
        raise InputError("expected a non-empty list of rubric items", sample_id=sample.id, field=field)
    items = []
    for i, item in enumerate(raw):
        question = item.get("question") if isinstance(item, dict) else None
        if empty_questions and isinstance(item, dict) and question is None:
            question = ""
        if not isinstance(question, str) or not (question.strip() or empty_questions):
            raise InputError("item without a question", sample_id=sample.id, field=f"{field}[{i}].question")
        kept: RubricItem = {
            "dimension": str(item.get("dimension") or ""),
            "question": question.strip(),
            "basis": str(item.get("basis") or ""),
        }
        if item.get("label") is not None:  # the item's truth, when known: the reliability's ECE
            kept["label"] = item["label"]
        items.append(kept)
    return items


def item_text(item: RubricItem) -> str:
    dimension = f"[{item['dimension']}] " if item.get("dimension") else ""
    return f"Please judge: {dimension}{item['question']}"


def item_variables(item: RubricItem) -> ItemVariables:
    """What a prompt template file (`prompt_file`) gets per item in `per_item` mode."""
    return {
        "dimension": str(item.get("dimension") or ""),
        "question": str(item.get("question") or ""),
        "basis": str(item.get("basis") or ""),
    }


def all_items_variables(items: Sequence[RubricItem], first_id: int = 1) -> AllItemsVariables:
    """What it gets in `all_at_once` mode: `items`, each with its `id` (`first_id`, then on:
    1, 2, … with our reader; the ids the answer must give) and the per-item variables."""
    return {"items": [{"id": i + first_id, **item_variables(item)} for i, item in enumerate(items)]}


def item_messages(
    audio: AudioRef, item: RubricItem, template: PromptTemplate | None = None
) -> list[Message]:
    """System, then the user turn: the audio first (same bytes for every item), then the item;
    or a prompt template file rendered with `item_variables`, the audio where it says."""
    if template is not None:
        return render(template, item_variables(item), audio)
    user = Message("user", (AudioPart(audio), TextPart(item_text(item))))
    return [Message.text("system", SYSTEM), user]


def all_items_messages(
    audio: AudioRef,
    items: Sequence[RubricItem],
    template: PromptTemplate | None = None,
    first_id: int = 1,
) -> list[Message]:
    if template is not None:
        return render(template, all_items_variables(items, first_id), audio)
    listed = "\n".join(
        f"{i + first_id}. {item_text(item).removeprefix('Please judge: ')}" for i, item in enumerate(items)
    )
    user = Message("user", (AudioPart(audio), TextPart(f"Questions:\n{listed}")))
    system = SYSTEM_ALL.replace('"id": 1,', f'"id": {first_id},')
    return [Message.text("system", system), user]


def _sampled_ok(answer: str) -> bool:
    return yes_no_answer(answer) is not None


def read_all_at_once(answer: str | None, n: int) -> list[str] | None:
    """The yes/no answer of each of `n` items from a JSON array answer, None unless it covers
    every item exactly once with yes or no."""
    if answer is None:
        return None
    text = strip_think(answer)
    for candidate in [*fenced_blocks(text), text]:
        for value in json_values(candidate, "[", nested=False):
            got = _items_answers(value, n)
            if got is not None:
                return got
    return None


def _items_answers(value: Any, n: int) -> list[str] | None:
    if not isinstance(value, list) or len(value) != n:
        return None
    answers: dict[int, str] = {}
    for entry in value:
        if not isinstance(entry, dict):
            return None
        try:
            index = int(entry.get("id"))
        except (TypeError, ValueError):
            return None
        verdict = yes_no_answer(str(entry.get("answer", "")))
        if verdict is None or not 1 <= index <= n or index in answers:
            return None
        answers[index] = verdict
    return [answers[i] for i in range(1, n + 1)]


@dataclass(frozen=True)
class AllAtOnceReader:
    """How an `all_at_once` answer is read: `read(answer, n)` gives yes / no / None
    (unparsed) per item, or None when the answer is unusable (asked again); `first_id` is the
    id the prompt gives the first item; `name` goes into the signature."""

    name: str
    first_id: int
    read: Callable[[str | None, int], Sequence[str | None] | None]


STRICT_READER = AllAtOnceReader("ours: ids from 1, every item exactly once", 1, read_all_at_once)


class RubricItemsScorer(JudgedScorer[RubricDetail]):
    """Mean P(yes) over a sample's rubric items, by an audio judge."""

    reports_reliability = True
    metrics = (f"mean:{VALUE}",)
    scorer_name = SCORER_NAME  # a benchmark's subclass registers under its own
    all_at_once_reader: AllAtOnceReader = STRICT_READER
    """The hook a benchmark's subclass sets to read `all_at_once` answers as its code does."""
    empty_questions = False
    """Whether an item with an empty question is judged (a benchmark that keeps them) or
    refused as bad input (ours)."""

    def __init__(
        self,
        *,
        mode: Literal["per_item", "all_at_once"] = "per_item",
        rubric_field: str = "rubric",
        samples: int = 5,
        max_attempts: int = 3,
    ) -> None:
        if mode not in ("per_item", "all_at_once"):
            raise InputError(
                f"mode must be per_item or all_at_once, not {mode!r}", field="scorers.rubric_items"
            )
        if samples < 1 or max_attempts < 1:
            raise InputError("samples and max_attempts must be ≥ 1", field="scorers.rubric_items")
        self.name = self.scorer_name
        self.mode = mode
        self.rubric_field = rubric_field
        self.samples = samples
        self.max_attempts = max_attempts
        self._logprobs: LogprobsSupport | None = None  # what this run's judge sends
        self.template: PromptTemplate | None = None  # a prompt file (`prompt_file`), else ours

    def use_prompt(self, template: PromptTemplate) -> None:
        """Judge with a prompt template file: `item_variables` per item, or `all_items_variables`."""
        if template.audio == "none":
            raise InputError(
                "rubric_items: the judge must hear the clip: set `audio: before` or `after`",
                file=template.source,
                field="audio",
            )
        self.template = template

    def prompt_examples(self) -> list[ItemVariables | AllItemsVariables]:
        item: RubricItem = {"dimension": "<dimension>", "question": "<question>", "basis": "<basis>"}
        if self.mode == "all_at_once":
            return [all_items_variables([item, item], self.all_at_once_reader.first_id)]
        return [item_variables(item)]

    def _logprobs_support(self) -> LogprobsSupport:
        """The run's knowledge of whether the judge sends logprobs (a new event loop: a new run)."""
        if self._logprobs is None or self._logprobs.loop is not asyncio.get_running_loop():
            self._logprobs = LogprobsSupport()
        return self._logprobs

    def signature(self) -> RubricItemsSignature:
        sig: RubricItemsSignature = {
            "name": self.name,
            **prompt_signature(self.template, PROMPT_VERSION),
            "mode": self.mode,
            "rubric_field": self.rubric_field,
            "max_attempts": self.max_attempts,
        }
        if self.mode == "per_item":
            sig["p_yes"] = (
                f"first-token logprobs (top {TOP_LOGPROBS}); without them, the share of "
                f"yes over {self.samples} sampled answers at temperature {SAMPLED['temperature']:g}"
            )
        else:
            sig["p_yes"] = "yes (1) or no (0) per item from one JSON answer listing every item"
            if self.all_at_once_reader is not STRICT_READER:  # ours: not named (older runs)
                sig["reader"] = self.all_at_once_reader.name
        if self.empty_questions:
            sig["empty_questions"] = "judged"
        return sig

    def planned_calls(self, sample: Sample) -> int:
        """What a sample reserves of the judge's load (the engine's admission): one request per
        item, or one for all of them."""
        if self.mode == "all_at_once":
            return 1
        raw = sample.get(self.rubric_field)
        return max(1, len(raw)) if isinstance(raw, list) else 1

    def score(self, prediction: Prediction, sample: Sample) -> Score:
        raise InputError(
            "rubric_items needs a judge (--judge URL --judge-model NAME)",
            sample_id=sample.id,
            field="scorers",
        )

    def failed_output_score(self, sample: Sample, output_kind: str = "text") -> Score:
        """No audio from the system under test: it matches nothing, with no judge call."""
        return Score({VALUE: 0.0}, {VALUE: 0.0}, {"failed_output": True})

    def _audio(self, prediction: Prediction, sample: Sample) -> AudioRef:
        if not prediction.audio_path:
            raise InputError("no audio to judge", sample_id=sample.id, field="output.audio_path")
        return AudioRef(prediction.audio_path)

    async def score_async(self, prediction: Prediction, sample: Sample, generate: JudgeGenerate) -> Score:
        items = rubric_of(sample, self.rubric_field, empty_questions=self.empty_questions)
        audio = self._audio(prediction, sample)
        if self.mode == "all_at_once":
            return self._all_result(items, await self._ask_all(audio, items, generate))
        support = self._logprobs_support()
        judged = await asyncio.gather(*(self._ask_item(audio, item, generate, support) for item in items))
        return self._result(items, list(judged))

    async def _ask_item(
        self, audio: AudioRef, item: RubricItem, generate: JudgeGenerate, support: LogprobsSupport
    ) -> ItemAnswers:
        """The item's logprobs answer and, when it gives no P(yes), the sampled answers; no
        logprobs request once the judge answered one without logprobs."""
        messages = item_messages(audio, item, self.template)
        attempts: list[ItemAttempt] = []
        stored: ItemAnswers = {"attempts": attempts}

        async def ask(attempt: int) -> bool:
            answer = None
            try:
                gen = await generate(messages, attempt, has_first_token, LOGPROBS, logprobs=TOP_LOGPROBS)
                answer = gen.text if gen.ok else None
            finally:
                support.heard(answer)  # also on failure: requests waiting for this one go
            attempts.append({"attempt": attempt, "answer": gen.text, "error": gen.error})
            return gen.ok and has_first_token(gen.text or "")  # no yes/no listed: sampled below

        if await support.asks():
            await collect_votes(ask, votes_needed=1, max_attempts=self.max_attempts)
        else:
            stored["logprobs_skipped"] = SKIPPED_WHY
        if _logprob_value(stored) is None and (_usable(stored) or "logprobs_skipped" in stored):
            sampled: list[SampledAttempt] = []

            async def ask_sampled(attempt: int) -> bool:
                gen = await generate(
                    messages, attempt, _sampled_ok, SAMPLED
                )  # own cache keys: other sampling
                verdict = yes_no_answer(gen.text) if gen.ok else None
                sampled.append(
                    {"attempt": attempt, "answer": gen.text, "error": gen.error, "verdict": verdict}
                )
                return verdict is not None

            await collect_votes(ask_sampled, votes_needed=self.samples, max_attempts=2 * self.samples)
            stored["sampled"] = sorted(sampled, key=lambda a: a["attempt"])
        attempts.sort(key=lambda a: a["attempt"])
        return stored

    async def _ask_all(
        self, audio: AudioRef, items: Sequence[RubricItem], generate: JudgeGenerate
    ) -> list[ItemAttempt]:
        reader = self.all_at_once_reader
        messages = all_items_messages(audio, items, self.template, reader.first_id)
        attempts: list[ItemAttempt] = []

        def usable(text: str) -> bool:
            return reader.read(text, len(items)) is not None

        async def ask(attempt: int) -> bool:
            gen = await generate(messages, attempt, usable)
            attempts.append({"attempt": attempt, "answer": gen.text, "error": gen.error})
            return gen.ok and usable(gen.text or "")

        await collect_votes(ask, votes_needed=1, max_attempts=self.max_attempts)
        return sorted(attempts, key=lambda a: a["attempt"])

    # -- reading stored answers (also what rescoring does) ---------------------------------

    def _item_value(self, stored: ItemAnswers) -> ItemValue:
        value = _logprob_value(stored)
        if value is not None:
            return {"p_yes": value[0], "method": "logprobs", "bound": value[1]}
        sampled = [
            yes_no_answer(a.get("answer")) for a in stored.get("sampled") or []
        ]  # read again, as rescoring does
        verdicts = [v for v in sampled if v is not None][: self.samples]
        if stored.get("sampled") is not None and len(verdicts) == self.samples:
            return {"p_yes": sum(v == "yes" for v in verdicts) / len(verdicts), "method": "sampled"}
        last = (stored.get("attempts") or stored.get("sampled") or [{}])[-1]  # sampled: skipped
        return {"p_yes": None, "method": None, "why": last.get("error") or "no yes/no answer"}

    def _result(self, items: Sequence[RubricItem], judged: Sequence[ItemAnswers]) -> Score:
        rows = [{**item, **self._item_value(j), **j} for item, j in zip(items, judged, strict=True)]
        lost = [(i, r) for i, r in enumerate(rows) if r["p_yes"] is None and _unanswered(r)]
        if lost:  # a request that failed (timed out, an endpoint error) is a failure, not an answer
            i, row = lost[0]
            values = [r["p_yes"] for r in rows if r["p_yes"] is not None]
            detail = {
                "mode": "per_item",
                "items": rows,
                "valued": len(values),
                "without_value": len(rows) - len(values),
            }
            raise JudgeFailed(
                f"judge: {len(lost)} of {len(rows)} rubric item(s) got no answer (item {i}: {row.get('why')})",
                detail,
            )
        return self._score(rows, {"mode": "per_item"})

    def _all_result(self, items: Sequence[RubricItem], attempts: list[ItemAttempt]) -> Score:
        read = self.all_at_once_reader.read
        answers = next(
            (got for a in attempts if (got := read(a.get("answer"), len(items))) is not None), None
        )
        rows: list[ItemRow] = []
        for i, item in enumerate(items):
            got = None if answers is None else answers[i]
            row: ItemRow = {
                **item,
                "p_yes": None if got is None else float(got == "yes"),
                "method": "all_at_once",
            }
            if answers is not None and got is None:  # the answer left this item unparsed
                row["why"] = "no yes/no for this item in the answer"
            rows.append(row)
        return self._score(rows, {"mode": "all_at_once", "attempts": attempts})

    def _score(self, rows: list[ItemRow], detail: RubricDetail) -> Score:
        values = [r["p_yes"] for r in rows if r["p_yes"] is not None]
        detail = {**detail, "items": rows, "valued": len(values), "without_value": len(rows) - len(values)}
        if not values:
            raise JudgeFailed(f"judge: no rubric item got a yes/no value ({_why(rows, detail)})", detail)
        score = sum(values) / len(values)
        return Score({VALUE: score}, {VALUE: score}, detail)

    def rescore(self, prediction: Prediction, sample: Sample, stored: RubricDetail) -> Score:
        """The same figures from the stored answers; no judge call."""
        items = [
            {k: r.get(k, "") for k in ("dimension", "question", "basis")}
            | ({"label": r["label"]} if "label" in r else {})
            for r in stored.get("items") or []
        ]
        if stored.get("mode") == "all_at_once":
            return self._all_result(items, list(stored.get("attempts") or []))
        judged: list[ItemAnswers] = []
        for r in stored.get("items") or []:
            answers = ItemAnswers(attempts=r.get("attempts") or [])
            if "logprobs_skipped" in r:
                answers["logprobs_skipped"] = r["logprobs_skipped"]
            if "sampled" in r:
                answers["sampled"] = r["sampled"]
            judged.append(answers)
        return self._result(items, judged)

    def reliability_items(self, stored: RubricDetail) -> list[JudgedItem]:
        """Each rubric item with its votes (`metrics/judge_reliability.py`), read from the
        stored answers: per item, each logprobs request (valid when it gives a P(yes), its
        verdict yes at P(yes) ≥ 0.5) and each sampled answer (yes or no, no P(yes)); all at
        once, each request's answer for every item (the items share the request, P(yes) 1 or
        0). An item's `label` (yes/no, true/false, 1/0), when its rubric has one, is the truth
        its P(yes) is calibrated against."""
        rows = [r for r in stored.get("items") or [] if isinstance(r, Mapping)]
        if stored.get("mode") == "all_at_once":
            return _all_at_once_items(
                rows,
                [a for a in stored.get("attempts") or [] if isinstance(a, Mapping)],
                self.all_at_once_reader,
            )
        return [JudgedItem(_item_votes(r), read_label(r.get("label"), loose=True)) for r in rows]


def _unanswered(stored: ItemAnswers) -> bool:
    """Whether every request of an item failed with no answer (each attempt has an error and
    no text): the judge was never heard, unlike an answer with no yes/no in it."""
    tries = [*(stored.get("attempts") or []), *(stored.get("sampled") or [])]
    return bool(tries) and all(
        isinstance(a, Mapping) and a.get("answer") is None and a.get("error") for a in tries
    )


def _item_votes(row: ItemRow) -> list[JudgeVote]:
    votes = []
    for attempt in row.get("attempts") or []:
        first = read_first_token(attempt.get("answer")) if isinstance(attempt, Mapping) else None
        got = p_yes(first.top_logprobs) if first is not None and first.top_logprobs is not None else None
        if got is None:
            votes.append(JudgeVote(False))
        else:
            votes.append(JudgeVote(True, "yes" if got.value >= 0.5 else "no", p_yes=got.value))
    for attempt in row.get("sampled") or []:
        verdict = yes_no_answer(attempt.get("answer")) if isinstance(attempt, Mapping) else None
        votes.append(JudgeVote(verdict is not None, verdict))
    return votes


def _all_at_once_items(
    rows: Sequence[ItemRow], attempts: Sequence[ItemAttempt], reader: AllAtOnceReader
) -> list[JudgedItem]:
    answers = [(object(), reader.read(a.get("answer"), len(rows))) for a in attempts]
    return [
        JudgedItem(
            [
                JudgeVote(False, request=request)
                if got is None or got[i] is None
                else JudgeVote(True, got[i], p_yes=float(got[i] == "yes"), request=request)
                for request, got in answers
            ],
            read_label(row.get("label"), loose=True),
        )
        for i, row in enumerate(rows)
    ]


def _usable(stored: ItemAnswers) -> bool:
    """The judge answered the logprobs request (without logprobs, or with neither side)."""
    return any(read_first_token(a.get("answer")) is not None for a in stored.get("attempts") or [])


def _logprob_value(stored: ItemAnswers) -> tuple[float, str | None] | None:
    for a in stored.get("attempts") or []:
        first = read_first_token(a.get("answer"))
        if first is not None and first.top_logprobs is not None:
            got = p_yes(first.top_logprobs)
            if got is not None:
                return got.value, got.bound
    return None


def _why(rows: Sequence[ItemRow], detail: RubricDetail) -> str:
    whys = [str(r.get("why")) for r in rows if r.get("why")]
    if whys:
        return whys[-1][:200]
    attempts = detail.get("attempts") or []
    last = attempts[-1] if attempts else {}
    return str(last.get("error") or f"unreadable answer {str(last.get('answer'))[:80]!r}")
