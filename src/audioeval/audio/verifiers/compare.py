"""Checks of an output against its input: sameness, reversal and speed."""

from __future__ import annotations

import numpy as np

from audioeval.audio.verifiers.level import SILENCE_DBFS
from audioeval.audio.verifiers.measurement import CANNOT_TELL, NO, YES, Audio, Measurement, cannot_tell, db

SAME_SNR_DB = 40.0  # residual at least this far below the input: the same audio
SPEED_TOLERANCE = 0.05


def _mono_at(audio: Audio, rate: int) -> np.ndarray:
    from audioeval.audio.decode import Clip, resample

    return resample(Clip(audio.mono.astype(np.float32), audio.rate), rate).samples.astype(np.float64)


def same_as(out: Audio, ref: Audio, snr_db: float = SAME_SNR_DB) -> Measurement:
    """Is `out` the input unchanged (after resampling to one rate)? Value: the SNR of the input
    over the residual, at the lag that aligns them best (within 50 ms)."""
    check = "same_as_input"
    threshold = f"signal to residual >= {snr_db:g} dB and lengths within 50 ms"
    rate = min(out.rate, ref.rate)
    a, b = _mono_at(out, rate), _mono_at(ref, rate)
    if abs(len(a) - len(b)) > 0.05 * rate:
        return Measurement(
            check,
            None,
            "dB",
            threshold,
            NO,
            f"lengths differ: {out.duration_s:.2f} s vs {ref.duration_s:.2f} s",
        )
    n = min(len(a), len(b))
    a, b = a[:n], b[:n]
    power = float(np.mean(b**2))
    if power < 1e-12:
        same = float(np.mean(a**2)) < 1e-12
        return Measurement(check, None, "dB", threshold, YES if same else NO, "the input is silent")
    max_lag = int(0.05 * rate)
    best = 0
    if n > 4 * max_lag:
        core = b[max_lag : n - max_lag]
        lags = sorted(range(-max_lag, max_lag + 1), key=abs)  # ties (periodic audio): the smallest lag
        scores = [float(np.dot(a[max_lag + lag : n - max_lag + lag], core)) for lag in lags]
        best = lags[int(np.argmax(scores))]
    shifted = np.roll(a, -best)
    lo, hi = abs(best), n - abs(best)
    resid = float(np.mean((shifted[lo:hi] - b[lo:hi]) ** 2))
    snr = float(db(power / max(resid, 1e-20)))
    return Measurement(
        check,
        snr,
        "dB",
        threshold,
        YES if snr >= snr_db else NO,
        f"input over residual {snr:.1f} dB at lag {best / rate * 1000:.0f} ms",
    )


def _envelope(x: np.ndarray, rate: int, frame_s: float = 0.02) -> np.ndarray:
    n = max(1, int(rate * frame_s))
    k = len(x) // n
    return db(np.mean(x[: k * n].reshape(k, n) ** 2, axis=1)) if k else np.empty(0)


def _corr(a: np.ndarray, b: np.ndarray) -> float:
    n = min(len(a), len(b))
    a, b = a[:n] - a[:n].mean(), b[:n] - b[:n].mean()
    d = float(np.sqrt(np.sum(a * a) * np.sum(b * b)))
    return float(np.sum(a * b) / d) if d > 1e-9 else 0.0


def reversed_of(out: Audio, ref: Audio, margin: float = 0.2) -> Measurement:
    """Is `out` the input played backwards? Compares the correlation of the loudness envelopes
    with the reversed input and with the input as is; a time-symmetric input cannot tell."""
    check = "reversed"
    threshold = f"envelope correlation with the reversed input exceeds that with the input by >= {margin:g}"
    rate = min(out.rate, ref.rate)
    a, b = _envelope(_mono_at(out, rate), rate), _envelope(_mono_at(ref, rate), rate)
    if len(a) < 5 or len(b) < 5:
        return cannot_tell(check, "a clip is shorter than 100 ms", threshold)
    forward, backward = _corr(a, b), _corr(a, b[::-1])
    if _corr(b, b[::-1]) > 0.9:
        return cannot_tell(
            check, "the input sounds the same backwards (symmetric loudness envelope)", threshold
        )
    diff = backward - forward
    answer = YES if diff >= margin else NO if diff <= -margin or forward > 0.9 else CANNOT_TELL
    return Measurement(
        check,
        diff,
        "correlation",
        threshold,
        answer,
        f"envelope correlation backward {backward:.2f}, forward {forward:.2f}",
    )


def _active_duration(audio: Audio) -> float:
    levels = _envelope(audio.mono.astype(np.float64), audio.rate)
    loud = np.flatnonzero(levels > SILENCE_DBFS)
    return 0.0 if loud.size == 0 else (loud[-1] - loud[0] + 1) * 0.02


def speed_ratio(out: Audio, ref: Audio, tolerance: float = SPEED_TOLERANCE) -> Measurement:
    """How much faster `out` plays than `ref`: the ratio of their sounding durations (leading and
    trailing silence trimmed). "yes" (changed) when outside 1 ± tolerance."""
    check = "speed_changed"
    threshold = f"sounding-duration ratio outside 1 ± {tolerance:g}"
    a, b = _active_duration(out), _active_duration(ref)
    if a <= 0 or b <= 0:
        return cannot_tell(check, "a clip is silent", threshold)
    ratio = b / a
    answer = YES if abs(ratio - 1) > tolerance else NO
    return Measurement(
        check,
        ratio,
        "x",
        threshold,
        answer,
        f"sounding {a:.2f} s vs input {b:.2f} s (duration ratio, not tempo tracking)",
    )
