"""Audio-chat worker (Transformers): Qwen2-Audio and models of its architecture, text output.

Loads `architecture` (default `Qwen2AudioForConditionalGeneration`) and its processor from
`model`: a Hugging Face hub id (downloaded into the HF cache when online) or a local folder
(`save_pretrained` output). Each request's audio and text become one user turn of the
processor's chat template; the answer is the greedy continuation (`max_new_tokens`).

Qwen2.5-Omni belongs to the same recipe family (`Qwen2_5OmniForConditionalGeneration`, whose
talker also speaks); this worker returns text only: audio output is not implemented.
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
    "model": "Qwen/Qwen2-Audio-7B-Instruct",
    "architecture": "Qwen2AudioForConditionalGeneration",
    "device": "auto",
    "dtype": "auto",
    "max_new_tokens": 256,
    "cpu_threads": 0,
}
TASKS = ("asr", "ast", "classification", "captioning", "spoken_qa", "mcq", "spoken_safety", "spoken_chat", "audio_chat")


def load(args: WorkerArgs) -> tuple[Any, WorkerInfo]:
    import torch
    import transformers

    set_threads(int(args["cpu_threads"]))
    device = pick_device(str(args["device"]))
    cls = getattr(transformers, str(args["architecture"]))
    processor = transformers.AutoProcessor.from_pretrained(str(args["model"]))
    model = cls.from_pretrained(str(args["model"]), dtype=torch_dtype(str(args["dtype"]))).to(device).eval()
    info = {
        "model": args["model"],
        "architecture": type(model).__name__,
        "device": device,
        **versions(transformers, torch),
    }
    return (processor, model, device), info


def answer(state: Any, args: WorkerArgs, req: WorkerRequest) -> tuple[str | None, str | None]:
    import torch

    processor, model, device = state
    content: list[dict[str, str]] = []
    audio = req.get("audio")
    if audio:
        content.append({"type": "audio", "audio_url": audio})
    content.append({"type": "text", "text": req.get("text") or ""})
    prompt = processor.apply_chat_template(
        [{"role": "user", "content": content}], add_generation_prompt=True, tokenize=False
    )
    rate = int(processor.feature_extractor.sampling_rate)
    clips = [read_mono(audio, rate)] if audio else None
    inputs = processor(text=prompt, audio=clips, sampling_rate=rate, return_tensors="pt", padding=True)
    inputs = inputs.to(device)
    with torch.inference_mode():
        ids = model.generate(**inputs, max_new_tokens=int(args["max_new_tokens"]), do_sample=False)
    new = ids[:, inputs["input_ids"].shape[1] :]
    return processor.batch_decode(new, skip_special_tokens=True)[0].strip(), None


if __name__ == "__main__":
    sys.exit(run_worker(DEFAULTS, TASKS, load, answer))
