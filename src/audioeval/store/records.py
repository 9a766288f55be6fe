"""The shape of a stored line of `records.jsonl`, checked before a rerun, a summary, an export
or a replay trusts it (the run folder's checked reader, `store/run_folder.py`, applies it to
every line, beside the checks that tie the line to its pair).

A record is used only when it has the shape `SampleRecord.to_json` writes: a string `id`; `error` a
string or null; `scores` null or a mapping of scorer -> {"values": mapping, "stats":
mapping} whose numbers are finite (a 0/1 `correct`, MMAE `ifr`/`cr`/`em` within 0–100); a
record without an error holds scores. Any other line (hand-edited, cut short) is left out,
so its sample is asked again, and the reason is reported as `file:line: why`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from audioeval.core.json_value import JsonValue

BOUNDED_STATS: dict[str, tuple[float, float]] = {
    "correct": (0.0, 1.0),
    "ifr": (0.0, 100.0),
    "cr": (0.0, 100.0),
    "em": (0.0, 100.0),
}


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


def record_problem(rec: Mapping[str, JsonValue]) -> str | None:
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
