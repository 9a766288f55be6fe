"""LLM judges that rate one open-ended reply on a scale (`judge/answer_judge.py` does the asking).

- `chat_rating` (SpeechAlpacaEval, as UltraEval-Audio scores it): an MT-Bench-style
  single-answer judge; the reply gets 1–10, read from "[[n]]" (`postprocess/ratings.py`); one
  vote at temperature 0 (UltraEval-Audio: GPT-4o-mini, temperature 0, max_tokens 2048).
- `RatingJudge`, the rating mechanics, is shared: a benchmark's own rating judge subclasses it in
  its folder (VoiceBench's 1–5 judge: `benchmarks/voicebench/open_judge.py`).

Votes are reduced by a named reducer of `judge/votes.py` (`mean` by default, or
`trimmed_mean`), named in the signature. A reply the judge cannot rate on the scale is an
invalid vote, asked again up to `max_attempts`. No reply from the model: the lowest rating.
"""

from __future__ import annotations

from typing import Any

from audioeval.adapters.chat_wire import SamplingFields
from audioeval.core.errors import InputError
from audioeval.core.sample import Sample
from audioeval.judge.answer_judge import AnswerJudge, AnswerJudgeSignature
from audioeval.postprocess.outcome import Unparseable
from audioeval.postprocess.ratings import bracket_rating, rating

RATING_REDUCERS = ("mean", "trimmed_mean")


class RatingJudge(AnswerJudge):
    """One reply rated on the scale `low`–`high`; the sample's value is the reduced rating."""

    low: float
    high: float
    bare_number: bool  # a bare number is a rating too (else only "[[n]]")

    def __init__(
        self,
        *,
        instruction_field: str = "instruction",
        reducer: str = "mean",
        votes: int | None = None,
        max_attempts: int | None = None,
        sampling: SamplingFields | None = None,
        asr_model: str | None = None,
        language: str | None = "en",
    ) -> None:
        if reducer not in RATING_REDUCERS:
            raise InputError(
                f"{self.name}: reducer must be one of {list(RATING_REDUCERS)}, not {reducer!r}",
                field=f"scorers.{self.name}.reducer",
            )
        self.reducer = reducer
        self.fields = (instruction_field,)
        super().__init__(
            votes=votes, max_attempts=max_attempts, sampling=sampling, asr_model=asr_model, language=language
        )

    def extra_signature(self) -> AnswerJudgeSignature:
        return {
            "scale": [self.low, self.high],
            "parser": "number or [[n]]" if self.bare_number else "[[n]]",
            "reducer": self.reducer,
        }

    def variables(self, sample: Sample, candidate: str, view: str) -> dict[str, str]:
        return {"instruction": self.field(sample, self.fields[0]), "response": candidate}

    def read(self, answer: str, view: str) -> float | None:
        parse = rating if self.bare_number else bracket_rating
        value = parse(answer, self.low, self.high)
        return None if isinstance(value, Unparseable) else value

    def ballots(self, votes: list[Any]) -> list[Any]:
        return [float(v) for v in votes]

    def verdict(self, parsed: Any, view: str) -> str:
        return f"{float(parsed):g}"

    def failed_output_values(self) -> dict[str, float]:
        return {self.value: float(self.low)}


class ChatRatingScorer(RatingJudge):
    """SpeechAlpacaEval's judge: MT-Bench-style single-answer rating, 1–10 as "[[n]]"."""

    name = "chat_rating"
    prompt = "judge_chat_rating"
    value = "chat_rating"
    low, high, bare_number = 1.0, 10.0, False
    default_votes = 1
    default_sampling = {"temperature": 0.0, "max_tokens": 2048}

