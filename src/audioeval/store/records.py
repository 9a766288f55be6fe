"""Reading back a pair's `records.jsonl` as `core/record.SampleRecord`s: each line is checked
before a rerun, a summary, an export or a replay trusts it.

A record is used only when it has the shape `SampleRecord.to_json` writes: a string `id`; `error` a
string or null; `scores` null or a mapping of scorer -> {"values": mapping, "stats":
mapping} whose numbers are finite (a 0/1 `correct`, MMAE `ifr`/`cr`/`em` within 0–100); a
record without an error holds scores. Any other line (hand-edited, cut short) is ignored,
so its sample is asked again, and the reason is reported as `file:line: why`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from audioeval.core.record import SampleRecord
from audioeval.store.jsonl import iter_jsonl

BOUNDED_STATS: dict[str, tuple[float, float]] = {
    "correct": (0.0, 1.0),
    "ifr": (0.0, 100.0),
    "cr": (0.0, 100.0),
    "em": (0.0, 100.0),
}


@dataclass
class StoredRecords:
    """The valid records of a file, in order, and why other lines were ignored."""

    records: list[SampleRecord] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)


def _number_problem(key: str, value: Any) -> str | None:
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return None
    if isinstance(value, list):  # bounds are of scalars: BLEU's `correct` n-gram counts are a list
        return next((p for v in value if (p := _number_problem(f"{key}[]", v)) is not None), None)
    if isinstance(value, dict):
        return next((p for k, v in value.items() if (p := _number_problem(str(k), v)) is not None), None)
    if not isinstance(value, int | float) or not math.isfinite(value):
        return f"{key} {value!r} is not a finite number"
    low, high = BOUNDED_STATS.get(key, (-math.inf, math.inf))
    if not low <= value <= high:
        return f"{key} {value!r} is outside {low:g}–{high:g}"
    return None


def _block_problem(block: dict[Any, Any]) -> str | None:
    """`_number_problem` of a score's `values` or `stats`: each entry of the common kinds (an
    int, a finite float, a bool, None, a string) is checked in line, any other the long way;
    the first problem in entry order, as `_number_problem` would find it."""
    for key, value in block.items():
        kind = type(value)
        if kind is bool or value is None or kind is str:
            continue
        if (kind is int or kind is float) and math.isfinite(value):  # a huge int raises, as there
            bounds = BOUNDED_STATS.get(key if type(key) is str else str(key))
            if bounds is None or bounds[0] <= value <= bounds[1]:
                continue
        problem = _number_problem(str(key), value)
        if problem is not None:
            return problem
    return None


def _scores_problem(scores: Any, field_name: str) -> str | None:
    if not isinstance(scores, dict):
        return f"{field_name} {scores!r} is not a mapping"
    for name, entry in scores.items():
        if not isinstance(entry, dict):
            return f"{field_name}.{name} is not a mapping"
        for part in ("values", "stats"):
            block = entry.get(part)
            if not isinstance(block, dict):
                return f"{field_name}.{name}.{part} is not a mapping"
            problem = _block_problem(block)
            if problem is not None:
                return f"{field_name}.{name}.{part}: {problem}"
    return None


def record_problem(rec: Mapping[str, Any]) -> str | None:
    """Why a stored record cannot be used, or None when it can."""
    sid, error, scores = rec.get("id"), rec.get("error"), rec.get("scores")
    if not isinstance(sid, str) or not sid:
        return f"id {sid!r} is not a sample id"
    if error is not None and not isinstance(error, str):
        return f"id {sid!r}: error {error!r} is not text"
    if error is None and scores is None:
        return f"id {sid!r}: neither scores nor an error"
    for name in ("sample", "output", "processed", "judge"):
        value = rec.get(name)
        if value is not None and not isinstance(value, dict):
            return f"id {sid!r}: {name} {value!r} is not a mapping"
    for name in ("scores", "failure_scores"):
        value = rec.get(name)
        if value is not None and (problem := _scores_problem(value, name)) is not None:
            return f"id {sid!r}: {problem}"
    return None


def read_records(path: Path) -> StoredRecords:
    """Every valid record of a `records.jsonl` in file order, and the ignored lines (read a
    line at a time: only the typed records are held)."""
    out = StoredRecords()
    ignored: list[tuple[int, str]] = []
    for lineno, rec in iter_jsonl(path):
        problem = "not a JSON object" if rec is None else record_problem(rec)
        if problem is None and rec is not None:
            problem = _typed(rec, out.records)
        if problem is not None:
            ignored.append((lineno, problem))
    out.ignored = [f"{path}:{n}: {why}" for n, why in sorted(ignored)]
    return out


def _typed(rec: Mapping[str, Any], into: list[SampleRecord]) -> str | None:
    """Append the typed record of a checked line; why it cannot be read otherwise."""
    try:
        into.append(SampleRecord.from_json(rec))
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        return f"id {rec.get('id')!r}: not a record ({type(exc).__name__}: {exc})"
    return None
