"""Scorers that ask a judge model: the async side of the `Scorer` protocol.

A judged scorer is handed a judge `generate(messages, attempt) -> Generation` callable by
the engine (it never builds or imports a client itself). Every judge answer it relies on is
returned in the score's `detail`, so that rescoring re-aggregates the stored answers with no
judge call: the engine passes them back as `stored` (see `JudgedScorer.rescore`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Mapping
from typing import Any, Protocol, runtime_checkable

from audioeval.core.errors import AudioevalError
from audioeval.core.generation import AnswerCheck, Generation
from audioeval.core.messages import Message
from audioeval.core.sample import Sample


class JudgeGenerate(Protocol):
    """One judge call: the messages, the attempt index (part of the cache key), optionally
    the check an answer must pass to be cached (e.g. it parses as a verdict), and request
    fields that override the judge's sampling for this call (`extra`, part of the cache key).
    With `extra["logprobs"]` the answer's text is the JSON of `{"text", "top_logprobs"}`:
    the first token's top logprobs as [token, logprob] pairs, or null when the server sent
    none (`adapters/openai_chat.reply_first_token`)."""

    def __call__(
        self,
        messages: list[Message],
        attempt: int,
        accept: AnswerCheck | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> Awaitable[Generation]: ...


class JudgeFailed(AudioevalError):
    """The judge gave too few usable answers to score the sample: counted as failed, never
    scored. `detail` holds every attempt made, for the record."""

    def __init__(self, message: str, detail: Mapping[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.detail = dict(detail or {})


@runtime_checkable
class JudgedScorer(Protocol):
    """A scorer whose `score_async` asks a judge; `rescore` re-aggregates stored answers."""

    name: str
    needs_judge: bool

    def signature(self) -> dict[str, Any]: ...

    async def score_async(self, prediction: Any, sample: Sample, generate: JudgeGenerate) -> Any:
        """A `Score`, or JudgeFailed; InputError when the sample cannot be judged."""
        ...

    def rescore(self, prediction: Any, sample: Sample, stored: Mapping[str, Any]) -> Any:
        """A `Score` from the `detail` of an earlier score (or failure); no judge call."""
        ...


def is_judged(scorer: object) -> bool:
    return bool(getattr(scorer, "needs_judge", False)) and hasattr(scorer, "score_async")
