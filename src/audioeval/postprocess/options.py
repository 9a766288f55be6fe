"""Finding a question's options in free text, by word sequence (order matters, case not)."""

from __future__ import annotations

import re
from collections.abc import Sequence

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_WORD_RE = re.compile(r"\w+")


def words(text: str) -> tuple[str, ...]:
    """Lower-cased word tokens in order."""
    return tuple(_WORD_RE.findall(text.lower()))


class Options:
    """The choices of one question, prepared for matching against text."""

    def __init__(self, choices: Sequence[str]) -> None:
        self.choices = tuple(choices)
        self.words = [words(c) for c in self.choices]
        self.letters = LETTERS[: len(self.choices)]

    def _unique(self, hits: list[int]) -> int | None:
        """One option, or None when the hits are options with the same words."""
        return hits[0] if len(hits) == 1 else None

    def exact(self, ws: tuple[str, ...]) -> int | None:
        """The option whose words are exactly `ws`."""
        if not ws:
            return None
        return self._unique([i for i, w in enumerate(self.words) if w == ws])

    def prefix(self, ws: tuple[str, ...]) -> int | None:
        """The longest option whose words start `ws`."""
        hits = [i for i, w in enumerate(self.words) if w and ws[: len(w)] == w]
        if not hits:
            return None
        longest = max(len(self.words[i]) for i in hits)
        return self._unique([i for i in hits if len(self.words[i]) == longest])

    def mentioned(self, ws: tuple[str, ...]) -> set[int]:
        """Options whose words occur in `ws`, not counting an occurrence inside a longer one."""
        spans: list[tuple[int, int, int]] = []
        for i, w in enumerate(self.words):
            n = len(w)
            if not n:
                continue
            first = w[0]
            for s, tok in enumerate(ws):
                if tok == first and ws[s : s + n] == w:
                    spans.append((s, s + n, i))
        kept = {
            i for s, e, i in spans
            if not any(s2 <= s and e <= e2 and (e2 - s2) > (e - s) for s2, e2, _ in spans)
        }
        return kept

    def letter_index(self, letter: str) -> int | None:
        """0-based index of an option letter (any case), None when out of range."""
        idx = LETTERS.find(letter.upper())
        return idx if 0 <= idx < len(self.choices) else None
