"""The shared mechanics of LLM judges that grade one model answer: `qa_judge`, `chat_rating`,
`voicebench_open`, `voicebench_qa` (one request per vote) and `airbench_chat` (one or two
requests per vote, one per answer order).

The answer judged is what the model said: with audio output, the embedded ASR model's
transcript (as UltraEval-Audio and VoiceBench judge a transcript of speech answers); otherwise
the processed text answer. Each vote renders the scorer's prompt template (shipped in
`prompts/templates/`, its `name` is the prompt version and its digest joins the signature, so
a changed prompt never reuses old scores; a scorer whose prompt is built in code names its
`prompt_version` instead; `prompt_file: FILE`, any judged scorer's argument, puts a template
file in its place: `use_prompt`) once per *view* (the request variants a vote needs), sends them with
the scorer's sampling (`extra`: part of the cache key), and reads each answer with the
scorer's parser. A vote is valid when every view's answer parses; an invalid vote is asked
again (a new attempt index, so a new cache key) through `collect_votes` up to `max_attempts`.
The valid votes are reduced by the scorer's named `reducer` (`judge/votes.py`). Too few valid
votes: the sample fails (recorded, counted, never scored). Every attempt's answers are kept in
the score's detail, so `rescore` re-reads them with no call.

`early_stop: true` (off by default, for scorers whose reducer has a rule in `DECIDERS`): the
sample stops once the votes still missing could not change the verdict; `votes_not_asked` is
kept in the detail, and the setting joins the signature only when on.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any, Literal, TypedDict

from audioeval.adapters.chat_wire import SamplingFields
from audioeval.core.errors import InputError
from audioeval.core.messages import Message
from audioeval.core.request_settings import checked_settings
from audioeval.core.sample import Sample
from audioeval.judge.judged_items import JudgedItem, JudgeVote
from audioeval.judge.votes import (
    DECIDERS,
    EARLY_STOP_NAME,
    check_early_stop,
    collect_votes,
    first_votes,
    reduce_votes,
)
from audioeval.postprocess.outcome import Unparseable
from audioeval.postprocess.think_tags import strip_think
from audioeval.postprocess.yes_no import parse_yes_no
from audioeval.prompts.templates import PromptTemplate, load_template, render
from audioeval.scoring.base import Prediction, Score
from audioeval.scoring.judged import JudgedScorer, JudgeFailed, JudgeGenerate
from audioeval.scoring.scorer_hooks import ScorerSignature

SAMPLING_KEYS = ("temperature", "top_p", "max_tokens")


class AnswerAttempt(TypedDict, total=False):
    """One attempt of a vote, as the score's detail stores it: each view's answer and error,
    and the vote read from them (None: not a valid vote). A judge of one view per vote
    (`qa_judge`) stores `answer`, `error` and `verdict` instead."""

    attempt: int
    answers: list[str | None]
    errors: list[str | None]
    vote: Any  # the parsed vote (JSON: "yes", a rating, a pair of ratings)
    answer: str | None
    error: str | None
    verdict: Any


class AnswerDetail(TypedDict, total=False):
    """What an answer judge keeps in a score's detail (`rescore` reads it back)."""

    attempts: list[AnswerAttempt]
    candidate: str
    transcript: str  # the ASR transcript of a spoken answer
    votes: list[Any]  # the valid votes counted, in attempt order
    votes_not_asked: int  # with early stop: the votes the verdict did not need
    failed_output: bool  # no answer from the system under test: no judge call


class AsrChoice(TypedDict):
    model: str | None
    language: str | None


class AnswerJudgeSignature(ScorerSignature, total=False):
    prompt_version: str | None
    prompt_digest: str
    votes_needed: int
    max_attempts: int
    sampling: SamplingFields
    fields: list[str]
    asr: AsrChoice
    early_stop: str
    majority: str  # yes/no judges: how the votes decide
    scale: list[float]  # rating judges
    parser: str
    reducer: str
    orders: list[str]  # a judge asking each vote in several views: the orders the answers are shown in


class AnswerJudge(JudgedScorer[AnswerDetail]):
    """Base class: subclasses set the class attributes and the hooks marked below."""

    reports_reliability = True
    name: str
    prompt: str | None = None  # the shipped judge prompt template (None: `messages` is overridden)
    prompt_version: str | None = None  # the version of a prompt built in code (when `prompt` is None)
    value: str  # the headline value of a sample
    reducer: str  # the named reducer of the valid votes (`judge/votes.py` REDUCERS)
    fields: tuple[str, ...] = ()  # the sample fields the prompt shows (set before `__init__`)
    default_votes = 1
    default_sampling: SamplingFields = {}
    views: tuple[str, ...] = ("",)  # one request per view and vote

    def __init__(
        self,
        *,
        votes: int | None = None,
        max_attempts: int | None = None,
        sampling: SamplingFields | None = None,
        asr_model: str | None = None,
        language: str | None = "en",
        early_stop: bool = False,
    ) -> None:
        self.votes = self.default_votes if votes is None else votes
        self.max_attempts = self.votes + 2 if max_attempts is None else max_attempts
        if not isinstance(self.votes, int) or self.votes < 1 or self.max_attempts < self.votes:
            raise InputError(
                f"{self.name}: votes must be ≥ 1 and max_attempts ≥ votes", field=f"scorers.{self.name}"
            )
        given = {**self.default_sampling, **(sampling or {})}
        try:  # typed as every request setting is (core/request_settings.py), three of them here
            checked = checked_settings(given, field=f"scorers.{self.name}.sampling", allowed=SAMPLING_KEYS)
        except InputError as exc:
            raise InputError(f"{self.name}: {exc.message}", field=exc.field) from None
        self.sampling = {k: checked.get(k) for k in given}  # a key set to null stays: unset
        if not isinstance(early_stop, bool):
            raise InputError(
                f"{self.name}: early_stop must be true or false, not {early_stop!r}",
                field=f"scorers.{self.name}",
            )
        if early_stop:
            try:
                check_early_stop(self.reducer, self.name)
            except ValueError as exc:
                raise InputError(str(exc), field=f"scorers.{self.name}.early_stop") from None
        self.early_stop = early_stop
        self.asr_model = asr_model
        self.language = language
        self.template: PromptTemplate | None = None if self.prompt is None else load_template(self.prompt)
        self._asr: Any = None

    # -- hooks ------------------------------------------------------------------------------

    def variables(self, sample: Sample, candidate: str, view: str) -> dict[str, str]:
        """The prompt variables of one view of the sample's answer."""
        raise NotImplementedError

    def read(self, answer: str, view: str) -> Any:
        """The parsed answer of one view (JSON-able), or None when it is not a valid vote."""
        raise NotImplementedError

    def vote(self, parsed: Sequence[Any]) -> Any:
        """One valid vote from the parsed answers of its views (in `views` order)."""
        return parsed[0]

    def ballots(self, votes: list[Any]) -> list[Any]:
        """The valid votes as the reducer reads them (e.g. True for a "yes")."""
        return votes

    def values(self, votes: list[Any]) -> dict[str, float] | None:
        """The sample's values from its valid votes in attempt order, reduced by `reducer`
        (with early stop, decided ones may be fewer than `votes`); None when too few are valid."""
        outcome = reduce_votes(self.ballots(votes), self.votes, self.reducer, early_stop=self.early_stop)
        return None if outcome.score is None else {self.value: outcome.score}

    def verdict(self, parsed: Any, view: str) -> str:
        """The category of one parsed answer, for the reliability figures."""
        return str(parsed)

    def order(self, view: str) -> tuple[str, ...] | None:
        """The order in which a view showed the answers (None: one answer shown)."""
        return None

    def failed_output_values(self) -> dict[str, float]:
        """The values of a sample the model gave no answer for (no judge call)."""
        raise NotImplementedError

    def extra_signature(self) -> AnswerJudgeSignature:
        return {}

    def use_prompt(self, template: PromptTemplate) -> None:
        """Judge with a prompt template file (`prompt_file`) in place of the built-in prompt:
        rendered with `variables` per view; its name and digest join the signature."""
        self.template = template

    def prompt_examples(self) -> list[dict[str, str]]:
        """The variables of each view for a sample whose fields hold their own names (what a
        prompt file is checked with at load)."""
        probe = Sample("<sample>", fields={name: f"<{name}>" for name in self.fields})
        return [self.variables(probe, "<response>", view) for view in self.views]

    def messages(self, sample: Sample, candidate: str, view: str) -> list[Message]:
        """The judge request of one view: the prompt template rendered with `variables`."""
        if self.template is None:
            raise NotImplementedError(f"{self.name}: no prompt template; override `messages`")
        return render(self.template, self.variables(sample, candidate, view), sample_id=sample.id)

    # -- one attempt as the score's detail stores it (`rescore` reads it back) --------------

    vote_key: Literal["vote", "verdict"] = "vote"

    def attempt_record(
        self, attempt: int, answers: list[str | None], errors: list[str | None], vote: Any
    ) -> AnswerAttempt:
        return {"attempt": attempt, "answers": answers, "errors": errors, self.vote_key: vote}

    def stored_answers(self, record: AnswerAttempt) -> list[str | None]:
        """The answers of a stored attempt, one per view (None where there was none)."""
        return _answers(record, len(self.views))

    def failure_reason(self, record: AnswerAttempt) -> str:
        """Why the last attempt of a failed sample gave no valid vote."""
        errors = [e for e in record.get("errors") or [] if e]
        return errors[0] if errors else f"unreadable answer {str(record.get('answers'))[:120]!r}"

    # -- the scorer ------------------------------------------------------------------------

    @property
    def metrics(self) -> tuple[str, ...]:
        return (f"mean:{self.value}",)

    def signature(self) -> AnswerJudgeSignature:
        sig: AnswerJudgeSignature = {"name": self.name}
        if self.template is None:
            sig["prompt_version"] = self.prompt_version
        else:
            sig.update(prompt_version=self.template.name, prompt_digest=self.template.digest)
        sig.update(votes_needed=self.votes, max_attempts=self.max_attempts)
        if self.sampling:  # a scorer with no sampling of its own keeps it out
            sig["sampling"] = dict(self.sampling)
        sig.update(self.extra_signature())
        if self.fields:
            sig["fields"] = list(self.fields)
        if self.asr_model is not None or self.language != "en":
            sig["asr"] = {"model": self.asr_model, "language": self.language}
        if self.early_stop:  # only when on: folders judged without it keep their signature
            sig["early_stop"] = EARLY_STOP_NAME
        return sig

    def planned_calls(self, sample: Sample) -> int:
        """Judge calls a sample's first round needs (the engine's admission): every vote, or
        with early stop the votes that could decide the verdict."""
        first = DECIDERS[self.reducer]([], self.votes) if self.early_stop else self.votes
        return first * len(self.views)

    def score(self, prediction: Prediction, sample: Sample) -> Score:
        raise InputError(
            f"{self.name} needs a judge (--judge URL --judge-model NAME)",
            sample_id=sample.id,
            field="scorers",
        )

    def field(self, sample: Sample, name: str) -> str:
        """A text field the prompt shows (a list, e.g. accepted answers, joined by " / ")."""
        value = sample.get(name)
        if isinstance(value, list | tuple):
            value = " / ".join(str(v) for v in value if str(v).strip())
        if value is None or str(value).strip() == "":
            raise InputError(f"{self.name} needs the field {name!r}", sample_id=sample.id, field=name)
        return str(value)

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

    def _read(self, answer: str | None, view: str) -> Any:
        return None if answer is None else self.read(strip_think(answer), view)

    def _vote(self, answers: Sequence[str | None]) -> Any:
        parsed = [self._read(a, v) for a, v in zip(answers, self.views, strict=True)]
        return None if any(p is None for p in parsed) else self.vote(parsed)

    async def score_async(self, prediction: Prediction, sample: Sample, generate: JudgeGenerate) -> Score:
        for name in self.fields:  # a sample that cannot be judged fails before any ASR
            self.field(sample, name)
        candidate, transcript = await asyncio.to_thread(self._candidate, prediction, sample)
        requests = [self.messages(sample, candidate, view) for view in self.views]
        extra = dict(self.sampling) or None
        attempts: list[AnswerAttempt] = []

        async def ask(attempt: int) -> bool:
            gens = await asyncio.gather(
                *(
                    generate(messages, attempt, lambda text, v=view: self._read(text, v) is not None, extra)
                    for messages, view in zip(requests, self.views, strict=True)
                )
            )
            answers = [g.text if g.ok else None for g in gens]
            vote = self._vote(answers)
            attempts.append(self.attempt_record(attempt, answers, [g.error for g in gens], vote))
            return vote is not None

        def to_decide() -> int:
            done = sorted(attempts, key=lambda a: a["attempt"])
            votes = [a[self.vote_key] for a in done if a[self.vote_key] is not None]
            return DECIDERS[self.reducer](self.ballots(votes), self.votes)

        await collect_votes(
            ask,
            votes_needed=self.votes,
            max_attempts=self.max_attempts,
            to_decide=to_decide if self.early_stop else None,
        )
        attempts.sort(key=lambda a: a["attempt"])
        return self._result(attempts, candidate, transcript)

    def _result(self, attempts: list[AnswerAttempt], candidate: str, transcript: str | None) -> Score:
        votes = [a[self.vote_key] for a in attempts if a.get(self.vote_key) is not None]
        values = self.values(votes)
        detail: AnswerDetail = {"attempts": attempts, "candidate": candidate}
        if self.early_stop:  # decided before every vote was asked: the votes left out
            detail["votes_not_asked"] = (
                0 if values is None else self.votes - len(first_votes(votes, self.votes))
            )
        if transcript is not None:
            detail["transcript"] = transcript
        if values is None:
            why = self.failure_reason(attempts[-1] if attempts else {})
            raise JudgeFailed(
                f"judge: {len(votes)} valid vote(s) of {self.votes} after {len(attempts)} attempt(s) ({why})",
                detail,
            )
        detail["votes"] = first_votes(votes, self.votes)
        return Score(dict(values), dict(values), detail)

    def failed_output_score(self, sample: Sample, output_kind: str = "text") -> Score:
        """No answer from the system under test: the worst values, with no judge call."""
        values = self.failed_output_values()
        return Score(dict(values), dict(values), {"failed_output": True})

    def rescore(self, prediction: Prediction, sample: Sample, stored: AnswerDetail) -> Score:
        """Re-read the stored judge answers; no judge call, no ASR."""
        attempts = [
            {**a, self.vote_key: self._vote(self.stored_answers(a))}
            for a in stored.get("attempts") or []
            if isinstance(a, Mapping)
        ]
        return self._result(attempts, str(stored.get("candidate", "")), stored.get("transcript"))

    def reliability_items(self, stored: AnswerDetail) -> list[JudgedItem]:
        """The judged answer with one vote per request, stored answers read again
        (`metrics/judge_reliability.py`); a sample the judge was not asked about has none."""
        votes: list[JudgeVote] = []
        for a in stored.get("attempts") or []:
            if not isinstance(a, Mapping):
                continue
            for answer, view in zip(self.stored_answers(a), self.views, strict=True):
                parsed = self._read(answer, view)
                verdict = None if parsed is None else self.verdict(parsed, view)
                votes.append(JudgeVote(parsed is not None, verdict, order=self.order(view)))
        return [JudgedItem(votes)] if votes else []


def _answers(attempt: AnswerAttempt, n: int) -> list[str | None]:
    answers = attempt.get("answers")
    if not isinstance(answers, list) or len(answers) != n:
        return [None] * n
    return [a if isinstance(a, str) else None for a in answers]


class YesNoVotes:
    """Hooks of a judge whose vote is a yes or a no and whose value is the strict majority
    (`qa_judge`, `voicebench_qa`); a sample the model gave no answer for is wrong."""

    value = "judge_correct"
    reducer = "strict_majority"

    def read(self, answer: str, view: str) -> str | None:
        parsed = parse_yes_no(answer)
        return None if isinstance(parsed, Unparseable) else parsed

    def ballots(self, votes: list[Any]) -> list[Any]:
        return [v == "yes" for v in votes]

    def failed_output_values(self) -> dict[str, float]:
        """No answer from the system under test: wrong, with no judge call."""
        return {self.value: 0.0}
