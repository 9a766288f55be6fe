"""One unit per metric, everywhere it is shown: the page, the console and `leaderboard.md`.

A metric's unit is decided once, where the metric is defined (`metrics/corpus.py`:
`CorpusMetric.unit`, written into every `summary.json` block as `"unit"`). JSON keeps the
value as computed, with its unit beside it; every place that *shows* a value goes through
`show_value` / `show_span` here, so WER 0.0247 (unit `fraction`) reads `2.47 %` on the
board, in the metrics table and on the chart's 0–100 axis alike. The sample browser shows each
sample's values the same way: a per-sample value takes the unit of the pair's metric of the same
name (`wer` 0.1 → `10.00 %`; `mean:chat_rating` → `chat_rating`; `rouge_l_recall` that of
`rouge_l`); a value with no metric of its name is shown as it is (`sample_units`, `show_sample`).

| unit       | shown as                 | axis    |
|------------|--------------------------|---------|
| `fraction` | ×100, with `%`           | 0–100   |
| `percent`  | as is, with `%`          | 0–100   |
| `mos`      | as is (a 1–5 scale)      | 0–5     |
| `score`    | as is (BLEU, CIDEr, …)   | 0–max   |
"""

from __future__ import annotations

import math
from typing import Any

PERCENT_UNITS = ("fraction", "percent")


def scale(unit: str | None) -> float:
    """What a stored value is multiplied by to be shown: 100 for a fraction, else 1."""
    return 100.0 if unit == "fraction" else 1.0


def is_percent(unit: str | None) -> bool:
    return unit in PERCENT_UNITS


def axis_limits(unit: str | None) -> tuple[float, float] | None:
    """The fixed range of a chart's value axis for the unit (None: from 0 to the data)."""
    if is_percent(unit):
        return (0.0, 100.0)
    if unit == "mos":
        return (0.0, 5.0)
    return None


def shown(value: Any, unit: str | None) -> float | None:
    """The value on its display scale (a fraction ×100), or None when not a finite number."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return float(value) * scale(unit)


def show_value(value: Any, unit: str | None, digits: int = 2, *, sign: bool = True) -> str:
    """`2.47 %` for WER 0.0247 (unit fraction); `–` when there is no finite value."""
    v = shown(value, unit)
    if v is None:
        return "–"
    return f"{v:.{digits}f}" + (" %" if sign and is_percent(unit) else "")


def show_span(ci: Any, unit: str | None, digits: int = 1) -> str:
    """A CI as `64.3–92.9` (on the value's scale, no sign), or `–` when there is none."""
    if not isinstance(ci, list | tuple) or len(ci) != 2:
        return "–"
    low, high = shown(ci[0], unit), shown(ci[1], unit)
    if low is None or high is None:
        return "–"
    return f"{low:.{digits}f}–{high:.{digits}f}"


def unit_label(unit: str | None) -> str:
    """The unit as an axis or column label: `%`, `MOS 1–5`, or '' for a plain score."""
    if is_percent(unit):
        return "%"
    return "MOS 1–5" if unit == "mos" else ""


def sample_units(metrics: Any) -> dict[str, str]:
    """Per-sample value key -> unit, from a pair's `summary.json` metric blocks."""
    out: dict[str, str] = {}
    for name, block in (metrics or {}).items() if isinstance(metrics, dict) else ():
        unit = block.get("unit") if isinstance(block, dict) else None
        if isinstance(unit, str):
            out[str(name).split(":", 1)[-1].lower()] = unit
    return out


def unit_of(key: str | None, units: dict[str, str]) -> str | None:
    """The unit of a per-sample value: its metric's, else that of the metric it extends
    (`rouge_l_recall`: `rouge_l`), else None (shown as it is)."""
    k = (key or "").lower()
    if k in units:
        return units[k]
    stems = [m for m in units if k.startswith(m + "_")]
    return units[max(stems, key=len)] if stems else None


def show_sample(value: Any, unit: str | None) -> str:
    """One sample's value: in its unit (`10.00 %` for WER 0.1), else up to 4 decimals."""
    if unit is not None:
        return show_value(value, unit)
    v = shown(value, None)
    return "–" if v is None else f"{v:.4f}".rstrip("0").rstrip(".")
