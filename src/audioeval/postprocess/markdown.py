"""Removing markdown emphasis and code marks that hide an answer (`**B**`, `` `B` ``)."""

from __future__ import annotations

import re

_MARKS_RE = re.compile(r"\*\*|__|`+|\$")
_LINE_PREFIX_RE = re.compile(r"^[ \t]*(?:#+|>+)[ \t]*", re.MULTILINE)


def strip_markdown(text: str) -> str:
    """The text without bold/italic double marks, backticks, `$`, heading and quote marks
    (a text with none of their characters is only stripped, without the two scans)."""
    if not ("**" in text or "__" in text or "`" in text or "$" in text or "#" in text or ">" in text):
        return text.strip()  # none of what either pattern needs to match
    return _LINE_PREFIX_RE.sub("", _MARKS_RE.sub("", text)).strip()
