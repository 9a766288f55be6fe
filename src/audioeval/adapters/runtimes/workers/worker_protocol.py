"""The JSON-lines protocol and audio helpers shared by the shipped model workers.

Imported by the worker scripts beside it (a script's own folder is first on `sys.path`), inside
the runtime's own virtual environment: standard library here, numpy / soundfile / scipy only
where a function needs them. Never imports audioeval. See docs/runtimes.md, "Worker protocol".

A worker calls `run_worker(defaults, tasks, load, answer)`: `load(args)` returns `(state, info)` once
the model is ready; `answer(state, args, request)` returns the answer's `text` and `audio_path`
(raising on a failure of that one request, which is answered with `error`). A worker that needs
its own loop (the test fakes in tests/fakes/) calls `serve(handle, info, out)` directly.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from typing import Any, Dict, Literal, Optional, TextIO, TypedDict, Union  # noqa: UP035

# Evaluated when a worker starts, under the runtime's own Python (which may be older than
# audioeval's): `typing` forms, not `X | Y` or `dict[...]` (Python 3.10 and 3.9).
ArgValue = Optional[Union[str, int, float, bool]]  # noqa: UP007, UP045
"""A worker argument's value (`--args-json` holds a flat object of these)."""
WorkerArgs = Dict[str, ArgValue]  # noqa: UP006


class WorkerRequest(TypedDict, total=False):
    """A request line: a sample to answer, or an `op` (`ping`, `shutdown`)."""

    id: str
    task: str
    audio: str | None  # the input clip's path
    text: str | None  # the input text
    audio_out: str | None  # where to write generated audio (WAV)
    op: Literal["ping", "shutdown"]


class WorkerReply(TypedDict):
    """The answer line to a request, with its id."""

    id: str | None
    text: str | None
    audio_path: str | None
    error: str | None


class WorkerInfo(TypedDict, total=False):
    """What a worker reports once its model is loaded: the facts its worker states (the model,
    the device, a codec's rates) plus `{module: version}` of the libraries it runs, and the
    load time, pid and tasks added by `run_worker`."""

    model: str
    model_path: str
    architecture: str
    head: str
    repo: str
    device: str
    dtype: str
    codec: str
    bandwidth_kbps: float
    num_quantizers: int
    sample_rate: int
    frame_rate_hz: float
    codebook_frame_rates_hz: list[float]
    bits_per_code: float
    load_s: float
    pid: int
    tasks: list[str]


class Pong(TypedDict):
    pong: Literal[True]


class ReadyLine(TypedDict):
    ready: Literal[True]
    info: WorkerInfo


def private_stdout() -> TextIO:
    """Keep the real stdout for protocol lines; send everything else printed to stderr."""
    sys.stdout.flush()
    real = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return os.fdopen(real, "w", encoding="utf-8", buffering=1)


def send(out: TextIO, obj: ReadyLine | WorkerReply | Pong) -> None:
    out.write(json.dumps(obj, ensure_ascii=False) + "\n")
    out.flush()


def reply(
    req: WorkerRequest, *, text: str | None = None, audio_path: str | None = None, error: str | None = None
) -> WorkerReply:
    """The answer to `req`: its id, `text`, `audio_path` and `error` (None unless given)."""
    return {"id": req.get("id"), "text": text, "audio_path": audio_path, "error": error}


def worker_args() -> WorkerArgs:
    """The worker's arguments: the JSON object given as `--args-json`."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--args-json", default="{}")
    return json.loads(parser.parse_args().args_json)


def serve(handle: Callable[[WorkerRequest], WorkerReply | None], info: WorkerInfo, out: TextIO) -> int:
    """The ready line, then one reply per request line until shutdown or end of input: `ping`
    and `shutdown` are answered here, every other request object by `handle(request)` (a
    `handle` that returns None sends nothing); a line that is no JSON object gets an error."""
    send(out, {"ready": True, "info": info})
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            req = json.loads(line)
        except json.JSONDecodeError as exc:
            send(out, reply({}, error=f"bad request line: {exc}"))
            continue
        if not isinstance(req, dict):
            send(out, reply({}, error="request is not an object"))
        elif req.get("op") == "ping":
            send(out, {"pong": True})
        elif req.get("op") == "shutdown":
            return 0
        else:
            answered = handle(req)
            if answered is not None:
                send(out, answered)
    return 0


def _answer(
    answer: Callable[..., tuple[str | None, str | None]],
    tasks: tuple[str, ...],
    state: Any,
    args: WorkerArgs,
    req: WorkerRequest,
) -> WorkerReply:
    if req.get("task") not in tasks:
        return reply(req, error=f"task {req.get('task')!r} not served (serves {list(tasks)})")
    audio = req.get("audio")
    if audio and not os.path.isfile(audio):
        return reply(req, error=f"audio file not found: {audio}")
    try:
        text, audio_path = answer(state, args, req)
    except Exception as exc:  # one bad request must not end the worker
        return reply(req, error=f"{type(exc).__name__}: {exc}")
    return reply(req, text=text, audio_path=audio_path)


def run_worker(
    defaults: WorkerArgs,
    tasks: tuple[str, ...],
    load: Callable[[WorkerArgs], tuple[Any, WorkerInfo]],
    answer: Callable[[Any, WorkerArgs, WorkerRequest], tuple[str | None, str | None]],
) -> int:
    """Parse --args-json, load the model, print the ready line (`info` plus the load time, pid
    and tasks), then serve until shutdown/EOF."""
    out = private_stdout()
    given = worker_args()
    unknown = sorted(set(given) - set(defaults))
    if unknown:
        print(f"unknown worker args {unknown}; known: {sorted(defaults)}", file=sys.stderr)
        return 2
    args = {**defaults, **given}
    t0 = time.perf_counter()
    state, info = load(args)
    info = {**info, "load_s": round(time.perf_counter() - t0, 3), "pid": os.getpid(), "tasks": list(tasks)}
    return serve(lambda req: _answer(answer, tasks, state, args, req), info, out)


def versions(*modules: Any) -> dict[str, str]:
    """`{name: __version__}` of each imported module, for a worker's ready info."""
    return {m.__name__: str(m.__version__) for m in modules}


def pick_device(device: str) -> str:
    """`auto`: the first CUDA device when torch sees one (under Ray, the actor's GPU), else cpu."""
    if device != "auto":
        return device
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def torch_dtype(name: str) -> Any:
    import torch

    return {"auto": "auto", "float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}[name]


def read_mono(path: str, rate: int) -> Any:
    """The clip as float32 mono samples at `rate` (polyphase resampling)."""
    from math import gcd

    import numpy as np
    import soundfile as sf

    samples, sr = sf.read(path, dtype="float32", always_2d=True)
    mono = samples.mean(axis=1)
    if sr != rate:
        from scipy.signal import resample_poly

        g = gcd(int(sr), int(rate))
        mono = resample_poly(mono, rate // g, int(sr) // g).astype(np.float32)
    return np.ascontiguousarray(mono, dtype=np.float32)


def set_threads(n: int) -> None:
    if n > 0:
        import torch

        torch.set_num_threads(n)
