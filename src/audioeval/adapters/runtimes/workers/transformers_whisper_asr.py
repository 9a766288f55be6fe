"""Whisper ASR worker (Transformers `WhisperForConditionalGeneration`), e.g. Whisper-large-v3.

Loads `model` (a hub id, downloaded into the HF cache when online, or a local
`save_pretrained` folder) and its processor; transcribes each clip (resampled to 16 kHz, the
first 30 s: long-form chunking is not done) with greedy or beam search (`num_beams`) in
`language` (None: Whisper detects it). Serves `asr` as a model under test and as the ASR of
the `asr_*` scorers (`{asr_wer: {runtime: whisper-large-v3}}`).
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
    set_threads,
    torch_dtype,
    versions,
)

DEFAULTS: WorkerArgs = {
    "model": "openai/whisper-large-v3",
    "language": None,
    "num_beams": 1,
    "max_new_tokens": 440,
    "device": "auto",
    "dtype": "auto",
    "cpu_threads": 0,
}
TASKS = ("asr",)


def load(args: WorkerArgs) -> tuple[Any, WorkerInfo]:
    import torch
    import transformers

    set_threads(int(args["cpu_threads"]))
    device = pick_device(str(args["device"]))
    processor = transformers.AutoProcessor.from_pretrained(str(args["model"]))
    model = transformers.WhisperForConditionalGeneration.from_pretrained(
        str(args["model"]), dtype=torch_dtype(str(args["dtype"]))
    )
    model = model.to(device).eval()
    info = {
        "model": args["model"],
        "device": device,
        **versions(transformers, torch),
    }
    return (processor, model, device), info


def answer(state: Any, args: WorkerArgs, req: WorkerRequest) -> tuple[str | None, str | None]:
    import torch

    processor, model, device = state
    if not req.get("audio"):
        raise ValueError("request has no audio")
    rate = int(processor.feature_extractor.sampling_rate)
    feats = processor(read_mono(req["audio"], rate), sampling_rate=rate, return_tensors="pt").input_features
    kwargs: dict[str, int | str] = {"num_beams": int(args["num_beams"]), "max_new_tokens": int(args["max_new_tokens"])}
    if args["language"]:
        kwargs.update(language=args["language"], task="transcribe")
    with torch.inference_mode():
        ids = model.generate(feats.to(device, model.dtype), **kwargs)
    return processor.batch_decode(ids, skip_special_tokens=True)[0].strip(), None


if __name__ == "__main__":
    sys.exit(run_worker(DEFAULTS, TASKS, load, answer))
