"""Reference-based quality of a degraded clip: PESQ wideband (ITU-T P.862.2) and STOI.

Both compare against the clean reference sample by sample, so the two clips must be aligned
and of equal length (codec round-trips from `audioeval.adapters.codecs` are). PESQ runs at
16 kHz (both clips are resampled); STOI at the clips' rate (pystoi resamples to 10 kHz).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from audioeval.core.errors import AudioError
from audioeval.scoring.speech_models._audio import mono_at
from audioeval.scoring.speech_models._deps import require
from audioeval.scoring.speech_models.runtime import ModelStats

PESQ_RATE = 16000
STATS = ModelStats("pesq-wb+stoi")
"""Throughput of `reference_quality` calls in this process."""


@dataclass(frozen=True)
class ReferenceQuality:
    pesq_wb: float
    """PESQ-WB MOS-LQO, 1.04–4.64, higher is better."""
    stoi: float
    """Short-time objective intelligibility, 0–1, higher is better."""


def _pair(reference: np.ndarray, degraded: np.ndarray, sr: int, rate: int) -> tuple[np.ndarray, np.ndarray]:
    ref, deg = mono_at(reference, sr, rate), mono_at(degraded, sr, rate)
    if len(ref) != len(deg):
        raise AudioError(
            f"reference and degraded clips differ in length ({len(ref)} vs {len(deg)} samples at {rate} Hz); "
            "align them first (codec round-trips already are)",
            field="audio",
        )
    return ref.astype(np.float64), deg.astype(np.float64)


def _silent(ref: np.ndarray, deg: np.ndarray) -> str | None:
    """Which clip of the pair is digital silence (all zeros), if any."""
    for name, clip in (("reference", ref), ("degraded", deg)):
        if not np.any(clip):
            return name
    return None


def pesq_wb(reference: np.ndarray, degraded: np.ndarray, sr: int) -> float:
    """Wideband PESQ of `degraded` against `reference` (both at `sr`, resampled to 16 kHz).

    PESQ is undefined on digital silence (the library fails on it): AudioError, as for any pair
    it cannot score."""
    pesq = require("pesq")
    ref, deg = _pair(reference, degraded, sr, PESQ_RATE)
    silent = _silent(ref, deg)
    if silent is not None:
        raise AudioError(f"PESQ could not score this pair: the {silent} clip is silent", field="audio")
    try:
        with np.errstate(divide="ignore", invalid="ignore"):  # pesq divides by the peak
            return float(pesq.pesq(PESQ_RATE, ref, deg, "wb"))
    except Exception as exc:  # PesqError (no utterance found), ValueError on degenerate input
        reason = f"{type(exc).__name__}: {exc}" if not isinstance(exc, pesq.PesqError) else str(exc)
        raise AudioError(f"PESQ could not score this pair: {reason}", field="audio") from exc


def stoi(reference: np.ndarray, degraded: np.ndarray, sr: int, *, extended: bool = False) -> float:
    """STOI (or ESTOI with `extended`) of `degraded` against `reference`, both at `sr`."""
    pystoi = require("pystoi")
    ref, deg = _pair(reference, degraded, sr, sr)
    if not np.any(ref):  # pystoi would warn and return 1e-5, a number that means nothing
        raise AudioError("STOI could not score this pair: the reference clip is silent", field="audio")
    return float(pystoi.stoi(ref, deg, sr, extended=extended))


def reference_quality(reference: np.ndarray, degraded: np.ndarray, sr: int) -> ReferenceQuality:
    """PESQ-WB and STOI in one call."""
    with STATS.measure(len(reference) / sr):
        return ReferenceQuality(pesq_wb(reference, degraded, sr), stoi(reference, degraded, sr))
