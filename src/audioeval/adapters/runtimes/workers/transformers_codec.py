"""Neural codec worker (Transformers): EnCodec (`EncodecModel`) and Mimi (`MimiModel`).

Loads `model` (a hub id, downloaded into the HF cache when online, or a local
`save_pretrained` folder) with `AutoModel`; the checkpoint's `model_type` says which codec.
Each request encodes the clip (mono, resampled to the codec's rate) to codes and decodes them:
EnCodec at `bandwidth` kbit/s (one of the checkpoint's `target_bandwidths`), Mimi with the
first `num_quantizers` codebooks. The reconstruction, cut to the input's duration, is written
as a 16-bit WAV at the codec's rate to the request's `audio_out`; the answer's text is JSON
with what was measured on the codes: codebooks, frame rate (Hz), bits per code, bitrate (bit/s).
Runs in the runtime's own venv; never imports audioeval (protocol: worker_protocol.py).
"""

from __future__ import annotations

import json
import math
import sys
from typing import Any

from worker_protocol import pick_device, read_mono, run_worker, set_threads, versions

DEFAULTS: dict[str, Any] = {
    "model": "facebook/encodec_24khz",
    "bandwidth": None,  # EnCodec: kbit/s, one of the checkpoint's target_bandwidths
    "num_quantizers": None,  # Mimi: codebooks used (1 .. the checkpoint's num_quantizers)
    "device": "auto",
    "cpu_threads": 0,
}
TASKS = ("codec",)


def _facts(model: Any, args: dict[str, Any]) -> dict[str, Any]:
    cfg = model.config
    kind = cfg.model_type
    if kind == "encodec":
        allowed = [float(b) for b in cfg.target_bandwidths]
        bw = float(args["bandwidth"] if args["bandwidth"] is not None else allowed[-1])
        if bw not in allowed:
            raise ValueError(f"bandwidth {bw:g} kbit/s is not one of this checkpoint's {allowed}")
        return {"codec": kind, "bandwidth_kbps": bw}
    if kind == "mimi":
        nq = int(args["num_quantizers"] if args["num_quantizers"] is not None else cfg.num_quantizers)
        if not 1 <= nq <= int(cfg.num_quantizers):
            raise ValueError(f"num_quantizers {nq} outside 1..{cfg.num_quantizers} for this checkpoint")
        return {"codec": kind, "num_quantizers": nq}
    raise ValueError(f"model_type {kind!r} is not a codec this worker runs (encodec, mimi)")


def load(args: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
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
        "frame_rate_hz": float(model.config.frame_rate),
        "bits_per_code": math.log2(int(model.config.codebook_size)),
        "device": device,
        **versions(transformers, torch),
    }
    return (model, facts, device), info


def answer(state: Any, args: dict[str, Any], req: dict[str, Any]) -> tuple[str | None, str | None]:
    import numpy as np
    import soundfile as sf
    import torch

    model, facts, device = state
    if not req.get("audio") or not req.get("audio_out"):
        raise ValueError("a codec request needs audio and audio_out")
    rate = int(model.config.sampling_rate)
    clip = read_mono(req["audio"], rate)
    x = torch.from_numpy(clip)[None, None].to(device)
    with torch.inference_mode():
        if facts["codec"] == "encodec":
            enc = model.encode(x, bandwidth=facts["bandwidth_kbps"])
            codes = enc.audio_codes  # (chunks, batch, codebooks, frames)
            y = model.decode(enc.audio_codes, enc.audio_scales)[0]
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
        "frame_rate_hz": float(model.config.frame_rate),
        "bits_per_code": bits,
        "bitrate_bps": round(n_codebooks * float(model.config.frame_rate) * bits, 3),
        "codes_bits_per_second": round(n_codebooks * frames * bits / seconds, 3) if seconds else None,
        "sample_rate": rate,
    }
    return json.dumps(measured, sort_keys=True), req["audio_out"]


if __name__ == "__main__":
    sys.exit(run_worker(DEFAULTS, TASKS, load, answer))
