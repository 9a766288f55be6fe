"""P(yes) of a yes/no judge, from the top logprobs of its first answer token.

P(yes) = e^y / (e^y + e^n), where y is the highest logprob among the "yes" variants of the
first token (yes, Yes, YES, with or without a leading space) and n that of the "no" variants.
When only one side is among the top tokens, the other is bounded by the smallest listed
logprob (it can be no more likely than the least likely token listed), and the bound is
recorded. When neither side is listed, or the server sent no logprobs, there is no value:
the caller falls back to the share of "yes" over sampled answers, and says so. A logprob that
is not a finite number ≤ 0 (NaN, inf, +5) makes the whole answer unreadable: a failed
attempt, never cached (`has_first_token`), never a P(yes).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from audioeval.store.bounded_json import loads

YES_TOKENS = frozenset({"yes", "Yes", "YES", " yes", " Yes", " YES"})
NO_TOKENS = frozenset({"no", "No", "NO", " no", " No", " NO"})


@dataclass(frozen=True)
class FirstToken:
    """What a logprobs request answered: its text, and its first token's top logprobs (None
    when the server sent no logprobs)."""

    text: str
    top_logprobs: list[tuple[str, float]] | None


def read_first_token(answer: str | None) -> FirstToken | None:
    """The stored answer of a logprobs request (`reply_first_token`'s JSON), None if unreadable."""
    if answer is None:
        return None
    try:
        data = loads(answer, nesting=None)
    except ValueError:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("text"), str):
        return None
    top = data.get("top_logprobs")
    if top is None:
        return FirstToken(data["text"], None)
    try:
        pairs = [(str(t), _logprob(lp)) for t, lp in top]
    except (TypeError, ValueError):
        return None
    return FirstToken(data["text"], pairs)


LOGPROB_ROUNDING = 1e-4
"""How far above 0 a server's rounding may put a logprob (log of 1): above it, the answer is
impossible and refused."""


def _logprob(value: object) -> float:
    """A logprob as sent: a finite number ≤ 0 (a bool, NaN, ±inf or +5 is refused:
    ValueError), so that an impossible answer is an unreadable one: recorded as a failed vote,
    never cached, never averaged."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise TypeError(f"logprob {value!r} is not a number")
    lp = float(value)
    if not math.isfinite(lp) or lp > LOGPROB_ROUNDING:
        raise ValueError(f"logprob {value!r} is not a finite number ≤ 0")
    return min(lp, 0.0)


@dataclass(frozen=True)
class PYes:
    """P(yes) and how it was read: `bound` names the side bounded by the smallest listed
    logprob ("yes" or "no"), None when both were listed."""

    value: float
    bound: str | None = None


def p_yes(top_logprobs: Sequence[tuple[str, float]]) -> PYes | None:
    """P(yes) from a first token's top logprobs; None when neither yes nor no is listed."""
    yes = [lp for token, lp in top_logprobs if token in YES_TOKENS]
    no = [lp for token, lp in top_logprobs if token in NO_TOKENS]
    if not yes and not no:
        return None
    floor = min(lp for _, lp in top_logprobs)
    y, n = (max(yes) if yes else floor), (max(no) if no else floor)
    bound = None if yes and no else ("yes" if not yes else "no")
    top = max(y, n)  # stable: e^(y-top) / (e^(y-top) + e^(n-top))
    ey, en = math.exp(y - top), math.exp(n - top)
    return PYes(ey / (ey + en), bound)


def has_first_token(answer: str) -> bool:
    """Whether a logprobs answer is readable (and may be cached); one whose top logprobs list
    neither yes nor no, or that came without logprobs, is readable too: asking again would
    give the same, so the caller falls back to sampled answers."""
    return read_first_token(answer) is not None
