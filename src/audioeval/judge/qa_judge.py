"""An LLM judge of open answers (scorer `qa_judge`): is the model's answer correct, given the
question and the reference answer?

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

Value: `judge_correct` (1.0 or 0.0), aggregated by the metric `mean:judge_correct`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from audioeval.core.errors import InputError
from audioeval.core.messages import Message
from audioeval.core.sample import Sample
from audioeval.judge.judged_items import JudgedItem, JudgeVote
from audioeval.judge.votes import EARLY_STOP_NAME, collect_votes, majority_to_decide, reduce_votes
from audioeval.postprocess.outcome import Unparseable
from audioeval.postprocess.think_tags import strip_think
from audioeval.postprocess.yes_no import parse_yes_no
from audioeval.scoring.base import Prediction, Score
from audioeval.scoring.judged import JudgeFailed, JudgeGenerate

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


def _verdict(answer: str | None) -> str | None:
    if answer is None:
        return None
    parsed = parse_yes_no(strip_think(answer))
    return None if isinstance(parsed, Unparseable) else parsed


def _is_verdict(answer: str) -> bool:
    """Only answers that say yes or no are cached."""
    return _verdict(answer) is not None


class QaJudgeScorer:
    """Correctness of an open answer, by an LLM judge."""

    needs_judge = True
    metrics = (f"mean:{VALUE}",)

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
        if votes < 1 or max_attempts < votes:
            raise InputError("qa_judge: votes must be ≥ 1 and max_attempts ≥ votes", field="scorers.qa_judge")
        if not isinstance(early_stop, bool):
            raise InputError(
                f"qa_judge: early_stop must be true or false, not {early_stop!r}", field="scorers.qa_judge"
            )
        self.early_stop = early_stop
        self.name = SCORER_NAME
        self.votes = votes
        self.max_attempts = max_attempts
        self.question_field = question_field
        self.answer_field = answer_field
        self.asr_model = asr_model
        self.language = language
        self._asr: Any = None

    def signature(self) -> dict[str, Any]:
        sig: dict[str, Any] = {
            "name": self.name,
            "prompt_version": PROMPT_VERSION,
            "votes_needed": self.votes,
            "max_attempts": self.max_attempts,
            "majority": "strict majority of valid yes/no votes",
            "fields": [self.question_field, self.answer_field],
        }
        if self.asr_model is not None or self.language != "en":
            sig["asr"] = {"model": self.asr_model, "language": self.language}
        if self.early_stop:  # only when on: folders judged without it keep their signature
            sig["early_stop"] = EARLY_STOP_NAME
        return sig

    def score(self, prediction: Prediction, sample: Sample) -> Score:
        raise InputError(
            "qa_judge needs a judge (--judge URL --judge-model NAME)", sample_id=sample.id, field="scorers"
        )

    def _candidate(self, prediction: Prediction, sample: Sample) -> tuple[str, str | None]:
        """(the answer to judge, its ASR transcript when it was spoken)."""
        if prediction.audio_path:
            from audioeval.audio.decode import load_clip
            from audioeval.scoring.speech_models.asr import AsrConfig, load_asr

            if self._asr is None:
                self._asr = load_asr(AsrConfig(model=self.asr_model, language=self.language))
            clip = load_clip(prediction.audio_path, sample_id=sample.id, field="output.audio_path")
            transcript = self._asr.transcribe(clip.samples, clip.sample_rate)
            return transcript, transcript
        if prediction.text is None:
            raise InputError("no answer to judge", sample_id=sample.id, field="output")
        return prediction.text, None

    def _field(self, sample: Sample, name: str) -> str:
        value = sample.get(name)
        if value is None or str(value).strip() == "":
            raise InputError(f"qa_judge needs the field {name!r}", sample_id=sample.id, field=name)
        return str(value)

    async def score_async(self, prediction: Prediction, sample: Sample, generate: JudgeGenerate) -> Score:
        question = self._field(sample, self.question_field)
        reference = self._field(sample, self.answer_field)
        candidate, transcript = await asyncio.to_thread(self._candidate, prediction, sample)
        messages = judge_messages(question, reference, candidate)
        attempts: list[dict[str, Any]] = []

        async def ask(attempt: int) -> bool:
            gen = await generate(messages, attempt, _is_verdict)
            verdict = _verdict(gen.text) if gen.ok else None
            attempts.append({"attempt": attempt, "answer": gen.text, "error": gen.error, "verdict": verdict})
            return verdict is not None

        def to_decide() -> int:
            done = sorted(attempts, key=lambda a: a["attempt"])
            return majority_to_decide([a["verdict"] == "yes" for a in done if a["verdict"]], self.votes)

        await collect_votes(
            ask,
            votes_needed=self.votes,
            max_attempts=self.max_attempts,
            to_decide=to_decide if self.early_stop else None,
        )
        attempts.sort(key=lambda a: a["attempt"])
        return self._result(attempts, candidate, transcript)

    def _result(self, attempts: list[dict[str, Any]], candidate: str, transcript: str | None) -> Score:
        yes = [a["verdict"] == "yes" for a in attempts if a.get("verdict") is not None]
        outcome = reduce_votes(yes, self.votes, "strict_majority", early_stop=self.early_stop)
        detail: dict[str, Any] = {"attempts": attempts, "candidate": candidate}
        if self.early_stop:
            detail["votes_not_asked"] = outcome.not_asked
        if transcript is not None:
            detail["transcript"] = transcript
        if outcome.score is None:
            last = attempts[-1] if attempts else {}
            why = last.get("error") or f"unreadable answer {str(last.get('answer'))[:80]!r}"
            raise JudgeFailed(
                f"judge: {len(outcome.votes)} valid vote(s) of {self.votes} after {len(attempts)} attempt(s) ({why})",
                detail,
            )
        detail["votes"] = ["yes" if v else "no" for v in outcome.votes]
        return Score({VALUE: outcome.score}, {VALUE: outcome.score}, detail)

    def failed_output_score(self, sample: Sample) -> Score:
        """No answer from the system under test: wrong, with no judge call."""
        return Score({VALUE: 0.0}, {VALUE: 0.0}, {"failed_output": True})

    def rescore(self, prediction: Prediction, sample: Sample, stored: Mapping[str, Any]) -> Score:
        """Re-parse the stored judge answers; no judge call, no ASR."""
        attempts = [{**a, "verdict": _verdict(a.get("answer"))} for a in stored.get("attempts") or []]
        return self._result(attempts, str(stored.get("candidate", "")), stored.get("transcript"))

    def reliability_items(self, stored: Mapping[str, Any]) -> list[JudgedItem]:
        """The judged answer with its yes/no votes, stored answers parsed again
        (`metrics/judge_reliability.py`); a sample the judge was not asked about has none."""
        attempts = [a for a in stored.get("attempts") or [] if isinstance(a, Mapping)]
        if not attempts:
            return []
        verdicts = [_verdict(a.get("answer")) for a in attempts]  # as `rescore` reads them
        return [JudgedItem([JudgeVote(v is not None, v) for v in verdicts])]
