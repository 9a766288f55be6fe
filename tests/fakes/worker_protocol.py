"""The JSON-lines worker protocol for the stdlib fake workers beside this file (docs/runtimes.md).

A fake worker runs as a script, so this folder is first on its `sys.path` and it imports this
module directly. `serve(answer, info)` keeps the real stdout for protocol lines (anything else
printed goes to stderr), sends the ready line, answers `ping` and `shutdown`, and passes every
other request to `answer(request) -> reply dict` (`{"id", "text", "audio_path", "error"}`).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from typing import Any, TextIO

Reply = dict[str, Any]


def private_stdout() -> TextIO:
    sys.stdout.flush()
    real = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return os.fdopen(real, "w", encoding="utf-8", buffering=1)


def worker_args() -> dict[str, Any]:
    parser = argparse.ArgumentParser()
    parser.add_argument("--args-json", default="{}")
    return json.loads(parser.parse_args().args_json)


def reply(req: dict[str, Any], **fields: Any) -> Reply:
    return {"id": req["id"], "text": None, "audio_path": None, "error": None, **fields}


def serve(answer: Callable[[dict[str, Any]], Reply | None], info: dict[str, Any], out: TextIO) -> int:
    """The ready line, then one reply per request line until shutdown or end of input (an
    `answer` that returns None sends nothing)."""

    def send(obj: dict[str, Any]) -> None:
        out.write(json.dumps(obj) + "\n")
        out.flush()

    send({"ready": True, "info": info})
    for line in sys.stdin:
        req = json.loads(line)
        if req.get("op") == "ping":
            send({"pong": True})
        elif req.get("op") == "shutdown":
            return 0
        else:
            answered = answer(req)
            if answered is not None:
                send(answered)
    return 0
