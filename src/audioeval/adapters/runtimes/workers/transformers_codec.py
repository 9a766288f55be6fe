"""Neural codec worker (Transformers): EnCodec (`EncodecModel`), Mimi (`MimiModel`), DAC (`DacModel`).

Loads `model` (a hub id, downloaded into the HF cache when online, or a local
`save_pretrained` folder) with `AutoModel`; the checkpoint's `model_type` says which codec.
Each request encodes the clip (mono, resampled to the codec's rate) to codes and decodes them:
EnCodec at `bandwidth` kbit/s (one of the checkpoint's `target_bandwidths`), Mimi and DAC with
the first `num_quantizers` codebooks (DAC: the clip is padded to a multiple of the hop length, as
the `descript-audio-codec` package does, and decoded from the kept codes only). The reconstruction, cut to the input's duration, is written
as a 16-bit WAV at the codec's rate to the request's `audio_out`; the answer's text is JSON
with what was measured on the codes: codebooks, frame rate (Hz), bits per code, bitrate (bit/s).
The frame rate is sampling rate / hop length, exact (DAC 44.1 kHz: 86.13 Hz, where Transformers'
`DacConfig.frame_rate` rounds up to 87).
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
    versions,
)

DEFAULTS: WorkerArgs = {
    "model": "facebook/encodec_24khz",
    "bandwidth": None,  # EnCodec: kbit/s, one of the checkpoint's target_bandwidths
    "num_quantizers": None,  # Mimi, DAC: codebooks used (1 .. the checkpoint's num_quantizers)
    "device": "auto",
    "cpu_threads": 0,
}
TASKS = ("codec",)


def _facts(model: Any, args: WorkerArgs) -> WorkerInfo:
    cfg = model.config
    kind = cfg.model_type
    if kind == "encodec":
        allowed = [float(b) for b in cfg.target_bandwidths]
        bw = float(args["bandwidth"] if args["bandwidth"] is not None else allowed[-1])
        if bw not in allowed:
            raise ValueError(f"bandwidth {bw:g} kbit/s is not one of this checkpoint's {allowed}")
        return {"codec": kind, "bandwidth_kbps": bw}
    if kind in ("mimi", "dac"):
        most = int(cfg.num_quantizers if kind == "mimi" else cfg.n_codebooks)
        nq = int(args["num_quantizers"] if args["num_quantizers"] is not None else most)
        if not 1 <= nq <= most:
            raise ValueError(f"num_quantizers {nq} outside 1..{most} for this checkpoint")
        return {"codec": kind, "num_quantizers": nq}
    raise ValueError(f"model_type {kind!r} is not a codec this worker runs (encodec, mimi, dac)")


def _hop_length(cfg: Any) -> int | None:
    """Samples per frame where the config states it (DAC's product of downsampling ratios)."""
    return math.prod(cfg.downsampling_ratios) if cfg.model_type == "dac" else None


def _frame_rate(cfg: Any) -> float:
    hop = _hop_length(cfg)
    return int(cfg.sampling_rate) / hop if hop else float(cfg.frame_rate)


def load(args: WorkerArgs) -> tuple[Any, WorkerInfo]:
    import torch
    import transformers

    set_threads(int(args["cpu_threads"]))
    device = pick_device(str(args["device"]))
    model = transformers.AutoModel.from_pretrained(str(args["model"])).to(device).eval()
    facts = _facts(model, args)
    info = {
        "model": args["model"],
        **facts,
        "sample_rate": int(model.config.sampling_rate),
        "frame_rate_hz": _frame_rate(model.config),
        "bits_per_code": math.log2(int(model.config.codebook_size)),
        "device": device,
        **versions(transformers, torch),
    }
    return (model, facts, device), info


def answer(state: Any, args: WorkerArgs, req: WorkerRequest) -> tuple[str | None, str | None]:
    import numpy as np
    import soundfile as sf
    import torch

    model, facts, device = state
    if not req.get("audio") or not req.get("audio_out"):
        raise ValueError("a codec request needs audio and audio_out")
    rate = int(model.config.sampling_rate)
    clip = read_mono(req["audio"], rate)
    x = torch.from_numpy(clip)[None, None].to(device)
    hop = _hop_length(model.config)
    if hop:
        x = torch.nn.functional.pad(x, (0, -len(clip) % hop))
    with torch.inference_mode():
        if facts["codec"] == "encodec":
            enc = model.encode(x, bandwidth=facts["bandwidth_kbps"])
            codes = enc.audio_codes  # (chunks, batch, codebooks, frames)
            y = model.decode(enc.audio_codes, enc.audio_scales)[0]
        elif facts["codec"] == "dac":
            codes = model.encode(x).audio_codes[:, : facts["num_quantizers"]]  # (batch, codebooks, frames)
            y = model.decode(audio_codes=codes).audio_values
        else:
            codes = model.encode(x, num_quantizers=facts["num_quantizers"]).audio_codes  # (batch, codebooks, frames)
            y = model.decode(codes).audio_values
    n_codebooks = int(codes.shape[-2])
    frames = int(codes.numel()) // n_codebooks  # every chunk's frames (EnCodec 48 kHz chunks)
    seconds = len(clip) / rate
    bits = math.log2(int(model.config.codebook_size))
    out = y.reshape(-1).float().cpu().numpy()[: len(clip)]
    out = np.pad(out, (0, len(clip) - len(out)))
    sf.write(req["audio_out"], np.clip(out, -1.0, 1.0), rate, subtype="PCM_16")
    measured = {
        **facts,
        "codebooks": n_codebooks,
        "frames": frames,
        "frame_rate_hz": _frame_rate(model.config),
        "bits_per_code": bits,
        "bitrate_bps": round(n_codebooks * _frame_rate(model.config) * bits, 3),
        "codes_bits_per_second": round(n_codebooks * frames * bits / seconds, 3) if seconds else None,
        "sample_rate": rate,
    }
    return json.dumps(measured, sort_keys=True), req["audio_out"]


if __name__ == "__main__":
    sys.exit(run_worker(DEFAULTS, TASKS, load, answer))
