"""Speech presence: the WebRTC voice-activity detector (package webrtcvad-wheels), guarded against
what it mistakes for speech (steady noise, which it flags whole)."""

from __future__ import annotations

import numpy as np

from audioeval.audio.verifiers.measurement import CANNOT_TELL, NO, YES, Audio, Measurement, cannot_tell, db
from audioeval.core.errors import OptionalDependencyError

VAD_RATE = 16000
VAD_FRAME_S = 0.03
VAD_MODE = 3  # the strictest
SPEECH_SHARE = 0.3  # voiced share of frames above which there is speech
NO_SPEECH_SHARE = 0.1  # at or below: no speech
MIN_MODULATION_DB = 3.0  # speech rises and falls syllable by syllable; steady noise does not
MAX_FLATNESS = 0.3  # spectral flatness of the voiced frames: noise is near 0.5 or above


def _vad() -> object:
    try:
        import webrtcvad
    except ImportError as exc:  # pragma: no cover - the package is a dependency
        raise OptionalDependencyError(
            "speech presence needs webrtcvad-wheels: pip install webrtcvad-wheels"
        ) from exc
    return webrtcvad.Vad(VAD_MODE)


def speech_present(audio: Audio) -> Measurement:
    """Share of 30 ms frames the VAD calls speech, counted only in frames above -50 dBFS, and zero
    when the voiced frames are flat-spectrum or unmodulated (noise). >= SPEECH_SHARE yes,
    <= NO_SPEECH_SHARE no, between cannot tell."""
    from audioeval.audio.decode import Clip, resample

    check = "speech_present"
    threshold = f"voiced share of 30 ms frames >= {SPEECH_SHARE} yes, <= {NO_SPEECH_SHARE} no (WebRTC VAD mode {VAD_MODE})"
    x = resample(Clip(audio.mono.astype(np.float32), audio.rate), VAD_RATE).samples
    n = int(VAD_RATE * VAD_FRAME_S)
    k = len(x) // n
    if k < 3:
        return cannot_tell(check, f"{audio.name} is shorter than 90 ms", threshold)
    frames = x[: k * n].astype(np.float64).reshape(k, n)
    pcm = (np.clip(frames, -1, 1) * 32767).astype("<i2")
    vad = _vad()
    level = db(np.mean(frames**2, axis=1))
    voiced = np.array([vad.is_speech(f.tobytes(), VAD_RATE) for f in pcm]) & (level > -50.0)  # type: ignore[attr-defined]
    reason = ""
    if voiced.sum() >= 3:
        spec = np.abs(np.fft.rfft(frames[voiced] * np.hanning(n), axis=1)) ** 2 + 1e-20
        flatness = float(np.median(np.exp(np.mean(np.log(spec), axis=1)) / np.mean(spec, axis=1)))
        modulation = float(np.std(level[voiced]))
        if flatness > MAX_FLATNESS or modulation < MIN_MODULATION_DB:
            reason = f" but they are noise-like (flatness {flatness:.2f}, level spread {modulation:.1f} dB)"
            voiced[:] = False
    share = float(voiced.mean())
    answer = YES if share >= SPEECH_SHARE else NO if share <= NO_SPEECH_SHARE else CANNOT_TELL
    return Measurement(
        check,
        share,
        "share of frames",
        threshold,
        answer,
        f"VAD: {int(voiced.sum())}/{k} voiced frames{reason}",
    )
