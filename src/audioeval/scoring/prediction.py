"""What a scorer receives: the model's answer after post-processing (`Prediction`), and the
answer of a model that gave no usable output (`NO_OUTPUT`, `scoring/failed_output.py`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypedDict


@dataclass(frozen=True, slots=True)
class Prediction:
    """The model's answer after post-processing.

    `text` is None when post-processing found no answer (`outcome` then says why in
    words such as "unparseable"); `raw` is the model's text before post-processing;
    `audio_path` is generated audio, for scorers of speech output.
    """

    text: str | None
    raw: str | None
    audio_path: str | None = None
    outcome: str = "ok"

    @property
    def missing(self) -> bool:
        """True when there is no answer text to score (scored as an empty answer)."""
        return self.text is None


class MissingDetail(TypedDict, total=False):
    """A score's detail when the answer was missing (scored as an empty answer): why."""

    missing: bool
    outcome: str


NO_OUTPUT = Prediction(text=None, raw=None, audio_path=None, outcome="no output")
"""The answer of a model that returned nothing, failed, or produced unreadable audio."""
