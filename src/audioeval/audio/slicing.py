"""Time slices in seconds with Python slice semantics (open ends, negative offsets)."""

from __future__ import annotations

import re

from audioeval.audio.decode import Clip

_BOUND = r"\s*(?:(-?\d+(?:\.\d*)?|-?\.\d+)\s*s?)?\s*"
_SLICE_RE = re.compile(rf"^{_BOUND}:{_BOUND}$")


def parse_slice(text: str) -> tuple[float | None, float | None]:
    """Parse '4.0s:5.7s', ':2s', '-2.5s:', '1:3' into (start, end) seconds.

    Raises ValueError for anything else.
    """
    m = _SLICE_RE.match(text)
    if not m:
        raise ValueError(f"not a time slice: {text!r} (expected e.g. '4.0s:5.7s', ':2s', '-2.5s:')")
    start, end = m.group(1), m.group(2)
    return (float(start) if start is not None else None, float(end) if end is not None else None)


def slice_bounds(n_samples: int, rate: int, start: float | None, end: float | None) -> tuple[int, int]:
    """Sample indices for a seconds slice, exactly as Python slices a list of samples."""
    s = None if start is None else int(round(start * rate))
    e = None if end is None else int(round(end * rate))
    lo, hi, _ = slice(s, e).indices(n_samples)
    return lo, max(lo, hi)


def cut(clip: Clip, start: float | None, end: float | None) -> Clip:
    lo, hi = slice_bounds(len(clip.samples), clip.sample_rate, start, end)
    return Clip(clip.samples[lo:hi], clip.sample_rate)
