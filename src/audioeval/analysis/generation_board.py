"""Generation and codec leaderboards as UltraEval-Audio reports them: per benchmark, every
raw metric of each model, and the average where WER/CER enter as 100 − value, 0–5 MOS values
as 20 × value and similarities/fractions as 100 × value; a metric that does not apply (or
has no value) is a hyphen and stays out of the average. Nothing is clipped: a WER above 100 %
enters as a negative value, and the row names it in `negative_columns`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from audioeval.analysis.leaderboard import negative_columns

MOS_METRICS = ("dnsmos", "p808", "utmos", "pesq", "mos")


def display_name(metric: str) -> str:
    """`mean:dnsmos_ovrl` -> `dnsmos_ovrl` (how tables and compact summaries name it)."""
    return metric.split(":", 1)[1] if metric.startswith("mean:") else metric


def normalised_generation(metric: str, value: float | None) -> float | None:
    """The paper's rule: error rates 100 − 100·v, MOS-like 20·v, the rest (SIM, STOI, accuracy) 100·v."""
    if value is None:
        return None
    name = display_name(metric)
    if name in ("wer", "cer"):
        return 100.0 - 100.0 * value
    if any(m in name for m in MOS_METRICS):
        return 20.0 * value
    return 100.0 * value


def build_generation_boards(results: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """`{benchmark: {"metrics": [...], "averaged": [...], "rows": [{"model", "values", "average"}]}}`
    for every benchmark whose task has an average (TTS, VC, spoken answers, codecs)."""
    boards: dict[str, Any] = {}
    for res in results:
        averaged = list(res.get("average_metrics") or [])
        if not averaged:
            continue
        metrics = list(res.get("metrics") or {})
        board = boards.setdefault(
            res["benchmark"],
            {
                "task": res.get("task"),
                "metrics": [display_name(m) for m in metrics],
                "averaged": [display_name(m) for m in averaged],
                "rows": [],
            },
        )
        values = {display_name(m): (res["metrics"][m] or {}).get("value") for m in metrics}
        parts = [
            (display_name(m), normalised_generation(m, (res["metrics"].get(m) or {}).get("value")))
            for m in averaged
        ]
        defined = [p for _, p in parts if p is not None]
        board["rows"].append(
            {
                "model": res["model"],
                "values": values,
                "average": sum(defined) / len(defined) if defined else None,
                "averaged_over": len(defined),
                "negative_columns": negative_columns(parts),
                "scored": res.get("scored", 0),
                "failed": res.get("failed", 0),
            }
        )
    for board in boards.values():
        board["rows"].sort(key=lambda r: (r["average"] is None, -(r["average"] or 0.0)))
    return boards
