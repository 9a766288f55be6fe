"""'Did you mean …?' for names looked up in registries and keys read from YAML."""

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
