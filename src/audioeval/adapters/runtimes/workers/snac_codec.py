"""Neural codec worker: SNAC (the `snac` package, Multi-Scale Neural Audio Codec).

Loads `model`, a SNAC folder or hub id holding `config.json` and `pytorch_model.bin` (what
`SNAC.from_pretrained` reads), or `auto`: the hub checkpoint `hubertsiuzdak/snac_<N>khz` for
`sampling_khz` N (24, 32 or 44). A loaded model whose rate is not `sampling_khz` is refused, so
`snac:24k` never names another checkpoint. SNAC has one operating point per checkpoint: every
codebook is kept, each at its own frame rate (sampling rate / hop length / its stride), so the
bitrate is the sum over codebooks of frame rate x bits per code (snac_24khz: 0.98 kbit/s).
Each request encodes the clip (mono, resampled to the model's rate; SNAC pads it itself) and
decodes the codes; the reconstruction, cut to the input's duration, is written as a 16-bit WAV
to `audio_out`; the answer's text is JSON with what was measured on the codes.
Runs in the runtime's own venv; never imports audioeval (protocol: worker_protocol.py).
"""

from __future__ import annotations

import json
import math
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
)

DEFAULTS: WorkerArgs = {
    "model": "auto",
    "sampling_khz": 24,  # which checkpoint `auto` means; the loaded model must have this rate
    "device": "auto",
    "cpu_threads": 0,
}
TASKS = ("codec",)
HUB_RATES = (24, 32, 44)


def _rates(model: Any) -> list[float]:
    """Frames per second of each codebook, coarsest first."""
    base = int(model.sampling_rate) / int(model.hop_length)
    return [base / int(s) for s in model.vq_strides]


def load(args: WorkerArgs) -> tuple[Any, WorkerInfo]:
    from importlib.metadata import version

    import torch
    from snac import SNAC

    set_threads(int(args["cpu_threads"]))
    device = pick_device(str(args["device"]))
    khz = int(args["sampling_khz"])
    name = str(args["model"])
    if name == "auto":
        if khz not in HUB_RATES:
            raise ValueError(f"sampling_khz {khz}: the hub's SNAC checkpoints are {HUB_RATES} kHz")
        name = f"hubertsiuzdak/snac_{khz}khz"
    model = SNAC.from_pretrained(name).to(device).eval()
    if round(int(model.sampling_rate) / 1000) != khz:
        raise ValueError(f"{name} is a {model.sampling_rate} Hz SNAC, not the {khz} kHz one asked for")
    info = {
        "model": name,
        "codec": "snac",
        "sample_rate": int(model.sampling_rate),
        "codebook_frame_rates_hz": _rates(model),
        "bits_per_code": math.log2(int(model.codebook_size)),
        "device": device,
        "snac": version("snac"),
        "torch": str(torch.__version__),
    }
    return (model, device), info


def answer(state: Any, args: WorkerArgs, req: WorkerRequest) -> tuple[str | None, str | None]:
    import numpy as np
    import soundfile as sf
    import torch

    model, device = state
    if not req.get("audio") or not req.get("audio_out"):
        raise ValueError("a codec request needs audio and audio_out")
    rate = int(model.sampling_rate)
    clip = read_mono(req["audio"], rate)
    x = torch.from_numpy(clip)[None, None].to(device)
    with torch.inference_mode():
        codes = model.encode(x)  # one (batch, frames) tensor per codebook, coarsest first
        y = model.decode(codes)
    seconds = len(clip) / rate
    bits = math.log2(int(model.codebook_size))
    rates = _rates(model)
    frames = [int(c.shape[-1]) for c in codes]
    out = y.reshape(-1).float().cpu().numpy()[: len(clip)]
    out = np.pad(out, (0, len(clip) - len(out)))
    sf.write(req["audio_out"], np.clip(out, -1.0, 1.0), rate, subtype="PCM_16")
    measured = {
        "codec": "snac",
        "sampling_khz": int(args["sampling_khz"]),
        "codebooks": len(codes),
        "frames": frames,
        "frame_rate_hz": rates[-1],  # the finest codebook's rate (the latent's)
        "codebook_frame_rates_hz": rates,
        "bits_per_code": bits,
        "bitrate_bps": round(sum(rates) * bits, 3),
        "codes_bits_per_second": round(sum(frames) * bits / seconds, 3) if seconds else None,
        "sample_rate": rate,
    }
    return json.dumps(measured, sort_keys=True), req["audio_out"]


if __name__ == "__main__":
    sys.exit(run_worker(DEFAULTS, TASKS, load, answer))
