"""The built-in post-processing steps: a `Step` record and one factory per named step.

A factory takes the step's spec arguments as keyword arguments, checks them (a bad value is
a `ValueError` with a message) and returns a `Step`. Text steps never fail; parsing steps
return `Unparseable` when they find no answer.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from audioeval.core.errors import InputError
from audioeval.core.sample import Sample
from audioeval.postprocess import text_steps
from audioeval.postprocess.choice_extraction import extract_choice
from audioeval.postprocess.json_field import json_field
from audioeval.postprocess.letters import extract_letter
from audioeval.postprocess.options import LETTERS
from audioeval.postprocess.outcome import Unparseable
from audioeval.postprocess.yes_no import parse_yes_no

StepFn = Callable[[str, Sample | None], "str | Unparseable"]


StepArg = str | int | float | bool
"""A step argument's value (a letter set, a field name, a pattern, a switch)."""
StepSpec = str | dict[str, dict[str, StepArg]]
"""A step as a spec list writes it: its name, or `{name: {argument: value}}`."""


@dataclass(frozen=True)
class Step:
    """One built step: its name, what it does, and the arguments that differ from defaults.

    `normalises` is True for text-to-text steps that never fail; only those may normalise
    references.
    """

    name: str
    fn: StepFn
    normalises: bool
    args: Mapping[str, StepArg] = field(default_factory=dict)

    def describe(self) -> StepSpec:
        return {self.name: dict(self.args)} if self.args else self.name


StepFactory = Callable[..., Step]


def text_step(name: str, fn: Callable[[str], str]) -> StepFactory:
    """The factory of a text-to-text step without arguments."""

    def factory() -> Step:
        return Step(name, lambda text, _sample: fn(text), True)

    factory.__doc__ = fn.__doc__
    return factory


def _sample_field(sample: Sample | None, name: str, step: str) -> Any:
    if sample is None:
        raise InputError(f"step {step!r} reads the sample's {name!r} field and cannot normalise references")
    value = sample.get(name)
    if value is None:
        raise InputError(
            f"step {step!r} needs this field; the sample has none",
            file=sample.source or None,
            sample_id=sample.id,
            field=name,
        )
    return value


def _choices(sample: Sample | None, name: str, step: str) -> list[str]:
    value = _sample_field(sample, name, step)
    if isinstance(value, str) or not isinstance(value, Sequence) or not value:
        assert sample is not None
        raise InputError(
            f"step {step!r} needs a non-empty list of options, got {value!r}",
            file=sample.source or None,
            sample_id=sample.id,
            field=name,
        )
    return [str(c) for c in value]


def whisper_basic(
    *, remove_diacritics: bool = False, split_letters: bool = False, preserve_marks: bool = False
) -> Step:
    if remove_diacritics and preserve_marks:
        raise ValueError("preserve_marks cannot be combined with remove_diacritics")
    args = {
        "remove_diacritics": remove_diacritics,
        "split_letters": split_letters,
        "preserve_marks": preserve_marks,
    }
    non_default = {k: v for k, v in args.items() if v}
    return Step(
        "whisper_basic",
        lambda text, _sample: text_steps.whisper_basic(text, **args),
        True,
        non_default,
    )


def remove_punctuation(*, keep: str = "'") -> Step:
    if not isinstance(keep, str):
        raise ValueError(f"keep must be a string of characters, got {keep!r}")
    args = {} if keep == "'" else {"keep": keep}
    return Step("remove_punctuation", lambda text, _s: text_steps.remove_punctuation(text, keep), True, args)


def extract_choice_step(*, field: str = "choices") -> Step:
    def run(text: str, sample: Sample | None) -> str | Unparseable:
        choices = _choices(sample, field, "extract_choice")
        found = extract_choice(text, choices)
        if found.index is None:
            return Unparseable(found.reason or "no option found")
        return choices[found.index]

    return Step("extract_choice", run, False, {} if field == "choices" else {"field": field})


def extract_letter_step(*, letters: str | None = None, field: str = "choices") -> Step:
    if letters is not None and (not isinstance(letters, str) or not letters.isalpha()):
        raise ValueError(f"letters must be a string of option letters such as 'ABCD', got {letters!r}")

    def run(text: str, sample: Sample | None) -> str | Unparseable:
        allowed = letters.upper() if letters else None
        if allowed is None:
            has_choices = sample is not None and sample.get(field) is not None
            allowed = LETTERS[: len(_choices(sample, field, "extract_letter"))] if has_choices else "ABCD"
        return extract_letter(text, allowed)

    args: dict[str, StepArg] = {"letters": letters} if letters else {}
    if field != "choices":
        args["field"] = field
    return Step("extract_letter", run, False, args)


def yes_no() -> Step:
    return Step("yes_no", lambda text, _s: parse_yes_no(text), False)


def json_field_step(*, field: str) -> Step:
    if not isinstance(field, str) or not field:
        raise ValueError(f"field must be a non-empty string, got {field!r}")
    return Step("json_field", lambda text, _s: json_field(text, field), False, {"field": field})


def regex(*, pattern: str, ignore_case: bool = False, last: bool = False) -> Step:
    try:
        compiled = re.compile(pattern, re.IGNORECASE if ignore_case else 0)
    except (re.error, TypeError) as exc:
        raise ValueError(f"pattern {pattern!r} is not a valid regular expression: {exc}") from exc

    def run(text: str, _sample: Sample | None) -> str | Unparseable:
        matches = list(compiled.finditer(text)) if last else [m for m in [compiled.search(text)] if m]
        if not matches:
            return Unparseable(f"no match for {pattern!r}")
        m = matches[-1]
        found = m.group(1) if compiled.groups else m.group(0)
        return found if found is not None else Unparseable(f"group 1 of {pattern!r} did not match")

    args: dict[str, StepArg] = {"pattern": pattern}
    args.update({k: v for k, v in {"ignore_case": ignore_case, "last": last}.items() if v})
    return Step("regex", run, False, args)
