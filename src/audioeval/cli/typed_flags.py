"""The flags as the user typed them: an error about `--judge` given as `--base_urls` (a hidden
alias or an underscore form) names `--base_urls`, the spelling on the user's command line."""

from __future__ import annotations

import re
from contextvars import ContextVar

TYPED: ContextVar[dict[str, str]] = ContextVar("typed_flags", default={})  # noqa: B039
"""canonical option name -> the spelling typed, for the command being run (only where they differ)."""


def remember(typed: dict[str, str]) -> None:
    TYPED.set(dict(typed))


def as_typed(text: str) -> str:
    """`text` with each canonical flag the user typed otherwise written as it was typed."""
    for canonical, typed in TYPED.get().items():
        text = re.sub(rf"(?<![\w-]){re.escape(canonical)}(?![\w-])", typed, text)
    return text
