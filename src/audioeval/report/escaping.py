"""User-supplied strings (model, benchmark and file names, taxonomy labels, failure texts) as
they are shown: literally, on one line, never as Markdown, HTML or Rich markup.

- `escape_markdown_cell`: for a cell or header of a Markdown table (`leaderboard.md`): no row
  or column can be added, no HTML, link or image passes raw.
- `console_cell`: a Rich `Text` for table cells, headers and titles (never parsed as markup).
- `console_text`: for a user string inside a markup f-string (`[red]error:[/red] {…}`).
- `failure_text`: a failure text for the console: API keys redacted, then `console_text`.
"""

from __future__ import annotations

import re

from rich.markup import escape
from rich.text import Text

from audioeval.core.redact import redact
from audioeval.core.shorten import shorten_plain

_LINE_BREAKS = re.compile(r"[\x00-\x1f\x7f\x85\u2028\u2029]+")
_MARKDOWN_SPECIALS = {
    "\\": "\\\\",
    "|": "\\|",
    "`": "\\`",
    "[": "\\[",
    "]": "\\]",
    "&": "&amp;",
    "<": "&lt;",
    ">": "&gt;",
}
_MARKDOWN_RE = re.compile("|".join(re.escape(c) for c in _MARKDOWN_SPECIALS))


def one_line(text: object) -> str:
    """`text` as one line: newlines and other control characters become one space."""
    return _LINE_BREAKS.sub(" ", str(text))


def escape_markdown_cell(text: object) -> str:
    """`text` as a Markdown table cell showing it literally (HTML entities for `<`, `>`, `&`)."""
    return _MARKDOWN_RE.sub(lambda m: _MARKDOWN_SPECIALS[m.group(0)], one_line(text))


def console_cell(text: object, style: str = "") -> Text:
    """`text` as a Rich table cell, header or title: shown literally."""
    return Text(one_line(text), style=style)


def console_text(text: object) -> str:
    """`text` escaped for a Rich markup string: `[/]`, `[red]` print as written."""
    return escape(one_line(text))


def failure_text(text: object) -> str:
    """A failure text for the console: secrets redacted first, then cut to one bounded line
    (so a cut never leaves part of a secret behind), shown literally."""
    return console_text(shorten_plain(redact(str(text))))
