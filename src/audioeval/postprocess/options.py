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
    """The choices of one question, prepared for matching against text.

    Options with the same words (MMAU repeats some choices verbatim) are one answer: text
    lookups return the first of them, its `canon` index.
    """

    def __init__(self, choices: Sequence[str]) -> None:
        self.choices = tuple(choices)
        self.words = [words(c) for c in self.choices]
        self.letters = LETTERS[: len(self.choices)]
        self.canon = [self.words.index(w) for w in self.words]

    def exact(self, ws: tuple[str, ...]) -> int | None:
        """The option whose words are exactly `ws`."""
        if not ws:
            return None
        return next((i for i, w in enumerate(self.words) if w == ws), None)

    def prefix(self, ws: tuple[str, ...]) -> int | None:
        """The longest option whose words start `ws`."""
        hits = [i for i, w in enumerate(self.words) if w and ws[: len(w)] == w]
        return max(hits, key=lambda i: (len(self.words[i]), -i)) if hits else None

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
        return {
            self.canon[i]
            for s, e, i in spans
            if not any(s2 <= s and e <= e2 and (e2 - s2) > (e - s) for s2, e2, _ in spans)
        }

    def letter_index(self, letter: str) -> int | None:
        """0-based index of an option letter (any case), None when out of range."""
        idx = LETTERS.find(letter.upper())
        return idx if 0 <= idx < len(self.choices) else None
