"""A fake runtime worker (stdlib only) that obeys the JSON-lines protocol, with switches.

Worker args (`--args-json`): `fail_start` exits with a message on stderr before ready;
`startup_delay_s` sleeps before ready; `noise` prints to stdout (through the redirect) at
start, as chatty libraries do. Request text picks a behaviour: `crash` exits mid-request,
`garbage` prints a non-JSON line, `sleep:N` sleeps N seconds, `error` answers with an error;
anything else is echoed with the worker's pid and the audio's frame count (WAV via `wave`).
"""

from __future__ import annotations

import json
import os
import sys
import time
import wave
from pathlib import Path

# the shipped worker protocol (src/audioeval/adapters/runtimes/workers/worker_protocol.py)
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src/audioeval/adapters/runtimes/workers"))
from worker_protocol import private_stdout, reply, serve, worker_args  # noqa: E402


def answer(req: dict, out) -> dict | None:
    text = req.get("text") or ""
    if text == "crash":
        print("fake worker: segmentation fault (simulated)", file=sys.stderr, flush=True)
        os._exit(3)
    if text == "garbage":
        out.write("Loading weights 100%|##########|\n")
        out.flush()
        return None
    if text.startswith("sleep:"):
        time.sleep(float(text.split(":", 1)[1]))
    if text == "error":
        return reply(req, error="cannot decode audio")
    frames = None
    if req.get("audio"):
        with wave.open(req["audio"]) as w:
            frames = w.getnframes()
    echoed = {"pid": os.getpid(), "text": text, "task": req.get("task"), "frames": frames}
    return reply(req, text=json.dumps(echoed))


def main() -> int:
    out = private_stdout()
    args = worker_args()
    if args.get("noise"):
        print("chatty library banner on stdout")
    if args.get("fail_start"):
        print("fake worker: could not load model weights (simulated)", file=sys.stderr)
        return 1
    time.sleep(float(args.get("startup_delay_s", 0)))
    return serve(lambda req: answer(req, out), {"pid": os.getpid(), "args": args}, out)


if __name__ == "__main__":
    sys.exit(main())
