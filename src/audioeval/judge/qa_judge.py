"""An LLM judge of open answers (scorer `qa_judge`): is the model's answer correct, given the
question and the reference answer? The asking is `judge/answer_judge.py`'s.

For spoken QA the answer is what the model said: with audio output, the embedded ASR model
transcribes it (as UltraEval-Audio scores speech answers through a Whisper transcript);
otherwise the processed text answer is judged. The judge answers yes or no (English or
Chinese, `postprocess/yes_no.py`); an answer that says neither is an invalid vote, asked again
(attempt index in the cache key) up to `max_attempts`. With `votes` valid votes the sample is
correct when a strict majority says yes. Too few valid votes: the sample fails (recorded,
counted, never scored). Every attempt is kept in the score's detail, so rescoring re-parses the
stored answers with no judge call.

`early_stop: true` (off by default): the sample stops once the votes still missing could not
change the majority (`judge/votes.py`); `votes_not_asked` is kept in the detail, and the
setting joins the signature only when on.

The prompt is built here (`judge_messages`, version `qa-judge-v1`; a `prompt_file` template
gets `question`, `reference` and `response`), with no sampling of its own, and each attempt is stored as one `answer`, `error` and `verdict`: stored run folders and
response caches keep their keys.

Value: `judge_correct` (1.0 or 0.0), aggregated by the metric `mean:judge_correct`.
"""

from __future__ import annotations

from typing import Any

from audioeval.core.errors import InputError
from audioeval.core.messages import Message
from audioeval.core.sample import Sample
from audioeval.judge.answer_judge import AnswerAttempt, AnswerJudge, AnswerJudgeSignature, YesNoVotes

SCORER_NAME = "qa_judge"
PROMPT_VERSION = "qa-judge-v1"
VALUE = "judge_correct"

SYSTEM = (
    "You grade answers to questions. Decide whether the candidate answer is correct: it must "
    "agree with the reference answer in meaning; wording, extra explanation and spoken-style "
    "phrasing do not matter. Reply with one word: yes or no."
)


def judge_messages(question: str, reference: str, candidate: str) -> list[Message]:
    user = (
        f"Question: {question}\n"
        f"Reference answer: {reference}\n"
        f"Candidate answer: {candidate}\n"
        "Is the candidate answer correct? Reply yes or no."
    )
    return [Message.text("system", SYSTEM), Message.text("user", user)]


class QaJudgeScorer(YesNoVotes, AnswerJudge):
    """Correctness of an open answer, by an LLM judge."""

    name = SCORER_NAME
    prompt_version = PROMPT_VERSION
    value = VALUE
    vote_key = "verdict"

    def __init__(
        self,
        *,
        votes: int = 1,
        max_attempts: int = 3,
        question_field: str = "question",
        answer_field: str = "answer",
        asr_model: str | None = None,
        language: str | None = "en",
        early_stop: bool = False,
    ) -> None:
        self.fields = (question_field, answer_field)
        super().__init__(
            votes=votes,
            max_attempts=max_attempts,
            asr_model=asr_model,
            language=language,
            early_stop=early_stop,
        )

    def extra_signature(self) -> AnswerJudgeSignature:
        return {"majority": "strict majority of valid yes/no votes"}

    def field(self, sample: Sample, name: str) -> str:
        """A field as `str` writes it (a list too, unlike the shipped prompts' " / " join)."""
        value = sample.get(name)
        if value is None or str(value).strip() == "":
            raise InputError(f"qa_judge needs the field {name!r}", sample_id=sample.id, field=name)
        return str(value)

    def variables(self, sample: Sample, candidate: str, view: str) -> dict[str, str]:
        question, reference = (self.field(sample, name) for name in self.fields)
        return {"question": question, "reference": reference, "response": candidate}

    def messages(self, sample: Sample, candidate: str, view: str) -> list[Message]:
        if self.template is not None:  # a prompt file (`prompt_file`)
            return super().messages(sample, candidate, view)
        question, reference = (self.field(sample, name) for name in self.fields)
        return judge_messages(question, reference, candidate)

    # one answer per attempt, stored as `answer`, `error` and `verdict`

    def attempt_record(
        self, attempt: int, answers: list[str | None], errors: list[str | None], vote: Any
    ) -> AnswerAttempt:
        return {"attempt": attempt, "answer": answers[0], "error": errors[0], "verdict": vote}

    def stored_answers(self, record: AnswerAttempt) -> list[str | None]:
        answer = record.get("answer")
        return [answer if isinstance(answer, str) else None]

    def failure_reason(self, record: AnswerAttempt) -> str:
        return record.get("error") or f"unreadable answer {str(record.get('answer'))[:80]!r}"
