"""Removing markdown emphasis and code marks that hide an answer (`**B**`, `` `B` ``)."""

from __future__ import annotations

import re

_MARKS_RE = re.compile(r"\*\*|__|`+|\$")
_LINE_PREFIX_RE = re.compile(r"^[ \t]*(?:#+|>+)[ \t]*", re.MULTILINE)


def strip_markdown(text: str) -> str:
    """The text without bold/italic double marks, backticks, `$`, heading and quote marks."""
    return _LINE_PREFIX_RE.sub("", _MARKS_RE.sub("", text)).strip()
