"""Level checks: loudness (ITU-R BS.1770-4, K-weighted and gated), peak, clipping, silence,
silent stretches, noise floor, DC offset and duration."""

from __future__ import annotations

import numpy as np

from audioeval.audio.verifiers.measurement import (
    NO,
    YES,
    Audio,
    Measurement,
    cannot_tell,
    db,
    frame_rms_db,
)

SILENCE_DBFS = -60.0  # a 20 ms frame quieter than this is silent
CLIP_LEVEL = 0.999  # |sample| at or above this is at full scale
CLIPPED_SHARE = 0.001  # clipped when at least this share of samples sits in runs at full scale
DC_LIMIT = 0.01  # |mean| above this (-40 dBFS) is a DC offset


def _biquad(b: list[float], a: list[float]) -> tuple[np.ndarray, np.ndarray]:
    return np.array(b) / a[0], np.array(a) / a[0]


def k_weighting(rate: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """The two BS.1770 pre-filters (high shelf, high pass) designed for `rate`."""
    gain, q, fc = 4.0, 1 / np.sqrt(2), 1500.0  # the filter parameters pyloudnorm uses
    a_ = 10 ** (gain / 40)
    w0 = 2 * np.pi * fc / rate
    alpha, cw, sa = np.sin(w0) / (2 * q), np.cos(w0), np.sqrt(a_)
    shelf = _biquad(
        [
            a_ * ((a_ + 1) + (a_ - 1) * cw + 2 * sa * alpha),
            -2 * a_ * ((a_ - 1) + (a_ + 1) * cw),
            a_ * ((a_ + 1) + (a_ - 1) * cw - 2 * sa * alpha),
        ],
        [
            (a_ + 1) - (a_ - 1) * cw + 2 * sa * alpha,
            2 * ((a_ - 1) - (a_ + 1) * cw),
            (a_ + 1) - (a_ - 1) * cw - 2 * sa * alpha,
        ],
    )
    q, fc = 0.5, 38.0
    w0 = 2 * np.pi * fc / rate
    alpha, cw = np.sin(w0) / (2 * q), np.cos(w0)
    high_pass = _biquad([1.0, -2.0, 1.0], [1 + alpha, -2 * cw, 1 - alpha])
    return [shelf, high_pass]


def _block_powers(audio: Audio, block_s: float, step_s: float) -> np.ndarray:
    from scipy.signal import lfilter

    x = audio.samples.astype(np.float64)
    for b, a in k_weighting(audio.rate):
        x = lfilter(b, a, x, axis=0)
    n, hop = int(round(block_s * audio.rate)), int(round(step_s * audio.rate))
    if x.shape[0] < n:
        return np.empty(0)
    starts = range(0, x.shape[0] - n + 1, hop)
    # channel weights 1.0 (front channels); surround weighting needs a layout files do not carry
    return np.array([np.sum(np.mean(x[s : s + n] ** 2, axis=0)) for s in starts])


def integrated_lufs(audio: Audio) -> float | None:
    """Gated integrated loudness in LUFS; None for a clip under 0.4 s; -inf when all is gated."""
    z = _block_powers(audio, 0.4, 0.1)
    if z.size == 0:
        return None
    loud = -0.691 + db(z, 1e-20)
    z = z[loud > -70.0]
    if z.size == 0:
        return float("-inf")
    relative = -0.691 + float(db(np.mean(z), 1e-20)) - 10.0
    z = z[-0.691 + db(z, 1e-20) > relative]
    return float(-0.691 + db(np.mean(z), 1e-20)) if z.size else float("-inf")


def max_short_term_lufs(audio: Audio) -> float | None:
    """Loudest 3 s window (the whole clip when shorter, down to 0.4 s), LUFS."""
    window = min(3.0, audio.duration_s)
    z = _block_powers(audio, window, 0.1) if window >= 0.4 else np.empty(0)
    return None if z.size == 0 else float(-0.691 + db(np.max(z), 1e-20))


def loudness(audio: Audio) -> Measurement:
    value = integrated_lufs(audio)
    if value is None:
        return cannot_tell("loudness", f"{audio.name} is {audio.duration_s:.2f} s, under one 0.4 s block")
    return Measurement(
        "loudness", value, "LUFS", "BS.1770-4 gated", YES, f"integrated loudness {value:.1f} LUFS"
    )


def louder(out: Audio, ref: Audio, margin_lu: float = 1.0) -> Measurement:
    """Is `out` louder than `ref` by more than `margin_lu`? Within the margin: "no" (not louder);
    the mirror question (quieter) uses `quieter`."""
    a, b = integrated_lufs(out), integrated_lufs(ref)
    threshold = f"> {margin_lu:g} LU louder"
    if a is None or b is None:
        return cannot_tell("louder", "a clip is under one 0.4 s loudness block", threshold)
    diff = a - b
    if not np.isfinite(diff):
        return cannot_tell("louder", f"loudness {a:.1f} vs {b:.1f} LUFS: a clip is silent", threshold)
    answer = YES if diff > margin_lu else NO
    return Measurement(
        "louder", diff, "LU", threshold, answer, f"{out.name} {a:.1f} LUFS vs {ref.name} {b:.1f} LUFS"
    )


def quieter(out: Audio, ref: Audio, margin_lu: float = 1.0) -> Measurement:
    m = louder(ref, out, margin_lu)
    return Measurement("quieter", m.value, m.unit, f"> {margin_lu:g} LU quieter", m.answer, m.reason)


def peak(audio: Audio) -> Measurement:
    p = float(np.max(np.abs(audio.samples))) if audio.samples.size else 0.0
    value = float(db(p * p))
    return Measurement("peak", value, "dBFS", "", YES, f"sample peak {value:.1f} dBFS")


def clipped(audio: Audio, level: float = CLIP_LEVEL, share: float = CLIPPED_SHARE) -> Measurement:
    """Clipping: samples at full scale in runs of three or more (a single full-scale sample is a
    peak, a flat run is a clip)."""
    at = np.abs(audio.samples) >= level
    run3 = at[:-2] & at[1:-1] & at[2:] if at.shape[0] >= 3 else np.zeros((0, at.shape[1]), bool)
    flagged = np.zeros_like(at)
    for k in range(3):
        flagged[k : k + run3.shape[0]] |= run3
    frac = float(flagged.mean()) if flagged.size else 0.0
    threshold = f">= {share:.2%} of samples in full-scale runs (|x| >= {level})"
    return Measurement(
        "clipped", frac, "share", threshold, YES if frac >= share else NO, f"{frac:.3%} of samples clipped"
    )


def silent(audio: Audio, threshold_dbfs: float = SILENCE_DBFS) -> Measurement:
    """Silent when every 20 ms frame is below the threshold."""
    loudest = float(np.max(frame_rms_db(audio.mono, audio.rate)))
    answer = YES if loudest < threshold_dbfs else NO
    return Measurement(
        "silent",
        loudest,
        "dBFS",
        f"every 20 ms frame < {threshold_dbfs:g} dBFS",
        answer,
        f"loudest frame {loudest:.1f} dBFS",
    )


def silent_stretches(
    audio: Audio, min_s: float = 0.3, threshold_dbfs: float = SILENCE_DBFS
) -> list[tuple[float, float]]:
    """(start, end) seconds of every run of silent 20 ms frames lasting at least `min_s`."""
    levels = frame_rms_db(audio.mono, audio.rate)
    quiet = np.concatenate([[False], levels < threshold_dbfs, [False]])
    edges = np.flatnonzero(np.diff(quiet.astype(int)))
    runs = [(a * 0.02, b * 0.02) for a, b in zip(edges[::2], edges[1::2], strict=True)]
    return [(round(a, 3), round(b, 3)) for a, b in runs if b - a >= min_s - 1e-9]


def has_silence(audio: Audio, min_s: float = 0.3) -> Measurement:
    runs = silent_stretches(audio, min_s)
    longest = max((b - a for a, b in runs), default=0.0)
    return Measurement(
        "has_silence",
        runs,
        "s",
        f"a silent run >= {min_s:g} s",
        YES if runs else NO,
        f"longest silent run {longest:.2f} s",
    )


def noise_floor(audio: Audio) -> Measurement:
    """The 10th percentile of 20 ms frame levels: the level of the quiet parts."""
    value = float(np.percentile(frame_rms_db(audio.mono, audio.rate), 10))
    return Measurement(
        "noise_floor", value, "dBFS", "10th percentile of 20 ms frames", YES, f"noise floor {value:.1f} dBFS"
    )


def dc_offset(audio: Audio, limit: float = DC_LIMIT) -> Measurement:
    value = float(np.max(np.abs(audio.samples.mean(axis=0)))) if audio.samples.size else 0.0
    return Measurement(
        "dc_offset",
        value,
        "FS",
        f"|mean| > {limit:g}",
        YES if value > limit else NO,
        f"largest channel mean {value:.4f}",
    )


def duration_is(audio: Audio, seconds: float, tolerance_s: float = 0.1) -> Measurement:
    d = audio.duration_s
    answer = YES if abs(d - seconds) <= tolerance_s else NO
    return Measurement(
        "duration", d, "s", f"{seconds:g} ± {tolerance_s:g} s", answer, f"{audio.name} lasts {d:.3f} s"
    )


def shorter(out: Audio, ref: Audio, margin_s: float = 0.1) -> Measurement:
    d = out.duration_s - ref.duration_s
    answer = YES if d < -margin_s else NO
    return Measurement(
        "shorter", d, "s", f"< -{margin_s:g} s", answer, f"{out.duration_s:.2f} s vs {ref.duration_s:.2f} s"
    )
