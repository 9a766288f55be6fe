"""What a post-processing step or chain produced: text, or why no answer could be read."""

from __future__ import annotations

from dataclasses import dataclass

OK = "ok"
UNPARSEABLE = "unparseable"


@dataclass(frozen=True, slots=True)
class Unparseable:
    """A parsing step found no answer; `reason` says why (recorded, never guessed around)."""

    reason: str


@dataclass(frozen=True, slots=True)
class Processed:
    """The result of a post-processing chain on one model output.

    `text` is the answer to score, or None when a parsing step found nothing; `outcome` is
    "ok" or "unparseable"; `detail` names the step and its reason when unparseable.
    """

    text: str | None
    outcome: str = OK
    detail: str | None = None

    @property
    def parsed(self) -> bool:
        return self.outcome == OK
