"""MMAR-Rubrics as a judged scorer of the run engine (scorer `mmar_rubrics`, `mcq score --rubrics`).

An item with a prediction and a valid rubric (fields `rubric`, `question`, `reference`,
put on the sample by `source.py`) is eligible. Its answer is matched officially first: an
answer that fails the official match scores 0 with no judge call. A matched answer is put
to the judge (`benchmarks/mcq/rubric_prompt.py`, or a `prompt_file`) until `votes` valid answers, at most
`max_attempts` calls (`judge/votes.collect_votes`); only answers that parse against the
rubric are cached. The item score is the `trimmed_mean` of the valid call scores. Too few
valid answers: the item fails (`JudgeFailed`: recorded with every call, counted, judged
again by a rerun), never scored. Every call is kept in the score's detail, so rescoring
re-reads the stored answers with no judge call.

Value: `rubric_score` (0-1). Items that are not eligible get no value. The metric
`mean:rubric_score` is the mean over the eligible items scored, computed by the pair summary
with its CI per group; `mcq_summary.json` formats it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypedDict

from audioeval.benchmarks.mcq.rubric_prompt import (
    PROMPT_VERSION,
    ItemOutcome,
    RubricItem,
    RubricVariables,
    build_rubric_messages,
    item_outcome,
    parse_rubric,
    parse_rubric_answer,
    rubric_variables,
)
from audioeval.core.errors import InputError
from audioeval.core.sample import Sample
from audioeval.judge.judged_items import JudgedItem, JudgeVote
from audioeval.judge.votes import check_early_stop, collect_votes
from audioeval.prompts.templates import PromptTemplate
from audioeval.scoring.base import Prediction, Score
from audioeval.scoring.judged import (
    JudgedScorer,
    JudgeFailed,
    JudgeGenerate,
    PromptSignature,
    prompt_signature,
)
from audioeval.scoring.mcq_official import official_match
from audioeval.scoring.scorer_hooks import ScorerSignature

SCORER_NAME = "mmar_rubrics"
VALUE = "rubric_score"
REDUCER = "trimmed_mean"


class RubricReading(TypedDict):
    """One judge answer read against the rubric (or the call's error)."""

    raw: str | None
    score: float | None
    scores: list[float]
    error: str | None
    warning: str | None


class RubricAttempt(RubricReading):
    """One judge call of an item, as stored: its reading, its index, endpoint and cache hit."""

    attempt: int
    endpoint: str | None
    cached: bool


class RubricJudgement(TypedDict, total=False):
    """The stored detail of `mmar_rubrics` (`SampleRecord.judge["mmar_rubrics"]`): whether
    the item is eligible, matched officially and judged, the valid call scores, whether it
    failed, its score and every call."""

    eligible: bool
    matched: bool
    judged: bool
    call_scores: list[float]
    failed: bool
    score: float | None
    attempts: list[RubricAttempt]


class McqRubricSignature(ScorerSignature, PromptSignature, total=False):
    """What moves `mmar_rubrics`' scores: its prompt, the valid answers needed, the calls at
    most, how an item's call scores are reduced, what an unmatched answer scores."""

    votes_needed: int
    max_attempts: int
    reducer: str
    unmatched: str


class McqRubricScorer(JudgedScorer[RubricJudgement]):
    """The reasoning of a matched MMAR answer, judged against the item's rubric."""

    reports_reliability = True
    metrics = ()  # not a default metric: `mcq score --rubrics` names it (`source.score_spec`)
    # the mean over the eligible items scored (the others have no statistic), a share (`metrics/declaration.RUBRIC_SCORE`)
    extra_metrics = (f"mean:{VALUE}",)

    def __init__(self, *, votes: int = 5, max_attempts: int = 20, early_stop: bool = False) -> None:
        if votes < 1 or max_attempts < votes:
            raise InputError("mmar_rubrics: votes must be ≥ 1 and max_attempts ≥ votes", field="scorers")
        if early_stop:
            try:
                check_early_stop(REDUCER, SCORER_NAME)
            except ValueError as exc:
                raise InputError(str(exc), field="scorers.mmar_rubrics.early_stop") from None
        self.name = SCORER_NAME
        self.votes = votes
        self.max_attempts = max_attempts
        self.template: PromptTemplate | None = None  # a prompt file (`prompt_file`), else ours

    def use_prompt(self, template: PromptTemplate) -> None:
        """Judge with a prompt template file (`rubric_prompt.rubric_variables` says what it gets)."""
        self.template = template

    def prompt_examples(self) -> list[RubricVariables]:
        rubric = (RubricItem("<name>", "<scoring point>", (0.0, 1.0)),)
        return [
            rubric_variables(question="<question>", answer="<answer>", reference="<reference>",
                             rubric=rubric, thinking=thinking, prediction="<prediction>")
            for thinking in ("<thinking>", None)
        ]  # fmt: skip

    def signature(self) -> McqRubricSignature:
        return {
            "name": self.name,
            **prompt_signature(self.template, PROMPT_VERSION),
            "votes_needed": self.votes,
            "max_attempts": self.max_attempts,
            "reducer": REDUCER,
            "unmatched": "0, not judged",
        }

    def score(self, prediction: Prediction, sample: Sample) -> Score:
        raise InputError("mmar_rubrics needs a judge", sample_id=sample.id, field="scorers")

    def failed_output_score(self, sample: Sample, output_kind: str = "text") -> Score:
        """No prediction: not eligible, nothing to count."""
        return Score({}, {}, {"eligible": False})

    def _rubric(self, prediction: Prediction, sample: Sample) -> tuple[RubricItem, ...] | None:
        raw = sample.get("rubric")
        if prediction.raw is None or raw is None:
            return None
        return parse_rubric(raw)  # validated when the samples were built

    def planned_calls(self, sample: Sample) -> int:
        """Every vote of an item with a rubric (an answer that does not match asks none; the
        match is known only once the model answered)."""
        return self.votes if sample.get("rubric") is not None else 0

    def _matched(self, prediction: Prediction, sample: Sample) -> bool:
        choices = [str(c) for c in sample.get("choices") or ()]
        return official_match(str(sample.get("answer")), prediction.raw or "", choices).correct

    async def score_async(self, prediction: Prediction, sample: Sample, generate: JudgeGenerate) -> Score:
        rubric = self._rubric(prediction, sample)
        if rubric is None:
            return Score({}, {}, {"eligible": False})
        if not self._matched(prediction, sample):
            return _unmatched()
        messages = build_rubric_messages(
            question=str(sample.get("question")),
            answer=str(sample.get("answer")),
            reference=str(sample.get("reference")),
            rubric=rubric,
            thinking=sample.get("thinking"),
            prediction=prediction.raw or "",
            template=self.template,
        )
        attempts: list[RubricAttempt] = []

        async def call(index: int) -> bool:
            gen = await generate(messages, index, lambda text: parse_rubric_answer(text, rubric).valid)
            attempts.append(
                RubricAttempt(**_read(gen.text if gen.ok else None, gen.error, rubric), attempt=index,
                              endpoint=gen.endpoint, cached=gen.cached)
            )  # fmt: skip
            return attempts[-1]["score"] is not None

        await collect_votes(call, votes_needed=self.votes, max_attempts=self.max_attempts)
        attempts.sort(key=lambda a: a["attempt"])
        return self._result(attempts)

    def _result(self, attempts: list[RubricAttempt]) -> Score:
        outcome: ItemOutcome = item_outcome(
            [a["score"] for a in attempts if a["score"] is not None], self.votes, REDUCER
        )
        detail = RubricJudgement(eligible=True, matched=True, judged=True, **outcome, attempts=attempts)
        if outcome["failed"]:
            raise JudgeFailed(f"judge: {failure_reason(detail)}", dict(detail))
        return Score({VALUE: outcome["score"]}, {VALUE: outcome["score"]}, dict(detail))

    def rescore(self, prediction: Prediction, sample: Sample, stored: RubricJudgement) -> Score:
        """The stored judge answers read again against the rubric; no judge call."""
        rubric = self._rubric(prediction, sample)
        if rubric is None:
            return Score({}, {}, {"eligible": False})
        if not self._matched(prediction, sample):
            return _unmatched()
        attempts = [
            RubricAttempt(
                **{**a, **_read(a.get("raw"), a.get("error") if a.get("raw") is None else None, rubric)}
            )
            for a in stored.get("attempts") or []
        ]
        return self._result(attempts)

    def reliability_items(self, stored: RubricJudgement) -> list[JudgedItem]:
        """Each rubric item of a judged answer, with the score every judge call gave it
        (`metrics/judge_reliability.py`); the items of one call share its request, so the
        valid-answer rate counts calls. Read from the stored answers (a rescore reads them
        again against the rubric first)."""
        attempts = [a for a in stored.get("attempts") or [] if isinstance(a, Mapping)]
        if not attempts:
            return []
        reads = [(object(), _item_scores(a)) for a in attempts]
        n_items = max((len(scores) for _, scores in reads if scores is not None), default=0)
        if n_items == 0:  # no valid call: how many items there were is unknown
            return [JudgedItem([JudgeVote(False, request=request) for request, _ in reads])]
        return [
            JudgedItem(
                [
                    JudgeVote(True, f"{scores[i]:g}", request=request)
                    if scores is not None and len(scores) == n_items
                    else JudgeVote(False, request=request)
                    for request, scores in reads
                ]
            )
            for i in range(n_items)
        ]


def _item_scores(attempt: RubricAttempt) -> list[float] | None:
    """The per-item scores of a valid stored call, None for an invalid one."""
    scores = attempt.get("scores")
    if attempt.get("score") is None or not isinstance(scores, list) or not scores:
        return None
    return [float(x) for x in scores]


def _read(raw: str | None, error: str | None, rubric: Sequence[RubricItem]) -> RubricReading:
    """One judge answer read against the rubric (or the call's error)."""
    if raw is None:
        return {"raw": None, "score": None, "scores": [], "error": error, "warning": None}
    parsed = parse_rubric_answer(raw, rubric)
    return {
        "raw": raw,
        "score": parsed.score,
        "scores": list(parsed.scores),
        "error": parsed.error,
        "warning": parsed.warning,
    }


def _unmatched() -> Score:
    detail = RubricJudgement(eligible=True, matched=False, judged=False, call_scores=[], failed=False,
                             score=0.0, attempts=[])  # fmt: skip
    return Score({VALUE: 0.0}, {VALUE: 0.0}, dict(detail))


def failure_reason(detail: RubricJudgement) -> str:
    """How many valid judge answers after how many calls, and the last error."""
    attempts = detail.get("attempts") or []
    last = next((a["error"] for a in reversed(attempts) if a.get("error")), None)
    valid = len(detail.get("call_scores") or [])
    return f"{valid} valid judge answer(s) after {len(attempts)} call(s)" + (
        f" (last error: {last})" if last else ""
    )
