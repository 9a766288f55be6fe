"""A fake codec runtime worker (stdlib only): requantises 16-bit PCM WAV to fewer bits.

It obeys the JSON-lines worker protocol (docs/runtimes.md, "Worker protocol") and serves task
`codec`: it reads the request's `audio` with `wave`, keeps the top `bits` bits of every 16-bit
sample (rounding to the nearest level, so the error is real quantisation noise), and writes a
WAV with the input's rate and channels to `audio_out`. Worker args (`--args-json`): `bits`
(1–16, default 6). A request that cannot be served is answered with `error`; the worker keeps
serving.
"""

from __future__ import annotations

import os
import sys
import wave
from array import array
from pathlib import Path

# the shipped worker protocol (src/audioeval/adapters/runtimes/workers/worker_protocol.py)
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src/audioeval/adapters/runtimes/workers"))
from worker_protocol import private_stdout, reply, serve, worker_args  # noqa: E402


def requantise(pcm: bytes, bits: int) -> bytes:
    """16-bit little-endian PCM rounded to `bits` bits (the lowest 16 - bits bits become zero)."""
    samples = array("h")
    samples.frombytes(pcm)
    if sys.byteorder == "big":
        samples.byteswap()
    step = 1 << (16 - bits)
    top = 32768 - step  # the largest level that fits in int16
    out = array("h", (max(-32768, min(top, round(s / step) * step)) for s in samples))
    if sys.byteorder == "big":
        out.byteswap()
    return out.tobytes()


def roundtrip(src: str, dst: str, bits: int) -> int:
    """Requantise the WAV `src` into `dst`; the number of frames written."""
    with wave.open(src, "rb") as w:
        if w.getsampwidth() != 2 or w.getcomptype() != "NONE":
            raise ValueError(f"expected 16-bit PCM WAV, got {8 * w.getsampwidth()}-bit {w.getcomptype()}")
        params = w.getparams()
        pcm = w.readframes(w.getnframes())
    with wave.open(dst, "wb") as w:
        w.setnchannels(params.nchannels)
        w.setsampwidth(2)
        w.setframerate(params.framerate)
        w.writeframes(requantise(pcm, bits))
    return params.nframes


def answer(req: dict, bits: int) -> dict:
    if req.get("task") != "codec":
        return reply(req, error=f"task {req.get('task')!r} not served (serves codec)")
    if not req.get("audio") or not req.get("audio_out"):
        return reply(req, error="a codec request needs both audio and audio_out")
    try:
        roundtrip(req["audio"], req["audio_out"], bits)
    except (OSError, EOFError, ValueError, wave.Error) as exc:
        return reply(req, error=f"cannot round-trip {req['audio']}: {exc}")
    return reply(req, audio_path=req["audio_out"])


def main() -> int:
    out = private_stdout()
    bits = int(worker_args().get("bits", 6))
    if not 1 <= bits <= 16:
        print(f"fake codec worker: bits must be 1–16, got {bits}", file=sys.stderr)
        return 1
    return serve(lambda req: answer(req, bits), {"pid": os.getpid(), "bits": bits}, out)


if __name__ == "__main__":
    sys.exit(main())
