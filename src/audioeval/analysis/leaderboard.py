"""Leaderboards from stored summaries: models × benchmarks, each cell the benchmark's
headline metric with its CI, plus a normalised average as UltraEval-Audio computes it
(error rates enter as 100 − value, 0–5 MOS values as 20 × value, fractions × 100).

Nothing is clipped: an error rate above 100 % (more insertions than reference words) gives a
negative normalised value, which enters the average as it is. Such a cell is flagged: each
row lists the benchmarks whose normalised value is below 0 in `negative_columns`, and the
tables mark the cell and the average.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any


def normalised(value: float | None, *, unit: str, higher_is_better: bool) -> float | None:
    """The value on a 0–100 scale where higher is better (None stays None)."""
    if value is None:
        return None
    if unit == "fraction":
        v = 100.0 * value
    elif unit == "mos":
        v = 20.0 * value
    else:  # "percent", "score" (BLEU, chrF: already 0–100)
        v = value
    return v if higher_is_better else 100.0 - v


def negative_columns(normalised_values: Iterable[tuple[str, float | None]]) -> list[str]:
    """The columns whose normalised value is below 0 (they pull the average down unclipped)."""
    return [name for name, value in normalised_values if value is not None and value < 0]


def build_leaderboard(results: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """`{"benchmarks": [...], "rows": [{"model", "cells": {bench: cell}, "average", "rank"}]}`.

    A cell holds the headline metric's value, CI, n, failed count (and how many of them had no
    usable output, counted in the value or excluded from it) and normalised value; the
    average is over the benchmarks the model has a value for (`covered` says how many);
    `negative_columns` names the benchmarks whose normalised value is below 0.
    """
    benchmarks: list[str] = []
    headlines: dict[str, str] = {}
    rows: dict[str, dict[str, Any]] = {}
    for res in results:
        bench, model = res["benchmark"], res["model"]
        if bench not in benchmarks:
            benchmarks.append(bench)
        headline = res["headline"]
        headlines[bench] = headline
        block = (res.get("metrics") or {}).get(headline) or {}
        cell = {
            "metric": headline,
            "value": block.get("value"),
            "ci": block.get("ci"),
            "n": res.get("scored", 0),
            "failed": res.get("failed", 0),
            "failed_outputs": (res.get("failed_outputs") or {}).get("n", 0),
            "failed_outputs_in_headline": (res.get("failed_outputs") or {}).get("in_headline", "counted"),
            "higher_is_better": block.get("higher_is_better", True),
            "unit": block.get("unit", "fraction"),
        }
        cell["normalised"] = normalised(
            cell["value"], unit=str(cell["unit"]), higher_is_better=bool(cell["higher_is_better"])
        )
        rows.setdefault(model, {"model": model, "cells": {}})["cells"][bench] = cell
    for row in rows.values():
        vals = [c["normalised"] for c in row["cells"].values() if c["normalised"] is not None]
        row["average"] = sum(vals) / len(vals) if vals else None
        row["covered"] = len(vals)
        row["negative_columns"] = negative_columns((b, c["normalised"]) for b, c in row["cells"].items())
    # Ranked by average; an average over fewer benchmarks is marked as such in the tables.
    ordered = sorted(rows.values(), key=lambda r: (r["average"] is None, -(r["average"] or 0.0)))
    for rank, row in enumerate(ordered, start=1):
        row["rank"] = rank
    return {"benchmarks": benchmarks, "headlines": headlines, "rows": ordered}
