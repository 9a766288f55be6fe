"""docs/fidelity.md is one table, and no row of it lacks a test: every row names at least one
test (`tests/FILE.py::NAME`, or `::NAME` for another test of the file named before it in the
same cell), and each named test exists."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DOC = REPO / "docs" / "fidelity.md"
HEADER = "| benchmark / family |"
REF_RE = re.compile(r"(tests/[\w/]+\.py)?::(\w+)")


def table_rows() -> list[list[str]]:
    lines = DOC.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(HEADER))
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip().strip("|").split(" | ")])
    return rows


def test_the_doc_has_one_fidelity_table_with_five_columns() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert text.count(HEADER) == 1
    rows = table_rows()
    assert len(rows) >= 10
    for row in rows:
        assert len(row) == 5, row[0]


def test_every_row_names_tests_that_exist() -> None:
    for row in table_rows():
        refs = REF_RE.findall(row[4])
        assert refs, f"row {row[0]!r} names no test"
        current = None
        for file, name in refs:
            current = file or current
            assert current, f"row {row[0]!r}: ::{name} without a test file before it"
            source = (REPO / current).read_text(encoding="utf-8")
            assert re.search(rf"^(async )?def {name}\(", source, re.M), f"row {row[0]!r}: {current}::{name}"
