"""UltraEval-Audio's English normaliser `EN` (their `text_normalization/en.py`): OpenAI
Whisper's `EnglishTextNormalizer` plus one rule of theirs (full-width parentheses around
Latin text are removed).

The `whisper-normalizer` package's own `EnglishTextNormalizer` is a fork with four replacers
OpenAI's lacks (`kinda`, `sorta`, `dunno`, `cause` → `because`), so it is not used: the
chain is written here, step by step as OpenAI's, and only the package's number normaliser,
spelling map and symbol remover are taken (those are identical to openai-whisper 20250625's).
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

_BRACKETS = re.compile(r"[<\[][^>\]]*[>\]]")
_PARENS = re.compile(r"\(([^)]+?)\)")
_FULLWIDTH_LATIN_PARENS = re.compile(r"（([a-z A-Z]+?)）")  # UltraEval-Audio's addition
_FILLERS = re.compile(r"\b(hmm|mm|mhm|mmm|uh|um)\b")

# OpenAI's replacers, in its order (data; the fork inserts kinda/sorta/dunno/cause among them)
_TITLES = (
    ("mr", "mister"), ("mrs", "missus"), ("st", "saint"), ("dr", "doctor"), ("prof", "professor"),
    ("capt", "captain"), ("gov", "governor"), ("ald", "alderman"), ("gen", "general"),
    ("sen", "senator"), ("rep", "representative"), ("pres", "president"), ("rev", "reverend"),
    ("hon", "honorable"), ("asst", "assistant"), ("assoc", "associate"), ("lt", "lieutenant"),
    ("col", "colonel"), ("jr", "junior"), ("sr", "senior"), ("esq", "esquire"),
)  # fmt: skip
_REPLACERS: tuple[tuple[str, str], ...] = (
    (r"\bwon't\b", "will not"), (r"\bcan't\b", "can not"), (r"\blet's\b", "let us"),
    (r"\bain't\b", "aint"), (r"\by'all\b", "you all"), (r"\bwanna\b", "want to"),
    (r"\bgotta\b", "got to"), (r"\bgonna\b", "going to"), (r"\bi'ma\b", "i am going to"),
    (r"\bimma\b", "i am going to"), (r"\bwoulda\b", "would have"), (r"\bcoulda\b", "could have"),
    (r"\bshoulda\b", "should have"), (r"\bma'am\b", "madam"),
    *((rf"\b{short}\b", f"{long} ") for short, long in _TITLES),
    (r"'d been\b", " had been"), (r"'s been\b", " has been"), (r"'d gone\b", " had gone"),
    (r"'s gone\b", " has gone"), (r"'d done\b", " had done"), (r"'s got\b", " has got"),
    (r"n't\b", " not"), (r"'re\b", " are"), (r"'s\b", " is"), (r"'d\b", " would"),
    (r"'ll\b", " will"), (r"'t\b", " not"), (r"'ve\b", " have"), (r"'m\b", " am"),
)  # fmt: skip
_COMPILED = tuple((re.compile(p), r) for p, r in _REPLACERS)


@cache
def _parts() -> tuple[Any, Any, Any]:
    from whisper_normalizer.basic import remove_symbols_and_diacritics
    from whisper_normalizer.english import EnglishNumberNormalizer, EnglishSpellingNormalizer

    return EnglishNumberNormalizer(), EnglishSpellingNormalizer(), remove_symbols_and_diacritics


def english_normalise(text: str, *, fullwidth_rule: bool = True) -> str:
    """`EN(text)`: OpenAI Whisper's English normaliser, with UltraEval-Audio's full-width
    parenthesis rule (step 4) unless `fullwidth_rule` is False (then exactly OpenAI's)."""
    numbers, spellings, remove_symbols = _parts()
    s = text.lower()
    s = _BRACKETS.sub("", s)
    s = _PARENS.sub("", s)
    if fullwidth_rule:
        s = _FULLWIDTH_LATIN_PARENS.sub("", s)
    s = _FILLERS.sub("", s)
    s = re.sub(r"\s+'", "'", s)
    for pattern, replacement in _COMPILED:
        s = pattern.sub(replacement, s)
    s = re.sub(r"(\d),(\d)", r"\1\2", s)
    s = re.sub(r"\.([^0-9]|$)", r" \1", s)
    s = remove_symbols(s, keep=".%$¢€£")
    s = numbers(s)
    s = spellings(s)
    s = re.sub(r"[.$¢€£]([^0-9])", r" \1", s)
    s = re.sub(r"([^0-9])%", r"\1 ", s)
    return re.sub(r"\s+", " ", s)
