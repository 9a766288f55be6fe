"""The DNSMOS ONNX graphs shipped in `speechmos`, opened for the fast path.

The P.835 model (`sig_bak_ovr.onnx`) turns each 9.01 s window into 900 frames of 320 samples
(hop 160), takes a learned STFT, and runs four 3×3 convolutions at full resolution before it
pools: those four layers are ~95 % of its cost. Neighbouring windows start 1 s = 100 frames
apart and share most of their frames, so the graph is cut in two after the first pooling:

* `front`: frames (N, T, 320) → pooled features (N, 32, T/2, 80), with T free (even). It is
  run once over all the frames the windows cover; a feature is exact wherever its receptive
  field (±4 frames) lies inside the frames given, which holds for every frame of a window
  except its first and last 4 — those (2 pooled frames at each end) are recomputed from
  8-frame blocks at each edge, with the same zero padding the whole-window model sees.
  Windows start at even frames, so the 2×2 pooling lines up with the window's own.
* `back`: pooled features of one window (N, 32, 450, 80) → raw SIG, BAK, OVRL.

The P.808 model (`model_v8.onnx`) normalises each window's mel spectrogram by the window's own
maximum, so nothing can be shared between its windows; it runs as it is, batched.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from audioeval.scoring.speech_models._deps import package_dir, require
from audioeval.scoring.speech_models.runtime import session_options

FRAMES_IN = "mos_estimator_logpow/concat:0"
FEATURES = "mos_estimator_logpow/conv2d_3/Relu:0_pooling0"  # after the first 2×2 max pooling
OUTPUT = "Identity:0"
P808_INPUT = "input_1"


@dataclass(frozen=True)
class DnsmosSessions:
    """The three onnxruntime sessions of the fast path."""

    front: Any
    back: Any
    p808: Any


def model_dir() -> Path:
    return package_dir("speechmos") / "dnsmos_models"


def _cut(path: Path, inputs: list[str], outputs: list[str], free_dims: dict[str, list[str | None]]) -> bytes:
    """The sub-graph of `path` from `inputs` to `outputs`, with the named dimensions left free."""
    onnx = require("onnx")
    model = onnx.shape_inference.infer_shapes(onnx.load(str(path)))
    sub = onnx.utils.Extractor(model).extract_model(inputs, outputs)
    del sub.graph.value_info[:]  # inferred shapes hold the fixed 900-frame length
    for value in sub.graph.input:
        for dim, name in zip(value.type.tensor_type.shape.dim, free_dims.get(value.name, []), strict=False):
            if name:
                dim.dim_param = name
    for value in sub.graph.output:
        for i, dim in enumerate(value.type.tensor_type.shape.dim):
            dim.dim_param = f"out{i}"
    return sub.SerializeToString()


def open_sessions(threads: int) -> DnsmosSessions:
    ort = require("onnxruntime")
    folder = model_dir()
    primary, p808 = folder / "sig_bak_ovr.onnx", folder / "model_v8.onnx"
    options = session_options(threads)
    providers = ["CPUExecutionProvider"]
    front = _cut(primary, [FRAMES_IN], [FEATURES], {FRAMES_IN: ["n", "frames", None]})
    back = _cut(primary, [FEATURES], [OUTPUT], {FEATURES: ["n", None, None, None]})
    return DnsmosSessions(
        front=ort.InferenceSession(front, options, providers=providers),
        back=ort.InferenceSession(back, options, providers=providers),
        p808=ort.InferenceSession(str(p808), options, providers=providers),
    )
