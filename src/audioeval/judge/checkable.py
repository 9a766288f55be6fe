"""Rubric items a measurement can answer: a check expression, written in an item's metadata
(`check`) or produced by a benchmark's rules from the question's form, evaluated with the
acoustic verifiers (`audio/verifiers`) and mapped onto the item's Yes / No choice.

Check expressions (one call, optionally negated)::

    [not] CHECK(CLIP[, ARG ...])

CLIP is a clip reference as in rubric questions, with or without the `<audio …>` brackets:
`<audio output[1.0s:]>`, `output`, `input1[:2s]`; ARG a number (`660`, `1.5`) or a word
(`left`). CHECKS lists the checks and what they take. An item none of whose forms is known is
not checkable (None) and is left to the judge; a measurement that cannot tell, a slice outside
its clip, or an item without a Yes and a No choice gives no answer either.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypedDict

from audioeval.audio.slicing import parse_slice
from audioeval.audio.verifiers import VERSION, compare, level, shape, spectrum, speech
from audioeval.audio.verifiers.measurement import (
    CANNOT_TELL,
    NO,
    YES,
    Audio,
    Measurement,
    SliceOutOfRange,
    cannot_tell,
    take,
)

VERIFIERS_VERSION = VERSION

# name -> (function, kinds of its arguments after the clip: "clip" / "number" / "word")
CHECKS: dict[str, tuple[Callable[..., Measurement], tuple[str, ...]]] = {
    "tone_present": (lambda a, f: spectrum.tone_present(a, f), ("number",)),
    "band_present": (lambda a, lo, hi: spectrum.band_present(a, lo, hi), ("number", "number")),
    "band_limited": (lambda a, hz: spectrum.band_limited(a, hz), ("number",)),
    "pitch_shifted": (lambda a, ref: spectrum.pitch_shift(a, ref), ("clip",)),
    "pitch_higher": (lambda a, ref: spectrum.pitch_moved(a, ref, "up"), ("clip",)),
    "pitch_lower": (lambda a, ref: spectrum.pitch_moved(a, ref, "down"), ("clip",)),
    "speech_present": (speech.speech_present, ()),
    "silent": (level.silent, ()),
    "has_silence": (lambda a, s: level.has_silence(a, s), ("number",)),
    "clipped": (level.clipped, ()),
    "louder": (lambda a, ref: level.louder(a, ref), ("clip",)),
    "quieter": (lambda a, ref: level.quieter(a, ref), ("clip",)),
    "shorter": (lambda a, ref: level.shorter(a, ref), ("clip",)),
    "duration_is": (lambda a, s: level.duration_is(a, s), ("number",)),
    "same_as": (lambda a, ref: compare.same_as(a, ref), ("clip",)),
    "reversed_of": (lambda a, ref: compare.reversed_of(a, ref), ("clip",)),
    "speed_changed": (lambda a, ref: compare.speed_ratio(a, ref), ("clip",)),
    "faster": (lambda a, ref: compare.speed_moved(a, ref, "faster"), ("clip",)),
    "slower": (lambda a, ref: compare.speed_moved(a, ref, "slower"), ("clip",)),
    "fade_in": (lambda a, s: shape.fade(a, "in", s), ("number",)),
    "fade_out": (lambda a, s: shape.fade(a, "out", s), ("number",)),
    "panned": (lambda a, side: shape.panned(a, side), ("word",)),
    "channels": (lambda a, n: shape.channel_count(a, int(n)), ("number",)),
}

_CLIP = r"<audio\s+[A-Za-z_]+\d*\s*(?:\[[^\]]*\])?\s*>|[A-Za-z_]+\d*(?:\[[^\]]*\])?"
_ARG_RE = re.compile(rf"\s*({_CLIP}|-?\d+(?:\.\d+)?)\s*(?:,|$)")
_EXPR_RE = re.compile(r"^\s*(not\s+)?([a-z_]+)\s*\((.*)\)\s*$", re.S)
_CLIP_RE = re.compile(r"^(?:<audio\s+)?([A-Za-z_]+\d*)\s*(?:\[([^\]]*)\])?\s*>?$")


@dataclass(frozen=True)
class ClipArg:
    label: str
    start: float | None
    end: float | None


@dataclass(frozen=True)
class Check:
    """A parsed check expression, and where it came from (`metadata` or `rule:NAME`)."""

    expression: str
    name: str
    negated: bool
    clip: ClipArg
    args: tuple[Any, ...]
    source: str


def _clip(text: str, expression: str) -> ClipArg:
    m = _CLIP_RE.match(text.strip())
    if not m:
        raise ValueError(f"check {expression!r}: {text!r} is not a clip reference")
    start = end = None
    if m.group(2) is not None and m.group(2).strip():
        start, end = parse_slice(m.group(2))
    return ClipArg("input1" if m.group(1) == "input" else m.group(1), start, end)


def parse_check(expression: str, source: str = "metadata") -> Check:
    """Parse a check expression; ValueError saying what is wrong (an unknown check, a missing
    or surplus argument, an argument of the wrong kind)."""
    m = _EXPR_RE.match(expression)
    if not m:
        raise ValueError(f"check {expression!r}: expected `[not] CHECK(CLIP, ...)`")
    name = m.group(2)
    if name not in CHECKS:
        raise ValueError(f"check {expression!r}: unknown check {name!r} (known: {', '.join(sorted(CHECKS))})")
    body, raw = m.group(3).strip(), []
    pos = 0
    while pos < len(body):
        am = _ARG_RE.match(body, pos)
        if not am:
            raise ValueError(f"check {expression!r}: cannot read the arguments from {body[pos:]!r}")
        raw.append(am.group(1))
        pos = am.end()
    kinds = CHECKS[name][1]
    if len(raw) != 1 + len(kinds):
        raise ValueError(f"check {expression!r}: {name} takes a clip and {len(kinds)} more argument(s)")
    args: list[Any] = []
    for kind, text in zip(kinds, raw[1:], strict=True):
        is_number = re.fullmatch(r"-?\d+(?:\.\d+)?", text) is not None
        if kind == "number" and not is_number:
            raise ValueError(f"check {expression!r}: {text!r} should be a number")
        if kind == "clip" and is_number:
            raise ValueError(f"check {expression!r}: {text!r} should be a clip")
        args.append(float(text) if kind == "number" else _clip(text, expression) if kind == "clip" else text)
    return Check(expression, name, bool(m.group(1)), _clip(raw[0], expression), tuple(args), source)


def measure(check: Check, load: Callable[[str], Audio]) -> Measurement:
    """Run a check on the clips `load` gives by label; a slice outside its clip or a clip that is
    not there is "cannot tell" with the reason. A negated check swaps yes and no."""

    def clip(arg: ClipArg) -> Audio:
        return take(load(arg.label), arg.start, arg.end)

    fn = CHECKS[check.name][0]
    try:
        args = [clip(a) if isinstance(a, ClipArg) else a for a in check.args]
        m = fn(clip(check.clip), *args)
    except SliceOutOfRange as exc:
        return cannot_tell(check.name, str(exc))
    except KeyError as exc:
        return cannot_tell(check.name, f"no clip {exc.args[0]!r} to measure")
    if check.negated and m.answer != CANNOT_TELL:
        flipped = NO if m.answer == YES else YES
        return Measurement(m.check, m.value, m.unit, f"not ({m.threshold})", flipped, m.reason)
    return m


@dataclass(frozen=True)
class CheckRule:
    """A question form a benchmark recognises: `pattern` (searched in the question) and the
    check expression it stands for, written with the match's named groups (`{clip}`, `{freq}`)."""

    name: str
    pattern: re.Pattern[str]
    expression: str

    def check_for(self, question: str) -> Check | None:
        m = self.pattern.search(question)
        if not m:
            return None
        return parse_check(self.expression.format(**m.groupdict()), f"rule:{self.name}")


class CheckableItem(TypedDict, total=False):
    """What a rubric item offers a check: its own `check` expression, and its question."""

    check: str
    question: str


def plan_check(item: CheckableItem, rules: Sequence[CheckRule]) -> Check | None:
    """The check for a rubric item: its own `check` expression, else the first rule that
    recognises its question, else None (left to the judge). A bad `check` is a ValueError."""
    declared = item.get("check")
    if declared is not None:
        if not isinstance(declared, str) or not declared.strip():
            raise ValueError(f"check must be a non-empty expression string, not {declared!r}")
        return parse_check(declared)
    question = item.get("question")
    if not isinstance(question, str):
        return None
    for rule in rules:
        found = rule.check_for(question)
        if found is not None:
            return found
    return None


_YES_RE = re.compile(r"^\s*yes\b", re.I)
_NO_RE = re.compile(r"^\s*no\b", re.I)


def choice_for(answer: str, options: Sequence[str]) -> str | None:
    """The option a yes / no measurement picks: the only option starting with "Yes" (or "No");
    None for "cannot tell" or when the options hold no single such choice."""
    if answer not in (YES, NO):
        return None
    pattern = _YES_RE if answer == YES else _NO_RE
    found = [o for o in options if pattern.match(o)]
    return found[0] if len(found) == 1 else None
