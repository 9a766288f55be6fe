"""FunASR worker: Paraformer-zh (ASR) and emotion2vec (emotion label / embedding). NOT run here.

Loads `model` with `funasr.AutoModel` (a ModelScope / hub name such as `paraformer-zh` or
`iic/emotion2vec_plus_large`, downloaded by FunASR when online, or a local model folder).
- task `asr`: the transcript (`res[0]["text"]`; Paraformer puts spaces between Chinese
  characters, which the CER normaliser removes);
- task `classification`: emotion2vec's top label (`res[0]["labels"]` by `scores`);
- task `emotion_embedding`: emotion2vec's utterance embedding as a JSON list (no scorer reads
  it yet).
No tiny constructible FunASR model exists here, so this worker has never run in this project:
its calls follow FunASR's documented `AutoModel(...).generate(input=...)` API.
Runs in the runtime's own venv; never imports audioeval (protocol: worker_protocol.py).
"""

from __future__ import annotations

import json
import sys
from typing import Any

from worker_protocol import WorkerArgs, WorkerInfo, WorkerRequest, pick_device, run_worker, versions

DEFAULTS: WorkerArgs = {"model": "paraformer-zh", "device": "auto", "serves": "asr"}
TASKS = ("asr", "classification", "emotion_embedding")


def load(args: WorkerArgs) -> tuple[Any, WorkerInfo]:
    import funasr
    from funasr import AutoModel

    device = pick_device(str(args["device"]))
    model = AutoModel(model=str(args["model"]), device=device, disable_update=True)
    info = {"model": args["model"], "device": device, **versions(funasr)}
    return model, info


def answer(model: Any, args: WorkerArgs, req: WorkerRequest) -> tuple[str | None, str | None]:
    if req["task"] not in str(args["serves"]).split(","):
        raise ValueError(f"this model is set up for {args['serves']}, not {req['task']}")
    if not req.get("audio"):
        raise ValueError("request has no audio")
    if req["task"] == "asr":
        return str(model.generate(input=req["audio"])[0]["text"]), None
    res = model.generate(input=req["audio"], granularity="utterance", extract_embedding=True)[0]
    if req["task"] == "emotion_embedding":
        return json.dumps([float(v) for v in res["feats"].reshape(-1)]), None
    best = max(range(len(res["scores"])), key=lambda i: res["scores"][i])
    return str(res["labels"][best]), None


if __name__ == "__main__":
    sys.exit(run_worker(DEFAULTS, TASKS, load, answer))
