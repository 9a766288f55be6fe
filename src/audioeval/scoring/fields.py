"""Reading references and gold labels from a sample, with errors that name the sample."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from audioeval.core.errors import InputError
from audioeval.core.sample import Sample


def _bad(sample: Sample, field: str, message: str) -> InputError:
    return InputError(message, file=sample.source or None, sample_id=sample.id, field=field)


def text_list(sample: Sample, field: str, scorer: str) -> list[str]:
    """The field as a non-empty list of strings (a single string is a list of one)."""
    value: Any = sample.get(field)
    if value is None:
        raise _bad(sample, field, f"scorer {scorer!r} needs this field; the sample has none")
    if isinstance(value, str | int | float | bool):
        return [str(value)]
    if isinstance(value, Sequence) and value and all(isinstance(v, str | int | float) for v in value):
        return [str(v) for v in value]
    raise _bad(sample, field, f"scorer {scorer!r} needs a string or a list of strings, got {value!r}")


def references(sample: Sample, field: str | None, scorer: str) -> list[str]:
    """Reference texts: `field` if given, else `references` (a list) or `reference`."""
    if field is None:
        field = "references" if sample.get("references") is not None else "reference"
    return text_list(sample, field, scorer)
