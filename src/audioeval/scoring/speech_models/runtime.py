"""Load each model once per process, and count the audio it processes against the wall time."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

from audioeval.core.errors import AudioevalError
from audioeval.scoring.speech_models._deps import require

T = TypeVar("T")


class ModelLoadError(AudioevalError):
    """A configured model could not be loaded (offline, from local files)."""


_models: dict[Hashable, Any] = {}
_key_locks: dict[Hashable, threading.Lock] = {}
_lock = threading.Lock()


def load_once(key: Hashable, factory: Callable[[], T]) -> T:
    """The model for `key`, built by `factory` on first use; concurrent callers wait for it.

    Loading one model does not block the loading of another (one lock per key).
    """
    with _lock:
        if key in _models:
            return _models[key]
        key_lock = _key_locks.setdefault(key, threading.Lock())
    with key_lock:
        with _lock:
            if key in _models:
                return _models[key]
        model = factory()
        with _lock:
            _models[key] = model
            _key_locks.pop(key, None)
        return model


def loaded_keys() -> list[Hashable]:
    with _lock:
        return list(_models)


@dataclass(frozen=True)
class Throughput:
    """Audio processed and the wall time it took; `realtime_factor` is audio s ÷ wall s."""

    calls: int
    audio_seconds: float
    wall_seconds: float

    @property
    def realtime_factor(self) -> float:
        """How many times faster than real time (0 before the first call)."""
        return self.audio_seconds / self.wall_seconds if self.wall_seconds > 0 else 0.0


class ModelStats:
    """Thread-safe counters of one model's work. `snapshot()` returns a `Throughput`.

    A model measures its busy time: the calls it serialises never overlap, so audio seconds ÷
    wall seconds is how fast it runs when kept busy, whatever the callers' concurrency.
    Every ModelStats with a `label` is listed by `throughput_report()`.
    """

    def __init__(self, label: str | None = None) -> None:
        self._lock = threading.Lock()
        self._calls = 0
        self._audio = 0.0
        self._wall = 0.0
        if label is not None:
            with _lock:
                _labelled.append((label, self))

    def add(self, audio_seconds: float, wall_seconds: float, calls: int = 1) -> None:
        with self._lock:
            self._calls += calls
            self._audio += audio_seconds
            self._wall += wall_seconds

    @contextmanager
    def measure(self, audio_seconds: float, calls: int = 1) -> Iterator[None]:
        t0 = time.perf_counter()
        try:
            yield
        finally:
            self.add(audio_seconds, time.perf_counter() - t0, calls)

    def snapshot(self) -> Throughput:
        with self._lock:
            return Throughput(self._calls, self._audio, self._wall)

    def reset(self) -> None:
        with self._lock:
            self._calls, self._audio, self._wall = 0, 0.0, 0.0


_labelled: list[tuple[str, ModelStats]] = []


def throughput_report() -> dict[str, Throughput]:
    """Every labelled model's counters now, by label (the label says which model and settings)."""
    with _lock:
        items = list(_labelled)
    out: dict[str, Throughput] = {}
    for label, stats in items:  # two instances under one label (other threads, say) add up
        t, was = stats.snapshot(), out.get(label, Throughput(0, 0.0, 0.0))
        out[label] = Throughput(
            was.calls + t.calls, was.audio_seconds + t.audio_seconds, was.wall_seconds + t.wall_seconds
        )
    return out


def throughput_since(before: dict[str, Throughput]) -> dict[str, dict[str, float | int]]:
    """The work each labelled model did since `before` (a `throughput_report()`): calls, audio
    seconds, busy seconds and × real time, for the models that were called."""
    out: dict[str, dict[str, float | int]] = {}
    for label, now in throughput_report().items():
        was = before.get(label, Throughput(0, 0.0, 0.0))
        delta = Throughput(
            now.calls - was.calls, now.audio_seconds - was.audio_seconds, now.wall_seconds - was.wall_seconds
        )
        if delta.calls > 0:
            out[label] = {
                "calls": delta.calls,
                "audio_seconds": round(delta.audio_seconds, 3),
                "busy_seconds": round(delta.wall_seconds, 3),
                "x_realtime": round(delta.realtime_factor, 1),
            }
    return out


def session_options(threads: int, spinning: bool = False) -> Any:
    """onnxruntime options: `threads` intra-op threads (not spinning when idle, unless asked), one
    inter-op thread, all graph optimisations."""
    ort = require("onnxruntime")
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    # Idle intra-op threads that spin keep a core busy while another model (ASR, DNSMOS, SIM
    # score different samples at once in a run) or numpy needs it.
    options.add_session_config_entry("session.intra_op.allow_spinning", "1" if spinning else "0")
    return options
