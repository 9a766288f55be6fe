"""Reading which option a free-text answer chose; unparseable is an outcome, never a guess.

Tried in order, the first rule that applies decides:

1. `option_text`: the whole answer is one option's text ("Open Grassland."). When options
   are letters themselves (notes "E", "C", …), a lone letter naming one option by letter
   and another by text is unparseable.
2. `letter`: the whole answer is an option letter ("B", "(B)", "B.", "b)"), alone or followed
   by that option's text ("(B) Richard Nixon"). A letter out of range, or followed by the
   text of another option, is unparseable.
3. `answer_statement`: "Answer: B", "the answer is (B)", "the correct option is Dog",
   "I choose B", `\\boxed{B}` anywhere in the text; the last stated answer wins. A stated
   option text that starts with a letter word ("The correct answer is: A woman") is that
   option; only a lone letter that is also another option's whole text is ambiguous.
4. `leading_option_text`: the answer starts with one option's text and a punctuation mark
   ("Yes, because …").
5. `last_line`: rules 1–2 on the last non-empty line of a longer answer.
6. `only_option_mentioned`: exactly one option's text occurs in the answer.
7. otherwise `unparseable` (empty, no option found, several options mentioned).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from audioeval.postprocess.options import LETTERS, Options, words

_LETTER_ONLY_RE = re.compile(r"^[(\[]?\s*([A-Za-z])\s*[)\]]?\s*[.:)]?$")
_LETTER_LEAD_RE = re.compile(r"^(?:[(\[]\s*([A-Za-z])\s*[)\]]|([A-Za-z])\s*[.:)\-])\s*(.+)$", re.S)
_VERB = r"(?:\s*(?:is|would\s+be|should\s+be|will\s+be)\s*:?|\s*[:=])"
_STATEMENT_RE = re.compile(
    r"[ABCFIRabcfir\u0130\u0131\\]"  # every character a statement can start with, İ and ı too
    r"(?:(?<=\b\w)(?i:"
    r"(?:(?<=f)inal\s+answer|(?:(?<=c)orrect|(?<=r)ight|(?<=b)est|(?<=f)inal)\s+(?:answer|option|choice)"
    rf"|(?<=a)nswer){_VERB}\s*"
    r"|(?<=i)(?:\s+would|'d|\s+will)?\s+(?:choose|select|pick)\s+)"
    r"|(?<=\\)(?i:boxed)\{)"
)
r"""An answer statement, found as `STATEMENT` (tests/test_mcq_speed_scoring.py) finds it:

    \b(?:final\s+answer|(?:correct|right|best|final)\s+(?:answer|option|choice)|answer)VERB\s*
    | \bI(?:\s+would|'d|\s+will)?\s+(?:choose|select|pick)\s+ | \\boxed\{        (ignoring case)

It opens with the set of characters a statement starts with (those that are f, c, r, b, a or
i ignoring case, and the backslash), so the regex engine skips to them rather than trying
every branch at every position (a quarter of the time); each branch reads that character
again in a lookbehind."""
_TAIL_LETTER_RE = re.compile(r"^[(\[]?\s*([A-Z])\s*[)\]]?(?=$|[\s.,:;!?)\]}])|^[(\[]\s*([a-z])\s*[)\]]")
_FILLER = {"option", "choice", "letter", "the"}
_NEGATION = {"not", "neither", "none", "unclear", "unknown"}
_LEADING_SEP = ",.;:!\n-—("


@dataclass(frozen=True, slots=True)
class ChoiceExtraction:
    """The option read from an answer (0-based `index`), or why none could be read."""

    index: int | None
    method: str
    reason: str | None = None

    @property
    def parsed(self) -> bool:
        return self.index is not None

    @property
    def letter(self) -> str | None:
        return None if self.index is None else LETTERS[self.index]


def _unparseable(reason: str) -> ChoiceExtraction:
    return ChoiceExtraction(None, "unparseable", reason)


def _ambiguous(letter: str, text_idx: int, opts: Options) -> ChoiceExtraction | None:
    """Unparseable when a lone letter is both an option letter and another option's text."""
    idx = opts.letter_index(letter)
    if idx is None or opts.canon[idx] == text_idx:
        return None
    return _unparseable(
        f"{letter!r} is both option letter {letter.upper()} and the text of option {LETTERS[text_idx]}"
    )


def _whole(text: str, opts: Options, method: str | None = None) -> ChoiceExtraction | None:
    """Rules 1–2 on a whole text; None when neither applies."""
    idx = opts.exact(words(text))
    m = _LETTER_ONLY_RE.match(text)
    if idx is not None:
        clash = _ambiguous(m.group(1), idx, opts) if m else None
        return clash or ChoiceExtraction(idx, method or "option_text")
    rest = ""
    if m is None:
        lead = _LETTER_LEAD_RE.match(text)
        if lead is None:
            return None
        letter, rest = lead.group(1) or lead.group(2), lead.group(3)
        named = opts.exact(words(rest))
        if named is None:
            return None
    else:
        letter = m.group(1)
    idx = opts.letter_index(letter)
    if idx is None:
        return _unparseable(f"letter {letter.upper()} is not an option (A-{opts.letters[-1]})")
    if rest and opts.words[idx] != words(rest):
        return _unparseable(f"letter {letter.upper()} is followed by the text of another option")
    return ChoiceExtraction(idx, method or "letter")


def _resolve_tail(tail: str, opts: Options) -> tuple[int | None, str | None]:
    """(option, None), (None, error) or (None, None) when the statement names nothing."""
    tail = tail[:300]
    ws = words(tail)
    if ws and ws[0] in _NEGATION:
        return None, None
    while ws and ws[0] in _FILLER and opts.prefix(ws) is None:
        ws = ws[1:]
        tail = re.sub(r"^\W*\w+", "", tail, count=1)
    idx = opts.prefix(ws)
    stated = tail.strip(" \t\"'“”‘’")
    m = _TAIL_LETTER_RE.match(stated)
    if idx is not None:
        # A clash needs a lone letter: an option whose whole text is that one letter ("E" among
        # notes). In "the correct answer is: A woman" the letter starts option B's text.
        lone = m is not None and len(opts.words[idx]) == 1
        clash = _ambiguous(m.group(1) or m.group(2), idx, opts) if lone and m else None
        return (None, clash.reason) if clash else (idx, None)
    if m is None:
        return None, None
    letter = m.group(1) or m.group(2)
    idx = opts.letter_index(letter)
    if idx is None:
        return None, f"stated letter {letter.upper()} is not an option (A-{opts.letters[-1]})"
    after = words(stated[m.end() :])
    named = opts.prefix(after)
    if named is not None and named != opts.canon[idx]:
        return None, f"stated letter {letter.upper()} is followed by the text of another option"
    return idx, None


def _statements(text: str, opts: Options) -> ChoiceExtraction | None:
    """Rule 3: the last answer statement that names an option (or is contradictory)."""
    last: ChoiceExtraction | None = None
    for m in _STATEMENT_RE.finditer(text):
        idx, error = _resolve_tail(text[m.end() :], opts)
        if idx is not None:
            last = ChoiceExtraction(idx, "answer_statement")
        elif error is not None:
            last = _unparseable(error)
    return last


def _leading(text: str, opts: Options) -> ChoiceExtraction | None:
    """Rule 4: an option's text at the very start, followed by punctuation."""
    lowered = text.lower()
    hits = [
        i
        for i, c in enumerate(opts.choices)
        if c.strip()
        and lowered.startswith(c.strip().lower())
        and lowered[len(c.strip()) : len(c.strip()) + 1] in tuple(_LEADING_SEP)
    ]
    if not hits:
        return None
    best = max(hits, key=lambda i: (len(opts.choices[i].strip()), -i))
    return ChoiceExtraction(opts.canon[best], "leading_option_text")


@functools.lru_cache(maxsize=4096)
def _options(choices: tuple[str, ...]) -> Options:
    """The prepared options of one question, once per question (never changed once built)."""
    return Options(choices)


def extract_choice(text: str, choices: Sequence[str]) -> ChoiceExtraction:
    """The option an answer chose, by the rules above; text steps have already run. An answer
    read before with the same choices (a question asked again, a bare letter) is not read
    again: the reading is a function of the two, and immutable."""
    return _extract(text, tuple(choices))


@functools.lru_cache(maxsize=4096)
def _extract(text: str, choices: tuple[str, ...]) -> ChoiceExtraction:
    text = text.strip()
    if not text:
        return _unparseable("empty answer")
    opts = _options(choices)
    found = _whole(text, opts)
    if found is not None:
        return found
    found = _statements(text, opts) or _leading(text, opts)
    if found is not None:
        return found
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    if len(lines) > 1:
        found = _whole(lines[-1], opts, "last_line")
        if found is not None:
            return found
    named = opts.mentioned(words(text))
    if len(named) == 1:
        return ChoiceExtraction(named.pop(), "only_option_mentioned")
    if named:
        letters = ", ".join(LETTERS[i] for i in sorted(named))
        return _unparseable(f"several options mentioned ({letters}) and no stated answer")
    return _unparseable("no option found")
