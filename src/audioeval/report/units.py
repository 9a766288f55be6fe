"""One unit per metric, everywhere it is shown: the page, the console and `leaderboard.md`.

A metric's unit is declared once, with its display name (`metrics/corpus.py`, or its
benchmark's `Benchmark.metrics`), and written into every `summary.json` metric block
(`unit`, `display`, `per_sample`). JSON keeps the value as computed, with its unit beside it;
every place that *shows* a value goes through `show_value` / `show_span` here, so WER 0.0247
(unit `fraction`) reads `2.47 %` on the board, in the metrics table and on the chart's 0–100
axis alike. The sample browser shows each sample's value in its metric's unit too: the metric
declares the per-sample value it is made of and the factor to its unit (`per_sample`: `wer`
0.1 → `10.00 %`; MMAE's `IFR` 0.5, × 100 to the percentage `mean:ifr` → `50.00 %`); a value
that extends one (`rouge_l_recall` of `rouge_l`) takes its unit; a value no metric declares is
shown as it is (`sample_units`, `show_sample`).

| unit       | shown as                 | axis    |
|------------|--------------------------|---------|
| `fraction` | ×100, with `%`           | 0–100   |
| `percent`  | as is, with `%`          | 0–100   |
| `mos`      | as is (a 1–5 scale)      | 0–5     |
| `score`    | as is (BLEU, CIDEr, …)   | 0–max   |
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from audioeval.core.json_value import JsonValue
from audioeval.metrics.declaration import find_declared, shown_name

if TYPE_CHECKING:
    from audioeval.metrics.summary_blocks import MetricBlock

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


def shown(value: JsonValue, unit: str | None) -> float | None:
    """The value on its display scale (a fraction ×100), or None when not a finite number."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return float(value) * scale(unit)


def show_value(value: JsonValue, unit: str | None, digits: int = 2, *, sign: bool = True) -> str:
    """`2.47 %` for WER 0.0247 (unit fraction); `–` when there is no finite value."""
    v = shown(value, unit)
    if v is None:
        return "–"
    return f"{v:.{digits}f}" + (" %" if sign and is_percent(unit) else "")


def show_span(ci: JsonValue | tuple[float, float], unit: str | None, digits: int = 1) -> str:
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


@dataclass(frozen=True)
class SampleUnit:
    """How one per-sample value is shown: in `unit` (its metric's), after × `scale` (the
    metric's declared factor from the value to its unit); `metric` and `name`: the metric it
    makes and that metric's display name."""

    unit: str
    scale: float = 1.0
    metric: str | None = None
    name: str | None = None

    @property
    def shown_factor(self) -> float:
        """Stored value -> shown number (`scale`, then × 100 for a fraction)."""
        return self.scale * scale(self.unit)


def _per_sample(name: str, block: MetricBlock) -> tuple[str, float]:
    """(per-sample value key, factor to the metric's unit) as the block declares them; a block
    written before metrics declared it: as the metric is declared now, else its name."""
    declared = block.get("per_sample")
    if isinstance(declared, dict) and isinstance(declared.get("key"), str):
        factor = declared.get("scale", 1.0)
        ok = isinstance(factor, int | float) and not isinstance(factor, bool) and math.isfinite(factor)
        return declared["key"], float(factor) if ok else 1.0
    declared = find_declared(name)
    if declared is not None and declared.per_sample is not None:
        return declared.per_sample.key, declared.per_sample.scale
    return name.split(":", 1)[-1], 1.0


def sample_units(metrics: Mapping[str, MetricBlock] | None) -> dict[str, SampleUnit]:
    """Per-sample value key (lower case) -> how it is shown, from a pair's `summary.json`
    metric blocks."""
    out: dict[str, SampleUnit] = {}
    for name, block in (metrics or {}).items() if isinstance(metrics, dict) else ():
        unit = block.get("unit") if isinstance(block, dict) else None
        if isinstance(unit, str):
            key, factor = _per_sample(str(name), block)
            out.setdefault(key.lower(), SampleUnit(unit, factor, str(name), shown_name(str(name), block)))
    return out


def unit_of(key: str | None, units: dict[str, SampleUnit]) -> SampleUnit | None:
    """How a per-sample value is shown: as its metric declares, else as the metric it extends
    (`rouge_l_recall`: `rouge_l`), else None (shown as it is)."""
    k = (key or "").lower()
    if k in units:
        return units[k]
    stems = [m for m in units if k.startswith(m + "_")]
    return units[max(stems, key=len)] if stems else None


def show_sample(value: JsonValue, how: SampleUnit | None) -> str:
    """One sample's value: in its metric's unit (`10.00 %` for WER 0.1, `50.00 %` for MMAE's
    IFR 0.5), else up to 4 decimals."""
    if how is not None:
        v = shown(value, None)
        return "–" if v is None else show_value(v * how.scale, how.unit)
    v = shown(value, None)
    return "–" if v is None else f"{v:.4f}".rstrip("0").rstrip(".")
