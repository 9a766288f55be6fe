"""Audio references inside rubric questions: `<audio output>`, `<audio input1[4.0s:5.7s]>`."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from audioeval.audio.slicing import parse_slice

REF_RE = re.compile(r"<audio\s+([A-Za-z_]+\d*)\s*(?:\[([^\]]*)\])?\s*>")


@dataclass(frozen=True, slots=True)
class ClipMention:
    """One distinct clip a question refers to, written as it appears (`text`)."""

    text: str
    label: str
    start: float | None
    end: float | None

    @property
    def is_slice(self) -> bool:
        return self.start is not None or self.end is not None


@functools.lru_cache(maxsize=1 << 16)
def find_mentions(question: str) -> tuple[ClipMention, ...]:
    """Distinct clip references in order of first appearance.

    Raises ValueError naming the reference when a slice cannot be parsed. Each question is
    read once per process: loading, planning and every judge attempt ask it again (MMAE's
    2,000 samples have 18,000 rubrics).
    """
    seen: dict[str, ClipMention] = {}
    for m in REF_RE.finditer(question):
        label, slice_text = m.group(1), m.group(2)
        start = end = None
        if slice_text is not None and slice_text.strip():
            try:
                start, end = parse_slice(slice_text)
            except ValueError as exc:
                raise ValueError(f"bad slice in {m.group(0)!r}: {exc}") from exc
        key = f"<audio {label}[{slice_text}]>" if slice_text else f"<audio {label}>"
        if key not in seen:
            seen[key] = ClipMention(key, label, start, end)
    return tuple(seen.values())
