"""'Did you mean …?' for names looked up in registries and keys read from YAML.

Two wordings: names given on the command line ("unknown task 'x' (did you mean 'asr'?);
known: …") and names read from a spec file ("unknown scorer 'x'. Did you mean 'wer'? Known:
….").
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """' (did you mean 'x'?)' for the closest known name, or '' when none is close."""
    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def unknown_name(kind: str, name: str, known: Iterable[str]) -> str:
    """A full message: the unknown name, the suggestion, and what is known."""
    names = sorted(known)
    return f"unknown {kind} {name!r}{did_you_mean(name, names)}; known: {', '.join(names)}"


def close_names(name: str, known: Iterable[str]) -> str:
    """' Did you mean 'x' or 'y'?' for up to three close known names, or ''.

    The wording of names read from spec files (steps, scorers, metrics, their arguments).
    """
    close = difflib.get_close_matches(name, sorted(known), n=3, cutoff=0.6)
    if not close:
        return ""
    return " Did you mean " + " or ".join(repr(c) for c in close) + "?"


def unknown_spec_name(kind: str, name: object, known: Iterable[str]) -> str:
    """A full message for a name read from a spec: the name, suggestions, what is known."""
    names = sorted(known)
    return f"unknown {kind} {name!r}.{close_names(str(name), names)} Known: {', '.join(names)}."


def one_of(kind: str, value: str, known: Iterable[str]) -> str:
    """`value` when it is one of `known` (a spec or config field's validator); else a ValueError
    naming what is known: "unknown <kind> 'x': one of a, b"."""
    names = list(known)
    if value not in names:
        raise ValueError(f"unknown {kind} {value!r}{did_you_mean(value, names)}: one of {', '.join(names)}")
    return value
