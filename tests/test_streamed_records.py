"""Reading a records file a line at a time gives what reading it whole gave: the same
records, the same line numbers for the lines passed over, a cut-short last line left out."""

from __future__ import annotations

import json
from pathlib import Path

from audioeval.store.jsonl import read_jsonl
from audioeval.store.records import read_records

GOOD = {"id": "a", "error": None, "scores": {"acc": {"values": {"correct": 1}, "stats": {"correct": 1}}}}


def test_line_numbers_blank_lines_bare_cr_and_a_cut_tail(tmp_path: Path) -> None:
    path = tmp_path / "records.jsonl"
    lines = [
        json.dumps(GOOD),  # 1
        "",  # 2: blank, skipped
        "not json",  # 3
        "[1, 2]",  # 4: not an object
        '{"id": "b", "error": "boom"}\r{"id": 7}',  # 5 and 6: a bare CR ends a line too
        json.dumps({**GOOD, "id": "c"}),  # 7
    ]
    path.write_bytes(("\n".join(lines) + "\n").encode() + b'{"id": "cut')  # a last line cut short
    report = read_jsonl(path)
    assert [r["id"] for r in report.records] == ["a", "b", 7, "c"]
    assert report.line_numbers == [1, 5, 6, 7]
    assert report.bad_lines == [3, 4]
    assert report.truncated_tail
    stored = read_records(path)
    assert [r.id for r in stored.records] == ["a", "b", "c"]
    assert [line.split(":", 2)[1] for line in stored.ignored] == ["3", "4", "6"]
    assert "not a JSON object" in stored.ignored[0] and "not a sample id" in stored.ignored[2]


def test_a_missing_file_reads_as_empty(tmp_path: Path) -> None:
    assert read_jsonl(tmp_path / "none.jsonl").records == []
    assert read_records(tmp_path / "none.jsonl").records == []
