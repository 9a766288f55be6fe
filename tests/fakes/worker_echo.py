"""A fake runtime worker (stdlib only) that obeys the JSON-lines protocol, with switches.

Worker args (`--args-json`): `fail_start` exits with a message on stderr before ready;
`startup_delay_s` sleeps before ready; `noise` prints to stdout (through the redirect) at
start, as chatty libraries do. Request text picks a behaviour: `crash` exits mid-request,
`garbage` prints a non-JSON line, `sleep:N` sleeps N seconds, `error` answers with an error;
anything else is echoed with the worker's pid and the audio's frame count (WAV via `wave`).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import wave


def private_stdout():
    sys.stdout.flush()
    real = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return os.fdopen(real, "w", encoding="utf-8", buffering=1)


def main() -> int:
    out = private_stdout()
    parser = argparse.ArgumentParser()
    parser.add_argument("--args-json", default="{}")
    args = json.loads(parser.parse_args().args_json)
    if args.get("noise"):
        print("chatty library banner on stdout")
    if args.get("fail_start"):
        print("fake worker: could not load model weights (simulated)", file=sys.stderr)
        return 1
    time.sleep(float(args.get("startup_delay_s", 0)))

    def send(obj):
        out.write(json.dumps(obj) + "\n")
        out.flush()

    send({"ready": True, "info": {"pid": os.getpid(), "args": args}})
    for line in sys.stdin:
        req = json.loads(line)
        if req.get("op") == "ping":
            send({"pong": True})
            continue
        if req.get("op") == "shutdown":
            return 0
        text = req.get("text") or ""
        if text == "crash":
            print("fake worker: segmentation fault (simulated)", file=sys.stderr, flush=True)
            os._exit(3)
        if text == "garbage":
            out.write("Loading weights 100%|##########|\n")
            out.flush()
            continue
        if text.startswith("sleep:"):
            time.sleep(float(text.split(":", 1)[1]))
        if text == "error":
            send({"id": req["id"], "text": None, "audio_path": None, "error": "cannot decode audio"})
            continue
        frames = None
        if req.get("audio"):
            with wave.open(req["audio"]) as w:
                frames = w.getnframes()
        reply = {"pid": os.getpid(), "text": text, "task": req.get("task"), "frames": frames}
        send({"id": req["id"], "text": json.dumps(reply), "audio_path": None, "error": None})
    return 0


if __name__ == "__main__":
    sys.exit(main())
