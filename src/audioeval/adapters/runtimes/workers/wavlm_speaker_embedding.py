"""WavLM speaker-embedding worker (Transformers), the `speaker_embedding` task of `sim`.

Loads `model` (a hub id, downloaded into the HF cache when online, or a local
`save_pretrained` folder). `head`:
- `xvector`: `WavLMForXVector` (e.g. microsoft/wavlm-base-plus-sv): its x-vector embedding;
- `mean`: `WavLMModel` (e.g. microsoft/wavlm-large): the last hidden state averaged over time.

NOT the Seed-TTS-Eval model: that one is WavLM-large with an ECAPA-TDNN head trained in the
UniSpeech repository (checkpoint `wavlm_large_finetune.pth`, loaded by UniSpeech's own code);
this worker cannot load that checkpoint, so its scale differs from Seed-TTS-Eval's SIM.
Answers the clip's embedding as a JSON list. Runs in the runtime's own venv; never imports
audioeval (protocol: worker_protocol.py).
"""

from __future__ import annotations

import json
import sys
from typing import Any

from worker_protocol import (
    WorkerArgs,
    WorkerInfo,
    WorkerRequest,
    pick_device,
    read_mono,
    run_worker,
    set_threads,
    versions,
)

DEFAULTS: WorkerArgs = {
    "model": "microsoft/wavlm-base-plus-sv",
    "head": "xvector",
    "device": "auto",
    "cpu_threads": 0,
}
TASKS = ("speaker_embedding",)


def load(args: WorkerArgs) -> tuple[Any, WorkerInfo]:
    import torch
    import transformers

    set_threads(int(args["cpu_threads"]))
    device = pick_device(str(args["device"]))
    classes = {"xvector": transformers.WavLMForXVector, "mean": transformers.WavLMModel}
    if args["head"] not in classes:
        raise ValueError(f"head must be one of {sorted(classes)}, got {args['head']!r}")
    model = classes[args["head"]].from_pretrained(str(args["model"])).to(device).eval()
    extractor = transformers.AutoFeatureExtractor.from_pretrained(str(args["model"]))
    info = {
        "model": args["model"],
        "head": args["head"],
        "device": device,
        **versions(transformers, torch),
    }
    return (extractor, model, device, args["head"]), info


def answer(state: Any, args: WorkerArgs, req: WorkerRequest) -> tuple[str | None, str | None]:
    import torch

    extractor, model, device, head = state
    if not req.get("audio"):
        raise ValueError("request has no audio")
    rate = int(extractor.sampling_rate)
    inputs = extractor(read_mono(req["audio"], rate), sampling_rate=rate, return_tensors="pt").to(device)
    with torch.inference_mode():
        out = model(**inputs)
        vec = out.embeddings[0] if head == "xvector" else out.last_hidden_state[0].mean(dim=0)
    values = [float(v) for v in vec.float().cpu()]
    return json.dumps(values), None


if __name__ == "__main__":
    sys.exit(run_worker(DEFAULTS, TASKS, load, answer))
