"""One line per embedded metric model: how much audio it scored and how fast."""

from __future__ import annotations

from collections.abc import Mapping


def metric_models_lines(work: Mapping[str, Mapping[str, float]]) -> list[str]:
    """`model: N call(s), A s of audio in B s busy (X× real time)`, slowest first."""
    rows = sorted(work.items(), key=lambda kv: float(kv[1].get("x_realtime") or 0.0))
    return [
        f"{label}: {w['calls']} call(s), {w['audio_seconds']:.1f} s of audio in "
        f"{w['busy_seconds']:.1f} s busy ({w['x_realtime']:.1f}× real time)"
        for label, w in rows
    ]
