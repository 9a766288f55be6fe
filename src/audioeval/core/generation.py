"""The outcome of one model call: text on success, a recorded error otherwise."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from audioeval.core.usage import Usage


@dataclass(frozen=True, slots=True)
class Generation:
    """What one model (or judge) call returned.

    Exactly one of `text` and `error` is set. `cached` says the text came from the response
    cache rather than a live call; `bad` that the endpoint answered (2xx) with what is not an
    answer: a web page, a body that is not the format asked for (a bad output, not a failed call).
    `usage`: what the call used (`core/usage.py`; None: not measured).
    """

    text: str | None
    error: str | None = None
    endpoint: str | None = None
    latency_s: float | None = None
    cached: bool = False
    bad: bool = False
    usage: Usage | None = None

    @property
    def ok(self) -> bool:
        return self.error is None and self.text is not None


AnswerCheck = Callable[[str], bool]
"""Whether an answer's text is usable by its caller (a parseable verdict, decodable audio):
only such answers enter the response cache."""


def usable_answer(text: str | None, check: AnswerCheck | None = None) -> bool:
    """Non-empty text that `check` (when given) accepts."""
    if text is None or not text.strip():
        return False
    return check is None or check(text)
