"""The DNSMOS ONNX graphs shipped in `speechmos`, opened for the fast path.

The P.835 model (`sig_bak_ovr.onnx`) turns each 9.01 s window into 900 frames of 320 samples
(hop 160), takes a learned STFT, and runs four 3×3 convolutions at full resolution before it
pools: those four layers are most of its cost (21 M multiply-adds a frame, ~0.25 ms of one core).
Neighbouring windows start 1 s = 100 frames apart and share most of their frames, so the
graph is cut in three, and the first two parts run once over the frames the windows share:

* `front`: frames (N, T, 320) → pooled features (N, 32, T/2, 80), T free (even). Exact wherever
  the receptive field (±4 frames) lies inside the frames given: every frame of a window but its
  first and last 4 — those (2 pooled frames at each end) are recomputed from 8-frame blocks at
  each edge, with the zero padding the whole-window model sees.
* `mid`: pooled features (N, 32, T/2, 80) → the next two 3×3 convolutions, around one more 2×2
  pooling: (N, 32, T/4, 40) (receptive field ±4 pooled frames). A window's first and last 3
  outputs see its edges; they are recomputed from 12-pooled-frame blocks at each edge.
* `tail`: one window's (N, 32, 225, 40) → the last pooling and convolution, the global max over
  the window and the dense layers → raw SIG, BAK, OVRL.

Windows start at multiples of 100 frames, so both 2×2 poolings line up with the window's own;
the third pooling (225 → 112) would not, which is where the tail begins.

The P.808 model (`model_v8.onnx`) normalises each window's mel spectrogram by the window's own
maximum, so its layers can be shared only by neighbouring windows whose inputs agree on the
frames they share (the same maximum; in a tiled clip most windows hold the loudest frame). It
is cut the same way: `p808_mid`, mel frames (N, T, 120) → the four 3×3 convolutions up to the
third pooling (N, 32, T/4, 30) (receptive field −11 … +14 frames), and `p808_tail`, one
window's (N, 32, 225, 30) → MOS. A window alone runs through the whole model (`p808`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from audioeval.scoring.speech_models._deps import package_dir, require
from audioeval.scoring.speech_models.runtime import session_options

FRAMES_IN = "mos_estimator_logpow/concat:0"
FEATURES = "mos_estimator_logpow/conv2d_3/Relu:0_pooling0"  # after the first 2×2 max pooling
MID = "mos_estimator_logpow/conv2d_5/Relu:0"  # before the third 2×2 max pooling
OUTPUT = "Identity:0"
P808_INPUT = "input_1"
P808_MID = "mos_estimator_small_1/conv2d_8/Relu:0"  # before the third 2×2 max pooling


@dataclass(frozen=True)
class DnsmosSessions:
    """The onnxruntime sessions of the fast path."""

    front: Any
    mid: Any
    tail: Any
    p808: Any
    p808_mid: Any
    p808_tail: Any


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


def open_sessions(threads: int, spinning: bool = False) -> DnsmosSessions:
    ort = require("onnxruntime")
    folder = model_dir()
    primary, p808 = folder / "sig_bak_ovr.onnx", folder / "model_v8.onnx"
    # Spinning threads of one session keep a core busy while another session (or numpy) runs.
    options = session_options(threads, spinning=spinning)
    providers = ["CPUExecutionProvider"]
    front = _cut(primary, [FRAMES_IN], [FEATURES], {FRAMES_IN: ["n", "frames", None]})
    mid = _cut(primary, [FEATURES], [MID], {FEATURES: ["n", None, "pooled", None]})
    tail = _cut(primary, [MID], [OUTPUT], {MID: ["n", None, None, None]})
    return DnsmosSessions(
        front=ort.InferenceSession(front, options, providers=providers),
        mid=ort.InferenceSession(mid, options, providers=providers),
        tail=ort.InferenceSession(tail, options, providers=providers),
        p808=ort.InferenceSession(str(p808), options, providers=providers),
        p808_mid=ort.InferenceSession(
            _cut(p808, [P808_INPUT], [P808_MID], {P808_INPUT: ["n", "frames", None]}),
            options,
            providers=providers,
        ),
        p808_tail=ort.InferenceSession(
            _cut(p808, [P808_MID], [OUTPUT], {P808_MID: ["n", None, None, None]}),
            options,
            providers=providers,
        ),
    )
