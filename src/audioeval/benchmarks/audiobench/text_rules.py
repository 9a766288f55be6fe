"""AudioBench's ASR text rules (AudioLLMs/AudioBench `src/dataset_src/text_normalizer/
preprocess_text.py`: `preprocess_text_asr`, `preprocess_text_asr_code_switch_chinese`), in the
order its ASR sets apply them before jiwer counts whitespace words:

1. lower case;
2. Whisper's English normaliser (its `whisper_english.EnglishTextNormalizer`, OpenAI's rules:
   the same function as `benchmarks/ultraeval/english_normaliser.py` without UltraEval-Audio's
   full-width rule);
3. `normalize_text`: the whole words 0-20, 30, ..., 90 written in digits become words, then
   22 contractions are expanded (`i'm` -> `i am`, ...);
4. `remove_parentheses`: text between `[]`, `()`, `{}` or `<>` is removed;
5. jiwer's `RemoveMultipleSpaces`, `ExpandCommonEnglishContractions`, `RemoveKaldiNonWords`,
   `RemovePunctuation` (every Unicode character of category P);
6. the fillers `uh`, `umm`, `um`, `er`, `ah` as whole words are removed; the ends stripped;
7. (Chinese sets) each character of a run of CJK ideographs (U+4E00-U+9FFF) is spaced apart;
   a Latin word stays one token.

A text left empty is the word `empty` (their `compute_score`), on either side.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

_DIGIT_WORDS = {
    "0": "zero", "1": "one", "2": "two", "3": "three", "4": "four", "5": "five", "6": "six",
    "7": "seven", "8": "eight", "9": "nine", "10": "ten", "11": "eleven", "12": "twelve",
    "13": "thirteen", "14": "fourteen", "15": "fifteen", "16": "sixteen", "17": "seventeen",
    "18": "eighteen", "19": "nineteen", "20": "twenty", "30": "thirty", "40": "forty",
    "50": "fifty", "60": "sixty", "70": "seventy", "80": "eighty", "90": "ninety",
}  # fmt: skip
_CONTRACTIONS = {
    "i'm": "i am", "you're": "you are", "he's": "he is", "she's": "she is", "it's": "it is",
    "we're": "we are", "they're": "they are", "i've": "i have", "you've": "you have",
    "we've": "we have", "they've": "they have", "isn't": "is not", "aren't": "are not",
    "wasn't": "was not", "weren't": "were not", "hasn't": "has not", "haven't": "have not",
    "hadn't": "had not", "doesn't": "does not", "don't": "do not", "didn't": "did not",
    "that's": "that is",
}  # fmt: skip
# Applied one after the other, as their loop does (so `1` is replaced before `10` is looked at).
_WORD_RULES = tuple(
    (re.compile(r"\b" + k + r"\b"), v) for k, v in (*_DIGIT_WORDS.items(), *_CONTRACTIONS.items())
)
_BETWEEN_BRACKETS = re.compile(r"(\[|\(|\{|\<)[^\(\)\\n\[\]]*(\]|\)|\}|\>)")
_FILLERS = re.compile(r"\b(uh|umm|um|er|ah)\b")
_CJK_RUN = re.compile(r"([\u4e00-\u9fff]+)")
EMPTY = "empty"
"""What an empty text becomes before it is scored."""


@cache
def _jiwer_steps() -> Any:
    import jiwer

    return jiwer.Compose(
        [
            jiwer.RemoveMultipleSpaces(),
            jiwer.ExpandCommonEnglishContractions(),
            jiwer.RemoveKaldiNonWords(),
            jiwer.RemovePunctuation(),
        ]
    )


def _words_for_digits_and_contractions(text: str) -> str:
    for pattern, word in _WORD_RULES:
        text = pattern.sub(word, text)
    return text


def _space_cjk(text: str) -> str:
    return "".join(" ".join(part) if _CJK_RUN.fullmatch(part) else part for part in _CJK_RUN.split(text))


def normalise(text: str, *, chinese: bool = False) -> str:
    """AudioBench's ASR normaliser (`chinese`: its code-switch Chinese one), before `empty`."""
    from audioeval.benchmarks.ultraeval.english_normaliser import english_normalise

    s = english_normalise(text.lower(), fullwidth_rule=False)
    s = _words_for_digits_and_contractions(s)
    s = _BETWEEN_BRACKETS.sub("", s)
    s = _jiwer_steps()(s)
    s = _FILLERS.sub("", s).strip()
    return _space_cjk(s) if chinese else s


def is_chinese(language: str) -> bool:
    """Whether a language code takes the code-switch Chinese chain (their Mandarin sets)."""
    return language.split("-")[0].lower() in ("zh", "cmn", "yue")


def tokens(text: str, language: str) -> list[str]:
    """The whitespace words jiwer compares: the normalised text, `empty` when it is empty."""
    normalised = normalise(text, chinese=is_chinese(language))
    return (normalised if normalised else EMPTY).split()


def describe(language: str) -> list[str]:
    """The chain of a language, for a scorer's signature."""
    steps = [
        "lower",
        "whisper_english (OpenAI)",
        "digits 0-20,30..90 to words; 22 contractions",
        "remove [](){}<> spans",
        "jiwer RemoveMultipleSpaces, ExpandCommonEnglishContractions, RemoveKaldiNonWords, RemovePunctuation",
        "remove uh/umm/um/er/ah; strip",
    ]
    if is_chinese(language):
        steps.append("space CJK ideographs")
    return [*steps, f"empty -> {EMPTY!r}", "whitespace words"]
