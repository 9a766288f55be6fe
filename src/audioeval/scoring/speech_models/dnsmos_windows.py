"""DNSMOS's own recipe for cutting a clip into windows, reproduced exactly.

As in `speechmos.dnsmos` (and Microsoft's reference script): a clip shorter than 9.01 s is
doubled until it reaches 9.01 s; windows of 144,160 samples start every second; a window
whose float-computed end falls one sample short is skipped (this drops the windows that
start at 7 s … 23 s, a quirk of the reference kept for identical scores); the clip's score is
the mean over the windows left.

A tiled clip repeats itself every `len(clip)` samples, so two windows whose starts differ by a
multiple of that period hold the same samples: `plan_clip` keeps one of each such set (their
scores are then used once per window of the reference, so the mean is unchanged), and marks
when the P.835 frames of a run repeat (see `WindowRun.frame_period`).
"""

from __future__ import annotations

import math
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import Any

import numpy as np

from audioeval.core.errors import AudioError

SR = 16000
INPUT_LENGTH = 9.01
WINDOW = int(INPUT_LENGTH * SR)  # 144160 samples
HOP = SR
FRAME_HOP = 160
FRAME = 320
FRAMES = 900  # P.835 frames in a window
FRAMES_PER_HOP = HOP // FRAME_HOP  # 100


def tile(audio: np.ndarray) -> np.ndarray:
    """Double a short clip until it holds at least one window (as the reference does)."""
    if audio.size == 0:
        raise AudioError("DNSMOS cannot score an empty clip", field="audio")
    while len(audio) < WINDOW:
        audio = np.append(audio, audio)
    return audio


def window_starts(n_samples: int) -> list[int]:
    """Start samples of the windows the reference scores, for a tiled clip of n_samples."""
    num_hops = int(np.floor(n_samples / SR) - INPUT_LENGTH) + 1
    starts = []
    for idx in range(num_hops):
        start, end = int(idx * HOP), int((idx + INPUT_LENGTH) * HOP)
        if min(end, n_samples) - start >= WINDOW:
            starts.append(start)
    return starts


@dataclass(frozen=True)
class WindowRun:
    """Consecutive windows of one clip (starts 1 s apart) and the P.835 frames they cover."""

    clip: int
    starts: tuple[int, ...]
    frames: np.ndarray
    """(n_frames, 320) view into the tiled clip: frame k begins at sample starts[0] + 160 k."""
    frame_period: int | None = None
    """For a tiled clip, an even F with frame k == frame k + F throughout the run (see
    `frame_period`); None if the clip was not tiled. It saves work only when F is well under the
    run's length: for clip lengths that are multiples of 160 (or 80) samples."""

    @property
    def offsets(self) -> list[int]:
        """First frame of each window within `frames`."""
        return [(s - self.starts[0]) // FRAME_HOP for s in self.starts]


@dataclass(frozen=True)
class ClipPlan:
    """The windows the reference scores for one clip, and the runs that compute the distinct ones."""

    clip: int
    starts: tuple[int, ...]
    """Start of every window the reference scores, in its order."""
    period: int | None
    """Samples after which the tiled clip repeats (the clip's own length), None if not tiled."""
    runs: list[WindowRun]

    def key(self, start: int) -> int:
        """Equal for windows that hold the same samples (the computed one and its repeats)."""
        return start % self.period if self.period else start


def frame_period(period: int | None) -> int | None:
    """Frames after which the frames of a clip repeating every `period` samples repeat: the fewest
    160-sample hops that make a whole number of periods, `period / gcd(period, 160)`, doubled if
    odd so that 2×2-pooled frames repeat too; None without a period."""
    if not period:
        return None
    hops = period // math.gcd(period, FRAME_HOP)
    return hops if hops % 2 == 0 else 2 * hops


def plan_clip(clip: int, audio: np.ndarray, period: int | None, max_windows: int) -> ClipPlan:
    """Windows of a tiled clip (`period`: its length before tiling, or None if it was not tiled).

    Windows whose start is congruent modulo `period` to an earlier one's hold the same samples
    (both lie inside the tiled clip), so only the first of them is computed.
    """
    starts = window_starts(len(audio))
    distinct: dict[int, int] = {}
    for s in starts:
        distinct.setdefault(s % period if period else s, s)
    frames_period = frame_period(period)
    runs = [
        WindowRun(r.clip, r.starts, r.frames, frames_period)
        for r in plan_runs(clip, audio, max_windows, sorted(distinct.values()))
    ]
    return ClipPlan(clip, tuple(starts), period, runs)


def plan_runs(
    clip: int, audio: np.ndarray, max_windows: int, starts: list[int] | None = None
) -> list[WindowRun]:
    """Split the scored windows of a tiled clip (or the given `starts`) into runs of at most
    `max_windows` consecutive windows."""
    starts = window_starts(len(audio)) if starts is None else starts
    runs: list[list[int]] = []
    for s in starts:
        if runs and s - runs[-1][-1] == HOP and len(runs[-1]) < max_windows:
            runs[-1].append(s)
        else:
            runs.append([s])
    out = []
    for run in runs:
        n_frames = (len(run) - 1) * FRAMES_PER_HOP + FRAMES
        span = audio[run[0] : run[0] + (n_frames - 1) * FRAME_HOP + FRAME]
        frames = np.lib.stride_tricks.sliding_window_view(span, FRAME)[::FRAME_HOP]
        out.append(WindowRun(clip, tuple(run), frames))
    return out


class P808Features:
    """The reference's P.808 input for each window, with the STFT shared between windows.

    Reference recipe, per window: librosa mel power spectrogram of the window minus its last
    160 samples (centred frames, zero padding, periodic Hann, n_fft 321, hop 160, 120 mels),
    then `(power_to_db(S, ref=np.max) + 40) / 40`, transposed to (900, 120). Consecutive
    windows of a run share frames 1…898 (they start 100 frames apart), so those spectra are
    computed once per run; frames 0 and 899, which touch the zero padding, per window.
    """

    def __init__(self) -> None:
        import librosa

        self.window = librosa.filters.get_window("hann", FRAME + 1, fftbins=True)  # float64, as librosa
        self.mel_basis = librosa.filters.mel(sr=SR, n_fft=FRAME + 1, n_mels=120)  # (120, 161) float32
        self._blas = _blas_controller()

    def one_blas_thread(self) -> AbstractContextManager[object]:
        """Run numpy's BLAS on one thread (process-wide, for the duration): the mel projection is
        small, and the idle BLAS threads otherwise spin on the cores the models need (measured:
        ~9 % more CPU time for the whole DNSMOS call on 2 cores)."""
        if self._blas is None:
            return nullcontext()
        return self._blas.limit(limits=1, user_api="blas")

    def _mel(self, frames: np.ndarray) -> np.ndarray:
        """(..., 321) float32 frames → (..., 120) mel power, with librosa's numerics: the window
        product and FFT in float64, the spectrum stored as complex64, its power projected with the
        same einsum (a float32 FFT put P.808 up to 1.1e-6 off speechmos; this ~1e-7)."""
        import scipy.fft

        spec = scipy.fft.rfft(frames * self.window, axis=-1).astype(np.complex64)
        power = np.swapaxes(np.abs(spec) ** 2, -1, -2)  # (..., 161, T) as librosa holds it
        return np.swapaxes(np.einsum("...ft,mf->...mt", power, self.mel_basis, optimize=True), -1, -2)

    def for_run(self, audio: np.ndarray, starts: tuple[int, ...]) -> np.ndarray:
        """(len(starts), 900, 120) P.808 inputs for consecutive windows (starts 1 s apart)."""
        size, s0, n = FRAME + 1, starts[0], len(starts)
        shared = (n - 1) * FRAMES_PER_HOP + FRAMES - 2  # frames 1..898 of every window
        span = audio[s0 : s0 + FRAME_HOP * (shared - 1) + size]
        mel = self._mel(np.lib.stride_tricks.sliding_window_view(span, size)[::FRAME_HOP])
        edges = np.zeros((n, 2, size), dtype=np.float32)
        for w, start in enumerate(starts):
            edges[w, 0, FRAME_HOP:] = audio[start : start + size - FRAME_HOP]
            last = start + (FRAMES - 1) * FRAME_HOP - FRAME_HOP
            edges[w, 1, : size - 1] = audio[last : start + WINDOW - FRAME_HOP]
        edge_mel = self._mel(edges)
        out = np.empty((n, FRAMES, 120), dtype=np.float32)
        for w in range(n):
            m = np.concatenate(
                [edge_mel[w, :1], mel[w * FRAMES_PER_HOP : w * FRAMES_PER_HOP + FRAMES - 2], edge_mel[w, 1:]]
            )
            out[w] = _db_features(m)
        return out


def _blas_controller() -> Any:
    """threadpoolctl's controller of the BLAS libraries loaded now (it comes with librosa, through
    scikit-learn), or None without it."""
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:
        return None
    return ThreadpoolController()


def _db_features(mel: np.ndarray) -> np.ndarray:
    """`(librosa.power_to_db(mel, ref=np.max) + 40) / 40` (amin 1e-10, top_db 80)."""
    log_spec = 10.0 * np.log10(np.maximum(1e-10, mel))
    log_spec -= 10.0 * np.log10(np.maximum(1e-10, mel.max()))
    log_spec = np.maximum(log_spec, log_spec.max() - 80.0)
    return (log_spec + 40.0) / 40.0
