"""Reading an option letter (A/B/C/D) from free text, in English or Chinese phrasing.

Tried in order, the first rule that finds a letter decides:

1. the whole answer is a letter, possibly bracketed or bold: "B", "(b)", "**C**", "D.";
2. an answer statement, the last one winning: "the answer is (B)", "Answer: C", "option D",
   "I choose A", "答案是B", "选C", `\\boxed{A}`;
3. a leading letter followed by punctuation or a verb: "B. A dog barking", "(C) …", "D: …",
   "A is correct";
4. exactly one distinct stand-alone capital option letter anywhere ("I think B fits"),
   not counting "A"/"I" used as a word ("A dog barks").

A letter outside the allowed set, several different letters, or none is unparseable.
"""

from __future__ import annotations

import re

from audioeval.postprocess.outcome import Unparseable

_OPEN = r"[(\[（【{]"
_CLOSE = r"[)\]）】}]"
_WHOLE_RE = re.compile(rf"^[\s*_`]*{_OPEN}?\s*([A-Za-z])\s*{_CLOSE}?[\s*_`.:：。、]*$")
_EN_KEY = (
    r"(?i:\b(?:(?:final|correct|right|best)\s+)?(?:answer|option|choice)(?:\s+(?:is|would\s+be|should\s+be))?"
    r"|\bI(?:\s+would|'d|\s+will)?\s+(?:choose|select|pick))"
)
_ZH_KEY = r"(?:答案|选项|正确选项|选择|应选|选)(?:是|为|應為|应为)?"
_LETTER_AFTER = rf"\s*[:：]?\s*(?:[*_`]+\s*)?(?:{_OPEN}\s*([A-Za-z])\s*{_CLOSE}|([A-Z])(?![A-Za-z]))"
_STATEMENT_RE = re.compile(rf"(?:{_EN_KEY}|{_ZH_KEY}){_LETTER_AFTER}|\\boxed\{{\s*([A-Za-z])\s*\}}")
_VERB = r"(?:is|was|seems|would|should|must|fits|matches)\b"
_LEADING_RE = re.compile(
    rf"^[\s*_`]*(?:{_OPEN}\s*([A-Za-z])\s*{_CLOSE}|([A-Z])\s*[.:：)、）]|([A-Z])\s+[-–—]|([A-Z])\s+(?={_VERB}))"
)
_STANDALONE_RE = re.compile(r"(?<![A-Za-z])([A-Z])(?![A-Za-z'’])")
_WORD_AFTER_RE = re.compile(r"\s+[a-z]")


def _check(letter: str, letters: str) -> str | Unparseable:
    upper = letter.upper()
    if upper not in letters:
        return Unparseable(f"letter {upper} is not an option ({letters[0]}-{letters[-1]})")
    return upper


def _statement(text: str) -> str | None:
    last = None
    for m in _STATEMENT_RE.finditer(text):
        last = next(g for g in m.groups() if g)
    return last


def _standalone(text: str, letters: str) -> str | Unparseable | None:
    found: list[str] = []
    for m in _STANDALONE_RE.finditer(text):
        letter = m.group(1)
        if letter not in letters:
            continue
        if letter in "AI" and _WORD_AFTER_RE.match(text, m.end()):
            continue  # the article "A" or the pronoun "I", not an option
        if letter not in found:
            found.append(letter)
    if len(found) == 1:
        return found[0]
    if found:
        return Unparseable(f"several option letters mentioned ({', '.join(sorted(found))})")
    return None


def extract_letter(text: str, letters: str = "ABCD") -> str | Unparseable:
    """The option letter (upper case) an answer states, by the rules above."""
    text = text.strip()
    if not text:
        return Unparseable("empty answer")
    m = _WHOLE_RE.match(text)
    if m:
        return _check(m.group(1), letters)
    stated = _statement(text)
    if stated:
        return _check(stated, letters)
    m = _LEADING_RE.match(text)
    if m:
        return _check(next(g for g in m.groups() if g), letters)
    found = _standalone(text, letters)
    if found is not None:
        return found
    return Unparseable("no option letter found")
