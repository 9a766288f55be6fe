"""Speech from the espeak-ng binary, for tests and demos: a sentence → float32 at 16 kHz.

espeak-ng is a formant synthesiser (robotic but intelligible), available as a Debian package;
voices such as `en-us` (male) and `en-us+f3` (female) give distinct speakers.
"""

from __future__ import annotations

import io
import shutil
import subprocess

import numpy as np

from audioeval.audio.decode import Clip, resample
from audioeval.core.errors import AudioError, OptionalDependencyError

ESPEAK_HINT = (
    "espeak-ng was not found on PATH: install the Debian package espeak-ng (apt-get install espeak-ng)"
)


def espeak_available() -> bool:
    return shutil.which("espeak-ng") is not None


def synthesize_espeak(
    text: str, *, voice: str = "en-us", speed: int = 160, pitch: int | None = None, rate: int = 16000
) -> np.ndarray:
    """Speak `text` with espeak-ng (`voice`, `speed` in words per minute) → mono float32 at `rate`."""
    import soundfile as sf

    binary = shutil.which("espeak-ng")
    if binary is None:
        raise OptionalDependencyError(ESPEAK_HINT)
    cmd = [binary, "-v", voice, "-s", str(int(speed)), "--stdout", "--stdin"]
    if pitch is not None:
        cmd[1:1] = ["-p", str(int(pitch))]
    proc = subprocess.run(cmd, input=text.encode("utf-8"), capture_output=True, timeout=60, check=False)
    if proc.returncode != 0 or not proc.stdout:
        err = proc.stderr.decode("utf-8", "replace").strip() or f"exit status {proc.returncode}"
        raise AudioError(f"espeak-ng failed for voice {voice!r}: {err}", field="voice")
    data, sr = sf.read(io.BytesIO(proc.stdout), dtype="float32", always_2d=True)
    return np.ascontiguousarray(resample(Clip(data[:, 0], int(sr)), rate).samples, dtype=np.float32)
