"""Text-to-text normalisers: safe to apply to a hypothesis and its reference alike.

Each function maps text to text and never fails. The Whisper normalisers come from the
`whisper_normalizer` package (OpenAI Whisper's own rules), built once per argument set.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from functools import lru_cache

_SPACES_RE = re.compile(r"\s+")
# Han (incl. extensions and compatibility), kana, bopomofo, Hangul syllables and jamo.
_CJK_RE = re.compile(
    "[\u1100-\u11ff\u2e80-\u2fdf\u3040-\u30ff\u3100-\u312f\u3130-\u318f\u31a0-\u31ff"
    "\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\U00020000-\U0003134f]"
)


def squeeze(text: str) -> str:
    """Runs of whitespace as one space, without leading or trailing space."""
    return _SPACES_RE.sub(" ", text).strip()


def first_line(text: str) -> str:
    """The first non-empty line, stripped ('' when there is none)."""
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def remove_whitespace(text: str) -> str:
    """The text with every whitespace character removed (CER over CJK text)."""
    return _SPACES_RE.sub("", text)


def cjk_split(text: str) -> str:
    """A space around every CJK character, so word error rate counts them one by one.

    Latin words and numbers stay whole: "我有3个apple" -> "我 有 3 个 apple".
    """
    return squeeze(_CJK_RE.sub(r" \g<0> ", text))


def remove_punctuation(text: str, keep: str = "'") -> str:
    """The text without Unicode punctuation (categories P*), except characters in `keep`.

    Punctuation is deleted, not replaced by a space ("don't" keeps its apostrophe by default),
    as the Seed-TTS "naive" WER does; whitespace is then squeezed.
    """
    return squeeze("".join(c for c in text if c in keep or not unicodedata.category(c).startswith("P")))


@lru_cache(maxsize=1)
def _english() -> Callable[[str], str]:
    from whisper_normalizer.english import EnglishTextNormalizer

    normaliser: Callable[[str], str] = EnglishTextNormalizer()
    return normaliser


@lru_cache(maxsize=8)
def _basic(remove_diacritics: bool, split_letters: bool, preserve_marks: bool) -> Callable[[str], str]:
    from whisper_normalizer.basic import BasicTextNormalizer

    normaliser: Callable[[str], str] = BasicTextNormalizer(
        remove_diacritics=remove_diacritics, split_letters=split_letters, preserve_marks=preserve_marks
    )
    return normaliser


def whisper_english(text: str) -> str:
    """Whisper's English normaliser: "Mr." -> "mister", "twenty-five" -> "25", US spelling."""
    return squeeze(_english()(text))


def whisper_basic(
    text: str, *, remove_diacritics: bool = False, split_letters: bool = False, preserve_marks: bool = False
) -> str:
    """Whisper's multilingual basic normaliser: lower case, no bracketed text, no symbols."""
    return squeeze(_basic(remove_diacritics, split_letters, preserve_marks)(text))
