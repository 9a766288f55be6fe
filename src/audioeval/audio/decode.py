"""Reading audio files into mono float32 arrays."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from audioeval.core.errors import AudioError


@dataclass(frozen=True)
class Clip:
    """Mono float32 samples in [-1, 1] and their sample rate."""

    samples: np.ndarray
    sample_rate: int

    @property
    def duration_s(self) -> float:
        return len(self.samples) / float(self.sample_rate)


def load_clip(path: str | Path, *, sample_id: str | None = None, field: str | None = None) -> Clip:
    """Decode any libsndfile format (WAV, FLAC, OGG, MP3) to a mono float32 clip."""
    import soundfile as sf

    p = Path(path)
    if not p.is_file():
        raise AudioError("audio file not found", file=str(p), sample_id=sample_id, field=field)
    try:
        data, rate = sf.read(str(p), dtype="float32", always_2d=True)
    except Exception as exc:  # soundfile raises several types for unreadable files
        raise AudioError(
            f"audio file could not be decoded ({exc})", file=str(p), sample_id=sample_id, field=field
        ) from exc
    if data.size == 0:
        raise AudioError("audio file holds no samples", file=str(p), sample_id=sample_id, field=field)
    require_finite(data, source=str(p), sample_id=sample_id, field=field)
    mono = data.mean(axis=1) if data.shape[1] > 1 else data[:, 0]
    return Clip(np.ascontiguousarray(mono, dtype=np.float32), int(rate))


def require_finite(
    samples: np.ndarray, *, source: str | None, sample_id: str | None = None, field: str | None = None
) -> None:
    """AudioError when any sample is NaN or ±inf (only floating-point files can hold them): such
    audio is never scored, transcribed or sent to a judge as if it were sound."""
    if np.isfinite(samples).all():
        return
    bad = int(samples.size - np.count_nonzero(np.isfinite(samples)))
    raise AudioError(
        f"audio contains {bad} non-finite samples (NaN/inf) of {samples.size}",
        file=source,
        sample_id=sample_id,
        field=field,
    )


FLOAT_SUBTYPES = frozenset({"FLOAT", "DOUBLE"})
"""libsndfile subtypes that store floating-point samples, the only ones that can hold NaN/inf."""


def require_finite_file(path: str | Path, *, sample_id: str | None = None, field: str | None = None) -> None:
    """`require_finite` on a file handed on undecoded (to a runtime worker); only files with
    floating-point samples are read, since integer PCM and lossy codecs cannot hold NaN/inf."""
    import soundfile as sf

    try:
        subtype = sf.info(str(path)).subtype
    except Exception:  # unreadable: the reader it is handed to reports it
        return
    if subtype in FLOAT_SUBTYPES:
        load_clip(path, sample_id=sample_id, field=field)


def require_readable_file(
    path: str | Path, *, sample_id: str | None = None, field: str | None = None
) -> None:
    """AudioError unless `path` is an audio file that holds samples, checked from its header
    (and, for floating-point files, its samples: `require_finite_file`) without decoding it
    otherwise. Run on every input clip before a model is asked, whether or not the model reads
    the clip (a baseline does not), so that unreadable input is never scored."""
    import soundfile as sf

    p = Path(path)
    if not p.is_file():  # also a dangling link or a symlink loop
        raise AudioError("audio file not found", file=str(p), sample_id=sample_id, field=field)
    try:
        info = sf.info(str(p))
    except Exception as exc:  # soundfile raises several types for unreadable files
        raise AudioError(
            f"audio file could not be decoded ({exc})", file=str(p), sample_id=sample_id, field=field
        ) from exc
    if info.frames <= 0:
        raise AudioError("audio file holds no samples", file=str(p), sample_id=sample_id, field=field)
    if info.subtype in FLOAT_SUBTYPES:
        load_clip(p, sample_id=sample_id, field=field)


def decode_bytes(
    data: bytes, *, source: str, sample_id: str | None = None, field: str | None = None
) -> tuple[np.ndarray, int]:
    """Decode encoded audio held in memory (any libsndfile format) to float32 frames × channels.

    `source` names where the bytes came from (an endpoint URL, a file) for the error message.
    """
    import io

    import soundfile as sf

    try:
        frames, rate = sf.read(io.BytesIO(data), dtype="float32", always_2d=True)
    except Exception as exc:  # soundfile raises several types for undecodable bytes
        reason = getattr(exc, "error_string", None) or str(exc)
        raise AudioError(
            f"audio could not be decoded ({reason}; {len(data)} bytes, starting {data[:12]!r})",
            file=source,
            sample_id=sample_id,
            field=field,
        ) from exc
    if frames.size == 0:
        raise AudioError("audio holds no samples", file=source, sample_id=sample_id, field=field)
    require_finite(frames, source=source, sample_id=sample_id, field=field)
    return frames, int(rate)


def resample(clip: Clip, target_rate: int) -> Clip:
    """Resample with soxr (high quality); a no-op when the rate already matches."""
    if target_rate <= 0 or clip.sample_rate == target_rate:
        return clip
    import soxr

    out = soxr.resample(clip.samples, clip.sample_rate, target_rate)
    return Clip(np.asarray(out, dtype=np.float32), target_rate)
