"""What a runtime worker reads from a `ModelRequest`: one audio path and the user's text.

The audio is the first audio part of a user message, else the sample's `audio` input. A
worker reads whole files, so a slice (`AudioRef` with start/end) is cut with the audio
helpers and written as a 16-bit WAV into the adapter's temporary folder.
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path

from audioeval.adapters.base import ModelRequest
from audioeval.core.errors import AudioevalError
from audioeval.core.messages import AudioPart, AudioRef, TextPart


def first_audio(request: ModelRequest) -> AudioRef | None:
    for message in request.messages:
        if message.role == "user":
            for part in message.parts:
                if isinstance(part, AudioPart):
                    return part.audio
    return request.sample.audio.get("audio")


def text_input(request: ModelRequest) -> str | None:
    """The text of every user message, one per line; None when there is none."""
    texts = [p.text for m in request.messages if m.role == "user" for p in m.parts if isinstance(p, TextPart)]
    return "\n".join(texts) if texts else None


def audio_input(request: ModelRequest, tmp_dir: Path) -> str | None:
    """An absolute path the worker can read, or None; a slice becomes a temp WAV in `tmp_dir`."""
    ref = first_audio(request)
    if ref is None:
        return None
    from audioeval.audio.decode import load_clip, require_finite_file

    if not ref.is_slice:
        if not Path(ref.path).is_file():
            raise AudioevalError(f"audio file not found: {ref.path}")
        require_finite_file(ref.path, sample_id=request.sample.id, field="audio")  # the worker reads it as is
        return os.path.abspath(ref.path)
    from audioeval.audio.encode import wav_bytes
    from audioeval.audio.slicing import cut

    clip = cut(load_clip(ref.path, sample_id=request.sample.id, field="audio"), ref.start, ref.end)
    if len(clip.samples) == 0:
        raise AudioevalError(f"slice {ref.start}:{ref.end} of {ref.path} is empty")
    out = tmp_dir / f"{uuid.uuid4().hex}.wav"
    out.write_bytes(wav_bytes(clip))
    return str(out)
