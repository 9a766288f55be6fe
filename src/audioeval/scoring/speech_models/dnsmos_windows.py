"""DNSMOS's own recipe for cutting a clip into windows, reproduced exactly.

As in `speechmos.dnsmos` (and Microsoft's reference script): a clip shorter than 9.01 s is
doubled until it reaches 9.01 s; windows of 144,160 samples start every second; a window
whose float-computed end falls one sample short is skipped (this drops the windows that
start at 7 s … 23 s, a quirk of the reference kept for identical scores); the clip's score is
the mean over the windows left.
"""

from __future__ import annotations

from dataclasses import dataclass

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

    @property
    def offsets(self) -> list[int]:
        """First frame of each window within `frames`."""
        return [(s - self.starts[0]) // FRAME_HOP for s in self.starts]


def plan_runs(clip: int, audio: np.ndarray, max_windows: int) -> list[WindowRun]:
    """Split the scored windows of a tiled clip into runs of at most `max_windows`."""
    starts = window_starts(len(audio))
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

        self.window = librosa.filters.get_window("hann", FRAME + 1, fftbins=True).astype(np.float32)
        self.mel_basis = librosa.filters.mel(sr=SR, n_fft=FRAME + 1, n_mels=120)  # (120, 161)

    def _mel(self, frames: np.ndarray) -> np.ndarray:
        """(..., 321) frames → (..., 120) mel power."""
        import scipy.fft

        spec = scipy.fft.rfft(frames * self.window, axis=-1)
        return (np.abs(spec) ** 2) @ self.mel_basis.T

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


def _db_features(mel: np.ndarray) -> np.ndarray:
    """`(librosa.power_to_db(mel, ref=np.max) + 40) / 40` (amin 1e-10, top_db 80)."""
    log_spec = 10.0 * np.log10(np.maximum(1e-10, mel))
    log_spec -= 10.0 * np.log10(np.maximum(1e-10, mel.max()))
    log_spec = np.maximum(log_spec, log_spec.max() - 80.0)
    return (log_spec + 40.0) / 40.0
