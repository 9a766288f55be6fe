"""Chat messages with text and audio parts, independent of any wire format."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal


@dataclass(frozen=True, slots=True)
class AudioRef:
    """A reference to audio on disk, optionally a slice of it in seconds.

    `start`/`end` follow Python slice semantics: None is an open end, negative values count
    from the end of the clip.
    """

    path: str
    start: float | None = None
    end: float | None = None

    @property
    def is_slice(self) -> bool:
        return self.start is not None or self.end is not None


@dataclass(frozen=True, slots=True)
class TextPart:
    text: str
    type: Literal["text"] = "text"


@dataclass(frozen=True, slots=True)
class AudioPart:
    audio: AudioRef
    type: Literal["audio"] = "audio"


ContentPart = TextPart | AudioPart


@dataclass(frozen=True, slots=True)
class Message:
    role: Literal["system", "user", "assistant"]
    parts: tuple[ContentPart, ...] = field(default_factory=tuple)

    @classmethod
    def text(cls, role: Literal["system", "user", "assistant"], text: str) -> Message:
        return cls(role=role, parts=(TextPart(text),))

    def audio_refs(self) -> list[AudioRef]:
        return [p.audio for p in self.parts if isinstance(p, AudioPart)]
