"""Finding a question's options in free text, by word sequence (order matters, case not)."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_WORD_RE = re.compile(r"\w+")
_ASCII_WORDS = bytes(
    c + 32 if 65 <= c <= 90 else c if 48 <= c <= 57 or 97 <= c <= 122 or c == 95 else 32 for c in range(256)
)
"""Each ASCII byte as `words` sees it: a letter lower-cased, a digit or `_` (the other ASCII
word characters) kept, any other byte a space."""


@functools.lru_cache(maxsize=256)
def words(text: str) -> tuple[str, ...]:
    """Lower-cased word tokens in order: the `\\w+` matches of the lower-cased text. An ASCII
    text is split at its other bytes instead, in one pass (the same tokens, a quarter of the
    time: tests/test_mcq_speed_scoring.py). Kept for the last texts asked: one answer is split
    several times (each MCQ scorer, several rules of the choice reading)."""
    if text.isascii():
        return tuple(text.encode("ascii").translate(_ASCII_WORDS).decode("ascii").split())
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
        self._first: dict[tuple[str, ...], int] = {}  # the first option of each word sequence
        for i, w in enumerate(self.words):
            self._first.setdefault(w, i)
        self.canon = [self._first[w] for w in self.words]

    def exact(self, ws: tuple[str, ...]) -> int | None:
        """The (first) option whose words are exactly `ws`."""
        if not ws:
            return None
        return self._first.get(ws)

    def prefix(self, ws: tuple[str, ...]) -> int | None:
        """The longest option whose words start `ws`."""
        if not ws:  # an option's words never start an empty sequence (one without words never counts)
            return None
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
