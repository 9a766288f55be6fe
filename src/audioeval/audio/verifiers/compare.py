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

    def snr_at(lag: int) -> float:
        lo, hi = max(0, -lag), n - max(0, lag)  # out[i + lag] against in[i]
        resid = float(np.mean((a[lo + lag : hi + lag] - b[lo:hi]) ** 2))
        return float(db(power / max(resid, 1e-20)))

    best, snr = 0, snr_at(0)
    max_lag = int(0.05 * rate)
    if snr < snr_db and n > 4 * max_lag:  # not the same as is: perhaps the same, shifted
        core = b[max_lag : n - max_lag]
        lags = range(-max_lag, max_lag + 1)
        # every lag's dot product of the shifted output with the core at once (FFT correlation):
        # scores[lag + max_lag] = a[max_lag + lag : n - max_lag + lag] · core
        size = 1 << int(np.ceil(np.log2(n + len(core))))
        full = np.fft.irfft(np.fft.rfft(a, size) * np.conj(np.fft.rfft(core, size)), size)
        scores = full[: 2 * max_lag + 1]
        # periodic audio matches at several lags: the one nearest 0 among the best
        top = float(scores.max()) if scores.size and np.isfinite(scores).all() else None
        if top is not None:  # within a relative hair of the best (a negative best included)
            near_best = [lag for lag, sc in zip(lags, scores, strict=True) if sc >= top - 1e-9 * abs(top)]
            lag = min(near_best, key=abs)
            if lag != 0 and (shifted := snr_at(lag)) > snr:
                best, snr = lag, shifted
    answer = YES if snr >= snr_db else NO
    return Measurement(
        check,
        snr,
        "dB",
        threshold,
        answer,
        f"input over residual {snr:.1f} dB at lag {best / rate * 1000:.0f} ms",
    )


def _envelope(x: np.ndarray, rate: int, frame_s: float = 0.02) -> np.ndarray:
    n = max(1, int(rate * frame_s))
    k = len(x) // n
    return db(np.mean(x[: k * n].reshape(k, n) ** 2, axis=1)) if k else np.empty(0)


def _spectrogram(x: np.ndarray, rate: int, frame_s: float = 0.05, bands: int = 60) -> np.ndarray:
    """Log band energies (frames × bands, dB floored at -80): what sounds when, at which pitch."""
    n = max(16, int(rate * frame_s))
    k = len(x) // n
    if k == 0:
        return np.empty((0, bands))
    spec = np.abs(np.fft.rfft(x[: k * n].reshape(k, n) * np.hanning(n), axis=1)) ** 2
    # bands spaced by octave fractions from 50 Hz up, so that tones a third apart fall apart
    hz = np.geomspace(50.0, rate / 2, bands + 1)
    edges = np.unique(np.clip(np.round(hz * n / rate).astype(int), 1, spec.shape[1]))
    energy = np.stack([spec[:, a:b].sum(axis=1) for a, b in zip(edges[:-1], edges[1:], strict=True)], axis=1)
    return np.maximum(db(energy / (n * n)), -80.0)


def _corr(a: np.ndarray, b: np.ndarray) -> float:
    n = min(len(a), len(b))
    a, b = a[:n].ravel(), b[:n].ravel()
    a, b = a - a.mean(), b - b.mean()
    d = float(np.sqrt(np.sum(a * a) * np.sum(b * b)))
    return float(np.sum(a * b) / d) if d > 1e-9 else 0.0


REVERSED_MIN = 0.8  # the output must resemble the reversed input this much (spectrogram correlation)
REVERSED_MARGIN = 0.1  # and more than it resembles the input as is
SYMMETRIC = 0.9  # an input this like its own reverse cannot tell


def reversed_of(out: Audio, ref: Audio) -> Measurement:
    """Is `out` the input played backwards? Correlates the log band spectrogram of `out` with
    that of the reversed input and of the input as is: yes when the first is >= REVERSED_MIN and
    exceeds the second by REVERSED_MARGIN; no when it does not exceed it (by 0.02) or is under
    0.5; a time-symmetric input cannot tell."""
    check = "reversed"
    threshold = (
        f"spectrogram correlation with the reversed input >= {REVERSED_MIN:g} and >= "
        f"{REVERSED_MARGIN:g} above that with the input"
    )
    rate = min(out.rate, ref.rate)
    a, b = _spectrogram(_mono_at(out, rate), rate), _spectrogram(_mono_at(ref, rate), rate)
    if len(a) < 3 or len(b) < 3:
        return cannot_tell(check, "a clip is shorter than 150 ms", threshold)
    if _corr(b, b[::-1]) > SYMMETRIC:
        return cannot_tell(check, "the input sounds the same backwards", threshold)
    forward, backward = _corr(a, b), _corr(a, b[::-1])
    diff = backward - forward
    if backward >= REVERSED_MIN and diff >= REVERSED_MARGIN:
        answer = YES
    elif diff <= 0.02 or backward < 0.5:
        answer = NO
    else:
        answer = CANNOT_TELL
    return Measurement(
        check,
        backward,
        "correlation",
        threshold,
        answer,
        f"spectrogram correlation backward {backward:.2f}, forward {forward:.2f}",
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


def speed_moved(out: Audio, ref: Audio, direction: str, tolerance: float = SPEED_TOLERANCE) -> Measurement:
    """Does `out` play `faster` or `slower` than `ref`: the sounding-duration ratio of
    `speed_ratio` above 1 + tolerance, or below 1 - tolerance."""
    if direction not in ("faster", "slower"):
        raise ValueError(f"speed direction must be faster or slower, not {direction!r}")
    m = speed_ratio(out, ref, tolerance)
    threshold = f"sounding-duration ratio {'> 1 +' if direction == 'faster' else '< 1 -'} {tolerance:g}"
    if m.answer == CANNOT_TELL or m.value is None:
        return Measurement(direction, m.value, m.unit, threshold, m.answer, m.reason)
    moved = m.value > 1 + tolerance if direction == "faster" else m.value < 1 - tolerance
    return Measurement(direction, m.value, m.unit, threshold, YES if moved else NO, m.reason)
