"""One sentence and one field location for a failed validation of YAML data.

Takes the plain error dicts of a pydantic `ValidationError.errors()` (no pydantic import
here), so every config loader (benchmark specs, runtime specs, run configs, model entries)
words its errors the same way, with "did you mean …?" for misspelt keys.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypedDict

from audioeval.core.suggest import did_you_mean

KnownKeys = Iterable[str] | Callable[[tuple[Any, ...]], Iterable[str]]


class ErrorDetail(TypedDict):
    """What this reads of one error of `ValidationError.errors()` (pydantic's `ErrorDetails`)."""

    loc: tuple[int | str, ...]
    type: str
    msg: str


def describe_validation(errors: Sequence[ErrorDetail], known: KnownKeys) -> tuple[str, str]:
    """(message, dotted field location) of the first error; `known` gives the allowed keys
    (or, as a function of the error's parent location, the keys allowed there)."""
    first = errors[0]
    loc = tuple(first["loc"])
    if first["type"] == "extra_forbidden":
        keys = list(known(loc[:-1]) if callable(known) else known)
        message = f"unknown key{did_you_mean(str(loc[-1]), keys)}; allowed: {', '.join(keys)}"
    elif first["type"] == "missing":
        message = "required"
    else:
        message = str(first["msg"]).removeprefix("Value error, ")
    more = len(errors) - 1
    if more:
        message += f" (and {more} more problem(s))"
    return message, ".".join(str(p) for p in loc)
