"""UTMOS22 (strong learner) MOS worker, the `mos` task of the `utmos` scorer. NOT run here.

Loads the predictor with `torch.hub.load(repo, "utmos22_strong", trust_repo=True)`: `repo`
is `tarepan/SpeechMOS:v1.2.0` (GitHub; the hub downloads code and weights when online) or a
local clone of that repository (`source: local`, weights then come from its own URL unless
already in the torch hub cache). Each clip is read at 16 kHz and scored; the answer is the MOS
as text. UTMOS weights are in no registry package and no tiny architecture is constructible
here, so this worker has never run in this project.
Runs in the runtime's own venv; never imports audioeval (protocol: worker_protocol.py).
"""

from __future__ import annotations

import sys
from typing import Any

from worker_protocol import (
    WorkerArgs,
    WorkerInfo,
    WorkerRequest,
    pick_device,
    read_mono,
    run_worker,
    versions,
)

DEFAULTS: WorkerArgs = {"repo": "tarepan/SpeechMOS:v1.2.0", "source": "github", "device": "auto"}
TASKS = ("mos",)
RATE = 16000


def load(args: WorkerArgs) -> tuple[Any, WorkerInfo]:
    import torch

    device = pick_device(str(args["device"]))
    model = torch.hub.load(str(args["repo"]), "utmos22_strong", source=str(args["source"]), trust_repo=True)
    model = model.to(device).eval()
    info = {"repo": args["repo"], "device": device, **versions(torch)}
    return (model, device), info


def answer(state: Any, args: WorkerArgs, req: WorkerRequest) -> tuple[str | None, str | None]:
    import torch

    model, device = state
    if not req.get("audio"):
        raise ValueError("request has no audio")
    wave = torch.from_numpy(read_mono(req["audio"], RATE))[None].to(device)
    with torch.inference_mode():
        mos = float(model(wave, RATE)[0])
    return f"{mos:.6f}", None


if __name__ == "__main__":
    sys.exit(run_worker(DEFAULTS, TASKS, load, answer))
