"""Shape checks: fades in and out, channel layout and panning."""

from __future__ import annotations

import numpy as np

from audioeval.audio.verifiers.measurement import CANNOT_TELL, NO, YES, Audio, Measurement, cannot_tell, db

FADE_DROP_DB = 10.0  # a fade changes the level by at least this much
NO_FADE_DB = 3.0  # under this: no fade; between: cannot tell
FADE_SEGMENTS = 5
PAN_DB = 6.0  # one side louder by this much: panned
CENTRED_DB = 1.5  # sides within this: centred


def _segment_levels(x: np.ndarray, segments: int) -> np.ndarray:
    n = len(x) // segments
    return np.array(
        [db(float(np.mean(x[i * n : (i + 1) * n].astype(np.float64) ** 2))) for i in range(segments)]
    )


def fade(audio: Audio, direction: str, seconds: float = 1.0) -> Measurement:
    """Does the clip fade `in` (rise over its first `seconds`) or `out` (fall over its last)? The
    span is cut in five: the level must move the one way segment by segment (1 dB slack) and by
    at least FADE_DROP_DB overall."""
    if direction not in ("in", "out"):
        raise ValueError(f"fade direction must be 'in' or 'out', not {direction!r}")
    check = f"fade_{direction}"
    threshold = f"monotone level change >= {FADE_DROP_DB:g} dB over the {'first' if direction == 'in' else 'last'} {seconds:g} s"
    n = int(seconds * audio.rate)
    if n > audio.samples.shape[0] or n < FADE_SEGMENTS * 16:
        return cannot_tell(
            check,
            f"{audio.name} ({audio.duration_s:.2f} s) is shorter than the {seconds:g} s span",
            threshold,
        )
    x = audio.mono[:n] if direction == "in" else audio.mono[-n:]
    levels = _segment_levels(x, FADE_SEGMENTS)
    if direction == "out":
        levels = levels[::-1]  # rising towards the edge of the clip it fades from
    rise = float(levels[-1] - levels[0])
    monotone = bool(np.all(np.diff(levels) >= -1.0))
    if levels.max() < -60.0:
        return cannot_tell(check, "the span is silent", threshold)
    answer = YES if rise >= FADE_DROP_DB and monotone else NO if rise < NO_FADE_DB else CANNOT_TELL
    return Measurement(
        check,
        rise,
        "dB",
        threshold,
        answer,
        f"level over the span {', '.join(f'{v:.0f}' for v in levels)} dBFS",
    )


def channel_count(audio: Audio, channels: int) -> Measurement:
    return Measurement(
        "channels",
        audio.channels,
        "channels",
        f"== {channels}",
        YES if audio.channels == channels else NO,
        f"{audio.name} has {audio.channels} channel(s)",
    )


def pan_balance_db(audio: Audio) -> float | None:
    """Left over right level in dB (positive: left louder); None for mono or a silent clip."""
    if audio.channels < 2:
        return None
    left, right = (float(np.mean(audio.samples[:, c].astype(np.float64) ** 2)) for c in (0, 1))
    if max(left, right) < 1e-12:
        return None
    return float(db(left) - db(right))


def panned(audio: Audio, side: str) -> Measurement:
    """Is the clip panned to `side` ('left', 'right' or 'centre')?"""
    if side not in ("left", "right", "centre"):
        raise ValueError(f"side must be left, right or centre, not {side!r}")
    check = f"panned_{side}"
    threshold = f"left-right balance {'>= ' + str(PAN_DB) if side == 'left' else '<= -' + str(PAN_DB) if side == 'right' else f'within ±{CENTRED_DB}'} dB"
    bal = pan_balance_db(audio)
    if bal is None:
        return cannot_tell(check, f"{audio.name} is mono or silent: no panning to measure", threshold)
    signed = bal if side == "left" else -bal
    if side == "centre":
        answer = YES if abs(bal) <= CENTRED_DB else NO if abs(bal) >= PAN_DB else CANNOT_TELL
    else:
        answer = YES if signed >= PAN_DB else NO if signed <= CENTRED_DB else CANNOT_TELL
    return Measurement(
        check, bal, "dB (left over right)", threshold, answer, f"left {bal:+.1f} dB over right"
    )
