"""Frequency checks: a tone's presence, a band's presence, bandwidth and pitch."""

from __future__ import annotations

import numpy as np

from audioeval.audio.verifiers.measurement import CANNOT_TELL, NO, YES, Audio, Measurement, cannot_tell, db

TONE_FRAME_S = 0.1
TONE_MIN_DBFS = -50.0  # a tone quieter than this (amplitude) is not heard
TONE_PROMINENCE_DB = 15.0  # above the median of the surrounding ±200 Hz
TONE_TOLERANCE = 0.03  # "near f": within 3 % of f (at least 5 Hz)
STEADY_SHARE = 0.5  # a steady tone: present in at least half the frames
ABSENT_SHARE = 0.1  # absent: present in at most a tenth of them; between: cannot tell


def _frames(x: np.ndarray, n: int) -> np.ndarray:
    k = len(x) // n
    return x[: k * n].astype(np.float64).reshape(k, n)


def tone_present(audio: Audio, freq: float, *, tolerance: float = TONE_TOLERANCE) -> Measurement:
    """Is a steady tone near `freq` Hz in the clip? Per 100 ms Hann frame: the strongest bin within
    the tolerance, as a sine amplitude in dBFS, must reach TONE_MIN_DBFS and stand
    TONE_PROMINENCE_DB above the median level of the surrounding ±200 Hz. The value is the share of
    frames holding it: >= STEADY_SHARE yes, <= ABSENT_SHARE no, between cannot tell."""
    check = "tone_present"
    threshold = (
        f"share of 100 ms frames with a peak within ±{max(5.0, tolerance * freq):.0f} Hz of {freq:g} Hz "
        f">= {TONE_MIN_DBFS:g} dBFS and {TONE_PROMINENCE_DB:g} dB above its ±200 Hz surroundings: "
        f">= {STEADY_SHARE} yes, <= {ABSENT_SHARE} no"
    )
    if freq <= 0 or freq >= audio.rate / 2:
        return cannot_tell(
            check, f"{freq:g} Hz is outside 0..{audio.rate / 2:g} Hz (rate {audio.rate})", threshold
        )
    n = int(audio.rate * min(TONE_FRAME_S, audio.duration_s))
    frames = _frames(audio.mono, n)
    if frames.shape[0] == 0 or n < 16:
        return cannot_tell(check, f"{audio.name} is too short to measure", threshold)
    window = np.hanning(n)
    nfft = max(n, 1 << int(np.ceil(np.log2(audio.rate / 2.0))))  # bins of at most 2 Hz
    spec = np.abs(np.fft.rfft(frames * window, nfft, axis=1)) * 2.0 / window.sum()
    freqs = np.fft.rfftfreq(nfft, 1.0 / audio.rate)
    tol = max(5.0, tolerance * freq)
    band = (freqs >= freq - tol) & (freqs <= freq + tol)
    around = (np.abs(freqs - freq) <= 200.0) & ~band
    idx = np.flatnonzero(band)
    best = idx[np.argmax(spec[:, band], axis=1)]
    rows = np.arange(len(best))
    inner = np.clip(best, 1, spec.shape[1] - 2)
    # a peak of its own, not the slope of a neighbouring tone's lobe reaching into the band
    local_max = (spec[rows, inner] >= spec[rows, inner - 1]) & (spec[rows, inner] >= spec[rows, inner + 1])
    amp_db = db(spec[rows, best] ** 2)
    floor_db = db(np.median(spec[:, around], axis=1) ** 2) if around.any() else np.full(len(amp_db), -240.0)
    hits = local_max & (best == inner) & (amp_db >= TONE_MIN_DBFS) & (amp_db - floor_db >= TONE_PROMINENCE_DB)
    share = float(hits.mean())
    answer = YES if share >= STEADY_SHARE else NO if share <= ABSENT_SHARE else CANNOT_TELL
    strongest = float(np.max(amp_db))
    return Measurement(
        check,
        share,
        "share of frames",
        threshold,
        answer,
        f"tone near {freq:g} Hz in {hits.sum()}/{len(hits)} frames of {audio.name} (strongest {strongest:.1f} dBFS)",
    )


def _power_spectrum(audio: Audio) -> tuple[np.ndarray, np.ndarray]:
    from scipy.signal import welch

    x = audio.mono.astype(np.float64)
    f, p = welch(x, audio.rate, nperseg=min(len(x), 2048))
    return f, p


def band_present(audio: Audio, low: float, high: float, min_share_db: float = -20.0) -> Measurement:
    """Does the band [low, high] Hz hold at least `min_share_db` (dB) of the clip's energy?"""
    check = "band_present"
    threshold = f"energy in {low:g}-{high:g} Hz >= {min_share_db:g} dB of the total"
    if len(audio.mono) < 64:
        return cannot_tell(check, f"{audio.name} is too short to measure", threshold)
    f, p = _power_spectrum(audio)
    total = float(p.sum())
    if total <= 1e-14:
        return Measurement(check, None, "dB", threshold, NO, f"{audio.name} is silent")
    share = float(db(p[(f >= low) & (f <= high)].sum() / total))
    answer = YES if share >= min_share_db else NO
    return Measurement(
        check, share, "dB", threshold, answer, f"{share:.1f} dB of the energy lies in {low:g}-{high:g} Hz"
    )


def bandwidth_hz(audio: Audio, drop_db: float = 60.0) -> float | None:
    """The highest frequency whose Welch power is within `drop_db` of the strongest; None if silent."""
    f, p = _power_spectrum(audio)
    if p.max() <= 1e-20:
        return None
    strong = np.flatnonzero(db(p / p.max()) >= -drop_db)
    return float(f[strong[-1]])


def band_limited(audio: Audio, cutoff_hz: float, drop_db: float = 60.0) -> Measurement:
    """Is the clip's bandwidth at or below `cutoff_hz` (e.g. telephone, low-pass)?"""
    check = "band_limited"
    threshold = f"highest frequency within {drop_db:g} dB of the peak <= {cutoff_hz:g} Hz"
    if len(audio.mono) < 64:
        return cannot_tell(check, f"{audio.name} is too short to measure", threshold)
    bw = bandwidth_hz(audio, drop_db)
    if bw is None:
        return cannot_tell(check, f"{audio.name} is silent", threshold)
    return Measurement(check, bw, "Hz", threshold, YES if bw <= cutoff_hz else NO, f"bandwidth {bw:.0f} Hz")


YIN_THRESHOLD = 0.1
"""The cumulative-mean-normalised difference under which a lag is the period (de Cheveigné and
Kawahara's YIN, step 4)."""


def frame_pitch_hz(frame: np.ndarray, rate: int, fmin: float, fmax: float) -> float | None:
    """One frame's fundamental by YIN (difference function from the FFT autocorrelation,
    cumulative-mean normalisation, the first lag under the threshold, parabolic interpolation);
    None when no lag in [rate/fmax, rate/fmin] is periodic enough."""
    n = len(frame) // 2
    lo, hi = max(2, int(rate / fmax)), min(n - 1, int(rate / fmin))
    if hi <= lo:
        return None
    size = 1 << int(np.ceil(np.log2(2 * len(frame))))
    head = frame[:n]  # the window W = n samples, compared with itself shifted by each lag
    cross = np.fft.irfft(np.conj(np.fft.rfft(head, size)) * np.fft.rfft(frame, size), size)[: n + 1]
    energy = np.concatenate(([0.0], np.cumsum(frame**2)))
    lags = np.arange(n + 1)
    shifted = energy[lags + n] - energy[lags]  # energy of frame[tau : tau + n]
    diff = energy[n] + shifted - 2 * cross  # d(tau) = sum over j < n of (x_j - x_(j+tau))^2
    diff[0] = 0.0
    cmnd = np.ones_like(diff)
    running = np.cumsum(diff[1:])
    with np.errstate(divide="ignore", invalid="ignore"):
        cmnd[1:] = np.where(running > 0, diff[1:] * np.arange(1, n + 1) / running, 1.0)
    below = np.flatnonzero(cmnd[lo : hi + 1] < YIN_THRESHOLD)
    if not below.size:
        return None
    tau = lo + int(below[0])
    while tau + 1 <= hi and cmnd[tau + 1] < cmnd[tau]:
        tau += 1  # the local minimum after the first dip under the threshold
    a, b, c = cmnd[tau - 1], cmnd[tau], cmnd[tau + 1] if tau + 1 < len(cmnd) else cmnd[tau]
    bend = a - 2 * b + c
    offset = 0.5 * (a - c) / bend if bend > 0 else 0.0
    return float(rate / (tau + offset))


def median_pitch_hz(audio: Audio, fmin: float = 60.0, fmax: float = 1000.0) -> float | None:
    """Median fundamental (YIN, `frame_pitch_hz`) over the frames loud enough to carry one;
    None when none do. Plain numpy: no JIT-compiled code, whose on-disk cache several processes
    may write at once."""
    x = audio.mono.astype(np.float64)
    frame = 2048 if audio.rate > 24000 else 1024
    if len(x) < frame:
        return None
    hop = frame // 4
    found = []
    for start in range(0, len(x) - frame + 1, hop):
        chunk = x[start : start + frame]
        if db(float(np.mean(chunk**2))) <= -45.0:
            continue
        f0 = frame_pitch_hz(chunk, audio.rate, fmin, min(fmax, audio.rate / 4))
        if f0 is not None:
            found.append(f0)
    return float(np.median(found)) if found else None


def pitch_shift(out: Audio, ref: Audio, min_semitones: float = 1.0) -> Measurement:
    """Is the pitch of `out` moved from `ref` by at least `min_semitones`? Value in semitones."""
    check = "pitch_shift"
    threshold = f"|shift| >= {min_semitones:g} semitones"
    a, b = median_pitch_hz(out), median_pitch_hz(ref)
    if a is None or b is None:
        return cannot_tell(check, "no pitched frames in a clip", threshold)
    st = float(12 * np.log2(a / b))
    answer = YES if abs(st) >= min_semitones else NO
    return Measurement(check, st, "semitones", threshold, answer, f"median pitch {a:.1f} Hz vs {b:.1f} Hz")


def pitch_moved(out: Audio, ref: Audio, direction: str, min_semitones: float = 1.0) -> Measurement:
    """Is the pitch of `out` moved from `ref` by at least `min_semitones` `up` or `down`?
    Value in semitones (signed, as `pitch_shift`)."""
    if direction not in ("up", "down"):
        raise ValueError(f"pitch direction must be up or down, not {direction!r}")
    m = pitch_shift(out, ref, min_semitones)
    threshold = f"shift {'>= ' if direction == 'up' else '<= -'}{min_semitones:g} semitones"
    if m.answer == CANNOT_TELL or m.value is None:
        return Measurement(f"pitch_{direction}", m.value, m.unit, threshold, m.answer, m.reason)
    moved = m.value >= min_semitones if direction == "up" else m.value <= -min_semitones
    return Measurement(f"pitch_{direction}", m.value, m.unit, threshold, YES if moved else NO, m.reason)
