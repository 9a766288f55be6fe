"""AIR-Bench chat's judge (scorer `airbench_chat`): the model's answer and the reference
answer, scored side by side.

As AIR-Bench's `score_chat.py`: the judge reads the clip's detailed description (the
`meta_info` column: it does not hear the audio), the question, and two answers — Assistant 1
the reference, Assistant 2 the model's — and answers one line with two scores, 1–10 asked,
"Assistant 1's then Assistant 2's", separated by a space (our wording, `templates/
judge_airbench_chat.yaml`; `prompt_file: FILE` puts the official text in its place). The line is read by
`cal_score.py`'s rule (`chat_rule.official_score_pair`, default `parser: official`): exactly
two `int()` values split on one space, none above 10, negatives pass; `parser: lenient` reads
two numbers 0–10 separated by spaces, commas or a line break (`postprocess/ratings.
score_pair`), ours. An unreadable line is an invalid vote, asked again up to `max_attempts`
(the official script counts it as a failure: `max_attempts: 1`).

`orders: both` also asks with the answers swapped (model first), as the swapped ("cir") file
AIR-Bench's `cal_score.py` reads, where the first score is then the model's; the vote's
scores are the mean over the two orders, and the reliability block reports how often the two
orders agree on who won (`order_swap_consistency`). Default `reference_first`: the one order
of `score_chat.py` and of UltraEval-Audio's evaluator.

Values: `chat_score` (the model's score, AIR-Bench's leaderboard number), `reference_score`
(the reference's), `win` (the share of the sample's votes where the model scored above the
reference: AIR-Bench's win rate), each the mean over the valid votes. AIR-Bench also samples
half of its requests at temperature 2.0: not reproduced (the judge's sampling is one setting,
in the signature).
"""

from __future__ import annotations

from typing import Any, Literal

from audioeval.adapters.chat_wire import SamplingFields
from audioeval.benchmarks.air_bench.chat_rule import official_score_pair
from audioeval.core.errors import InputError
from audioeval.core.sample import Sample
from audioeval.judge.answer_judge import AnswerJudge, AnswerJudgeSignature
from audioeval.judge.votes import reduce_votes
from audioeval.postprocess.outcome import Unparseable
from audioeval.postprocess.ratings import score_pair

REFERENCE_FIRST = "reference_first"
MODEL_FIRST = "model_first"
LOW, HIGH = 0.0, 10.0
PARSERS = {
    "official": "cal_score.py: two int() values split on one space, none above 10",
    "lenient": "two numbers 0-10 separated by spaces, commas or a line break",
}


class AirBenchChatScorer(AnswerJudge):
    name = "airbench_chat"
    prompt = "judge_airbench_chat"
    value = "chat_score"
    reducer = "mean"
    default_votes = 1
    default_sampling: SamplingFields = {"temperature": 1.0, "max_tokens": 1024}

    def __init__(
        self,
        *,
        orders: Literal["reference_first", "both"] = "reference_first",
        parser: Literal["official", "lenient"] = "official",
        question_field: str = "question",
        answer_field: str = "answer",
        description_field: str = "audio_description",
        votes: int | None = None,
        max_attempts: int | None = None,
        sampling: SamplingFields | None = None,
        asr_model: str | None = None,
        language: str | None = "en",
    ) -> None:
        if orders not in (REFERENCE_FIRST, "both"):
            raise InputError(
                f"airbench_chat: orders must be reference_first or both, not {orders!r}",
                field="scorers.airbench_chat.orders",
            )
        if parser not in ("official", "lenient"):
            raise InputError(
                f"airbench_chat: parser must be official or lenient, not {parser!r}",
                field="scorers.airbench_chat.parser",
            )
        self.orders = orders
        self.parser = parser
        self.views = (REFERENCE_FIRST, MODEL_FIRST) if orders == "both" else (REFERENCE_FIRST,)
        self.fields = (question_field, answer_field, description_field)
        super().__init__(
            votes=votes, max_attempts=max_attempts, sampling=sampling, asr_model=asr_model, language=language
        )

    @property
    def metrics(self) -> tuple[str, ...]:
        return ("mean:chat_score", "mean:reference_score", "mean:win")

    def extra_signature(self) -> AnswerJudgeSignature:
        return {
            "orders": list(self.views),
            "scale": [LOW, HIGH],
            "parser": PARSERS[self.parser],
            "reducer": self.reducer,
        }

    def variables(self, sample: Sample, candidate: str, view: str) -> dict[str, str]:
        question, answer, description = (self.field(sample, f) for f in self.fields)
        first, second = (answer, candidate) if view == REFERENCE_FIRST else (candidate, answer)
        return {"description": description, "question": question, "first": first, "second": second}

    def read(self, answer: str, view: str) -> list[float] | None:
        """[model's score, reference's score] of one order's answer."""
        pair: tuple[float, float] | Unparseable | None
        if self.parser == "official":
            pair = official_score_pair(answer)
        else:
            pair = score_pair(answer, LOW, HIGH)
        if pair is None or isinstance(pair, Unparseable):
            return None
        first, second = float(pair[0]), float(pair[1])
        return [second, first] if view == REFERENCE_FIRST else [first, second]

    def vote(self, parsed: list[Any]) -> list[float]:
        return [sum(p[0] for p in parsed) / len(parsed), sum(p[1] for p in parsed) / len(parsed)]

    def values(self, votes: list[Any]) -> dict[str, float] | None:
        model = reduce_votes([v[0] for v in votes], self.votes, self.reducer)
        reference = reduce_votes([v[1] for v in votes], self.votes, self.reducer)
        wins = reduce_votes([1.0 if v[0] > v[1] else 0.0 for v in votes], self.votes, self.reducer)
        if model.score is None or reference.score is None or wins.score is None:
            return None
        return {"chat_score": model.score, "reference_score": reference.score, "win": wins.score}

    def verdict(self, parsed: Any, view: str) -> str:
        model, reference = parsed
        return "win" if model > reference else "tie" if model == reference else "lose"

    def order(self, view: str) -> tuple[str, ...]:
        return ("reference", "model") if view == REFERENCE_FIRST else ("model", "reference")

    def failed_output_values(self) -> dict[str, float | None]:
        return {"chat_score": LOW, "reference_score": None, "win": 0.0}
