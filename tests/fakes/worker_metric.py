"""A fake metric runtime worker (stdlib only), standing in for a user's UTMOS, WavLM or
Paraformer-zh.

It obeys the JSON-lines worker protocol (docs/runtimes.md) and serves three metric tasks on
16-bit PCM WAVs read with `wave`, each a deterministic function of the audio that a test can
recompute:

- `mos`: `1 + 4 * min(1, 20 * rms)` (rms of the samples scaled to [-1, 1]), rounded to 6
  decimals, as text;
- `speaker_embedding`: the RMS of each of 8 equal segments of the clip, as a JSON list;
- `asr`: the transcript the worker arg `transcripts` (a JSON object in a string, as worker args
  are scalars: `'{"0.50": "答案是 b"}'`) gives for the clip's length in seconds, two decimals;
  a clip of another length is answered with an error.

Worker args (`--args-json`): `garbage` (answer "n/a"), `fail_longer_than` (seconds: longer
clips are answered with an error) and `fail_while` (a path: `fail_longer_than` holds only
while that file exists).
"""

from __future__ import annotations

import json
import math
import os
import sys
import wave
from array import array
from pathlib import Path

# the shipped worker protocol (src/audioeval/adapters/runtimes/workers/worker_protocol.py)
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src/audioeval/adapters/runtimes/workers"))
from worker_protocol import private_stdout, reply, serve, worker_args  # noqa: E402


def read_wav(path: str) -> tuple[list[float], int]:
    """The samples of a 16-bit PCM WAV scaled to [-1, 1], and its rate."""
    with wave.open(path, "rb") as w:
        if w.getsampwidth() != 2:
            raise ValueError(f"expected 16-bit PCM, got {8 * w.getsampwidth()}-bit")
        rate, frames = w.getframerate(), w.readframes(w.getnframes())
    samples = array("h")
    samples.frombytes(frames)
    if sys.byteorder == "big":
        samples.byteswap()
    if not samples:
        raise ValueError("empty clip")
    return [s / 32768.0 for s in samples], rate


def rms(x: list[float]) -> float:
    return math.sqrt(sum(v * v for v in x) / len(x)) if x else 0.0


def fake_mos(x: list[float]) -> str:
    return str(round(1 + 4 * min(1.0, 20 * rms(x)), 6))


def fake_embedding(x: list[float]) -> str:
    n = len(x) // 8
    return json.dumps([rms(x[i * n : (i + 1) * n]) for i in range(8)])


TASKS = {"mos": fake_mos, "speaker_embedding": fake_embedding, "asr": None}


def answer(req: dict, args: dict) -> dict:
    if req.get("task") not in TASKS:
        return reply(req, error=f"task {req.get('task')!r} not served (serves {', '.join(TASKS)})")
    task = TASKS[req["task"]]
    try:
        samples, rate = read_wav(req["audio"])
    except (OSError, EOFError, ValueError, wave.Error) as exc:
        return reply(req, error=f"cannot read {req.get('audio')}: {exc}")
    seconds = len(samples) / rate
    failing = args.get("fail_while") is None or os.path.exists(args["fail_while"])
    if failing and args.get("fail_longer_than") is not None and seconds > float(args["fail_longer_than"]):
        return reply(req, error=f"clip of {seconds:.2f} s is too long for this fake")
    if task is None:  # asr
        text = json.loads(args.get("transcripts") or "{}").get(f"{seconds:.2f}")
        return (
            reply(req, text=text)
            if text is not None
            else reply(req, error=f"no transcript for {seconds:.2f} s")
        )
    return reply(req, text="n/a" if args.get("garbage") else task(samples))


def main() -> int:
    out = private_stdout()
    args = worker_args()
    return serve(lambda req: answer(req, args), {"pid": os.getpid()}, out)


if __name__ == "__main__":
    sys.exit(main())
