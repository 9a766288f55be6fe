"""Text cells of the CSV files audioeval writes, safe to open in a spreadsheet.

A cell starting with `=`, `+`, `-`, `@`, a tab or a carriage return is read by spreadsheet
programs as a formula; as OWASP recommends ("CSV Injection"), such a text cell is written with
a single quote before it (`'=cmd`), which the program shows and never evaluates. Numbers are
written as they are (a negative number stays a number). Reading a CSV audioeval wrote gives
the text back: one leading quote before one of those characters is dropped.
"""

from __future__ import annotations

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def neutralise_cell(text: str) -> str:
    """`text` as a CSV text cell that no spreadsheet evaluates (see the module doc)."""
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def restore_cell(text: str) -> str:
    """The text of a cell `neutralise_cell` wrote (any other text as it is)."""
    return text[1:] if text.startswith("'") and text[1:].startswith(FORMULA_STARTS) else text
