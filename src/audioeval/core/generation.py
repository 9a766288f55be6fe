"""The outcome of one model call: text on success, a recorded error otherwise."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Generation:
    """What one model (or judge) call returned.

    Exactly one of `text` and `error` is set. `cached` says the text came from the response
    cache rather than a live call.
    """

    text: str | None
    error: str | None = None
    endpoint: str | None = None
    latency_s: float | None = None
    cached: bool = False

    @property
    def ok(self) -> bool:
        return self.error is None and self.text is not None
