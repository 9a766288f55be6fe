"""Parsing a judge's answer into one option letter, robustly but without guessing.

Accepted: a JSON object with a `choice` key, bare or inside a ```json fence or surrounded by
text, reasoning removed (`postprocess/think_tags.py`); the choice may be lower-case, wrapped
as "(b)" or followed by the option text ("B. Yes"). Anything else (no choice, a letter out of
range, several conflicting objects) is an invalid vote, never a guess.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from audioeval.postprocess.json_in_text import fenced_blocks, json_values
from audioeval.postprocess.think_tags import strip_think

_CHOICE_FIELD_RE = re.compile(r'"choice"\s*:\s*"([^"]*)"')
_LETTER_RE = re.compile(r"^\(?\s*([A-Za-z])\s*\)?(?:[.):,\s]|$)")


@dataclass(frozen=True, slots=True)
class Verdict:
    letter: str | None
    reason: str | None
    error: str | None

    @property
    def valid(self) -> bool:
        return self.letter is not None


def _letter(value: object) -> str | None:
    if not isinstance(value, str):
        return None
    m = _LETTER_RE.match(value.strip())
    return m.group(1).upper() if m else None


def parse_verdict(raw: str, n_options: int) -> Verdict:
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[:n_options]
    raw = raw or ""
    # Without "<" there is no think tag, without "```" no fence: the same text, fewer scans
    # (the reliability block parses every stored answer again).
    text = strip_think(raw) if "<" in raw else raw.strip()
    if not text:
        return Verdict(None, None, "empty answer")
    candidates = [*fenced_blocks(text), text] if "```" in text else [text]
    choices: list[tuple[str | None, str | None]] = []
    for chunk in candidates:
        for obj in json_values(chunk, "{", nested=False):
            if isinstance(obj, dict) and "choice" in obj:
                reason = obj.get("reason")
                choices.append((_letter(obj["choice"]), reason if isinstance(reason, str) else None))
        if choices:
            break
    if not choices:
        m = _CHOICE_FIELD_RE.findall(text)
        choices = [(_letter(v), None) for v in m]
    if not choices:
        return Verdict(None, None, "no JSON object with a 'choice' key")
    picked = {c for c, _ in choices}
    if len(picked) > 1:
        return Verdict(None, None, f"conflicting choices {sorted(str(p) for p in picked)}")
    letter, reason = choices[-1]
    if letter is None:
        return Verdict(None, reason, "choice is not a single option letter")
    if letter not in letters:
        return Verdict(None, reason, f"choice {letter!r} out of range A-{letters[-1]}")
    return Verdict(letter, reason, None)


def verdict_check(n_options: int) -> Callable[[str], bool]:
    """Whether an answer is a valid vote among `n_options` options (only those are cached)."""
    return lambda raw: parse_verdict(raw, n_options).valid
