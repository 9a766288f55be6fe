"""Codec spec strings (`opus:12k`, `codec2:3200`, `mulaw`) → codec objects; codec runtimes.

Besides the built-in codecs, `audioeval codec --codec` takes an isolated runtime (a spec file
`my-encodec.yaml` or a built-in runtime name with its variant, `encodec:6k`, `mimi:8q`) whose
spec declares task `codec` and produces audio: that is how neural codecs run, in their own venv
(`audioeval runtime setup encodec`), with weights from the hub or a local folder.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from audioeval.adapters.codecs.base import AudioCodec
from audioeval.adapters.codecs.codec2 import CODEC2_MODES, Codec2Codec
from audioeval.adapters.codecs.mulaw import MuLawCodec
from audioeval.adapters.codecs.opus import MAX_BPS, MIN_BPS, OpusCodec
from audioeval.core.errors import InputError
from audioeval.core.registry import Registry

if TYPE_CHECKING:
    from audioeval.adapters.runtimes.spec import RuntimeSpec

NEURAL_CODECS = (
    "encodec",
    "dac",
    "mimi",
    "snac",
    "speechtokenizer",
    "xcodec",
    "xcodec2",
    "wavtokenizer",
    "bigcodec",
    "stablecodec",
    "semanticodec",
    "funcodec",
    "hificodec",
    "audiodec",
    "nanocodec",
    "sqcodec",
    "l3ac",
    "bicodec",
)
SHIPPED_CODEC_RUNTIMES = ("encodec:<kbps>k", "mimi:<N>q", "dac:<N>q", "snac:<kHz>k")
"""The shipped neural codec recipes (`adapters/runtimes/specs/`), as `--codec` takes them."""
CODEC_RUNTIME_DOCS = 'docs/runtimes.md, section "Codec runtimes"'
AUDIO_OUTPUTS = ("audio", "text+audio")
_BITRATE_RE = re.compile(r"^(\d+(?:\.\d+)?)\s*(k)?(?:bps|b/s)?$", re.I)


class CodecSpecError(InputError):
    """A codec spec that names no built-in codec, or a bad parameter."""

    def __init__(self, message: str) -> None:
        super().__init__(message, field="codec")


class NeuralCodecUnavailable(CodecSpecError):
    """A neural codec: not built in, it needs an isolated runtime and user-provided weights."""


def _opus(text: str, param: str) -> AudioCodec:
    m = _BITRATE_RE.match(param)
    if not m:
        raise CodecSpecError(f"{text!r}: Opus needs a bitrate, e.g. 'opus:12k' (6k–256k)")
    bps = int(round(float(m.group(1)) * (1000 if m.group(2) else 1)))
    if not MIN_BPS <= bps <= MAX_BPS:
        raise CodecSpecError(f"{text!r}: Opus bitrate must be between 6k and 256k for mono audio")
    return OpusCodec(bps)


def _codec2(text: str, param: str) -> AudioCodec:
    mode = (param or "3200").upper()
    mode = "700C" if mode == "700" else mode
    if mode not in CODEC2_MODES:
        raise CodecSpecError(f"{text!r}: unknown Codec2 mode; valid modes: {', '.join(CODEC2_MODES)}")
    return Codec2Codec(mode)


def _mulaw(text: str, param: str) -> AudioCodec:
    if param not in ("", "64k", "64000"):
        raise CodecSpecError(f"{text!r}: μ-law has one bitrate (64k); write 'mulaw'")
    return MuLawCodec()


@dataclass(frozen=True)
class BuiltinCodec:
    """A built-in codec: how its spec is written, and its codec from (spec text, parameter)."""

    usage: str
    build: Callable[[str, str], AudioCodec]


BUILTIN_CODECS: Registry[BuiltinCodec] = Registry(
    "codec",
    [
        ("opus", BuiltinCodec("opus:<bitrate>, e.g. opus:6k, opus:12k, opus:24k (6k–256k)", _opus)),
        (
            "codec2",
            BuiltinCodec(f"codec2:<mode>, mode one of {', '.join(CODEC2_MODES)} (default 3200)", _codec2),
        ),
        ("mulaw", BuiltinCodec("mulaw (G.711 μ-law, 8 kHz, 64 kbit/s)", _mulaw)),
    ],
)


def parse_codec_spec(spec: str) -> AudioCodec:
    """`"opus:12k"` → an Opus codec at 12 kbit/s. The codec's `.name` is the canonical spec."""
    text = spec.strip()
    name, _, param = text.partition(":")
    name, param = name.strip().lower(), param.strip()
    if name in NEURAL_CODECS:
        raise NeuralCodecUnavailable(
            f"{text!r}: neural codecs such as {name} are not built in. They run through an isolated "
            "runtime with their weights; none ship offline. Shipped recipes: "
            f"{', '.join(SHIPPED_CODEC_RUNTIMES)} (`audioeval runtime setup encodec`; weights from "
            "the hub when online or a local folder). For another codec, write a runtime spec that "
            "lists codec under `tasks` and sets `output: audio`, "
            f"with a worker that loads your weights, then pass its file: --codec my-{name}.yaml "
            f"({CODEC_RUNTIME_DOCS}). "
            f"Built-in codecs: {', '.join(BUILTIN_CODECS)}."
        )
    codec = BUILTIN_CODECS.find(name)
    if codec is None:
        raise CodecSpecError(_unknown(text, name))
    return codec.build(text, param)


def _unknown(text: str, name: str) -> str:
    valid = list(BUILTIN_CODECS)
    usages = "; ".join(c.usage for c in BUILTIN_CODECS.values())
    message = (
        f"unknown codec {text!r}; built-in codecs: {usages}. "
        f"Neural codecs ({', '.join(NEURAL_CODECS)}) run only as isolated runtimes: a spec file "
        f"(.yaml) that lists codec under `tasks` and sets `output: audio` ({CODEC_RUNTIME_DOCS})."
    )
    close = difflib.get_close_matches(name, valid + list(NEURAL_CODECS), n=1, cutoff=0.5)
    return message + (f" Did you mean {close[0]!r}?" if close else "")


def is_runtime_ref(ref: str) -> bool:
    """Whether a `--codec` entry names a runtime: a spec file (.yaml/.yml) or a built-in runtime,
    with its variant (`encodec:6k`, `mimi:8q`: the shipped Transformers codec recipes)."""
    from audioeval.adapters.runtimes.spec import builtin_spec_files

    ref = ref.strip()
    return ref.endswith((".yaml", ".yml")) or ref.partition(":")[0] in builtin_spec_files()


def check_codec_runtime(spec: RuntimeSpec) -> RuntimeSpec:
    """The spec when it declares task `codec` and produces audio, else CodecSpecError saying what
    is missing."""
    missing = spec.lacks("codec", AUDIO_OUTPUTS)
    if missing:
        raise CodecSpecError(
            f"{spec.described} cannot run as a codec: its spec lacks {' and '.join(missing)}. "
            "A codec runtime lists codec under `tasks` and sets `output: audio` (or text+audio) "
            f"({CODEC_RUNTIME_DOCS})."
        )
    return spec


def load_codec_runtime(ref: str) -> RuntimeSpec:
    """The runtime spec named by a `--codec` entry, checked by `check_codec_runtime`."""
    from audioeval.adapters.runtimes.spec import load_runtime_spec

    return check_codec_runtime(load_runtime_spec(ref.strip()))
