"""Metric models a user has but audioeval does not ship, run as isolated runtimes.

UTMOS, a WavLM speaker-verification model, Paraformer-zh or Whisper-large-v3 in an environment
of its own: any of them runs as a runtime (docs/runtimes.md, "Metric runtimes") whose spec lists
the metric task it serves, and a scorer names the spec:

    scorers: [{asr_wer: {runtime: paraformer-zh.yaml}}, {sim: {runtime: my-wavlm.yaml}},
              {utmos: {runtime: my-utmos.yaml}}]

For each clip the worker receives `{"id", "task", "audio": "/abs/clip.wav", "text": null,
"audio_out": null}` and answers with text: the transcript (task `asr`), the embedding as a JSON
list of numbers (`speaker_embedding`), or the score (`mos`). An `error` fails that sample.

Scorers are called from worker threads, so a runtime lives on an event loop of its own in a
background thread; its worker starts on the first clip, serves one clip at a time, and stops at
`close()` or at exit. Scorers naming the same runtime and task share one worker.
"""

from __future__ import annotations

import asyncio
import atexit
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

from audioeval.adapters.base import ModelRequest, ModelSignature
from audioeval.adapters.local_runtime import LocalRuntimeAdapter
from audioeval.adapters.runtimes.environment import resolve_python
from audioeval.adapters.runtimes.spec import RuntimeSpec, load_runtime_spec
from audioeval.core.errors import InputError
from audioeval.core.messages import AudioRef
from audioeval.core.sample import Sample
from audioeval.scoring.speech_models.runtime import ModelStats, load_once

RUNTIME_DOCS = 'docs/runtimes.md, section "Metric runtimes"'
METRIC_TASKS = {
    "asr": "answers the transcript as text",
    "speaker_embedding": "answers the embedding as a JSON list of numbers",
    "mos": "answers the score as text",
}
T = TypeVar("T")


class _LoopThread:
    """An event loop running in a daemon thread; `run` waits for a coroutine on it."""

    def __init__(self, name: str) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name=name, daemon=True)
        self.thread.start()

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=5)
        if not self.thread.is_alive():
            self.loop.close()


def check_metric_runtime(spec: RuntimeSpec, task: str, scorer: str) -> RuntimeSpec:
    """The spec when it serves `task` with text output, else InputError saying what is missing."""
    missing = spec.lacks(task, ("text", "text+audio"))
    if missing:
        raise InputError(
            f"{spec.described} cannot serve scorer {scorer}: its spec lacks "
            f"{' and '.join(missing)}. A runtime for {scorer} lists {task} under `tasks` and "
            f"{METRIC_TASKS[task]} ({RUNTIME_DOCS}).",
            field=f"scorers.{scorer}.runtime",
        )
    return spec


class RuntimeMetricSignature(ModelSignature, total=False):
    """A metric runtime's signature: its task and the runtime adapter's signature."""

    task: str


class RuntimeMetricModel:
    """One runtime's worker, asked for one metric task on one clip at a time."""

    def __init__(self, spec: RuntimeSpec, task: str) -> None:
        self.spec, self.task = spec, task
        self.stats = ModelStats(f"runtime {spec.name} ({task})")
        self._adapter: LocalRuntimeAdapter | None = None
        self._loop: _LoopThread | None = None
        self._lock = threading.Lock()

    @property
    def signature(self) -> RuntimeMetricSignature:
        """The task and the runtime adapter's signature (requirements, worker hash, args)."""
        return {"task": self.task, **LocalRuntimeAdapter(self.spec).signature()}

    def ask(self, audio: AudioRef, sample_id: str, field: str) -> str:
        """The worker's text answer for one clip (a slice is cut into a WAV by the adapter);
        InputError naming the sample and field when it fails."""
        seconds = clip_seconds(audio, sample_id, field)
        request = ModelRequest(
            sample=Sample(sample_id, {"audio": audio}, {}, {}, ""), messages=(), task=self.task
        )
        with self._lock, self.stats.measure(seconds):  # one clip at a time: busy time is real
            adapter, loop = self._started()
            output = loop.run(adapter.generate(request))
        if output.error:
            raise InputError(
                f"runtime {self.spec.name!r} failed: {output.error}", sample_id=sample_id, field=field
            )
        if output.text is None:
            raise InputError(f"runtime {self.spec.name!r} answered no text", sample_id=sample_id, field=field)
        if not isinstance(output.text, str):  # a worker's line may hold any JSON value
            raise InputError(
                f"runtime {self.spec.name!r} answered a {type(output.text).__name__}, not text",
                sample_id=sample_id,
                field=field,
            )
        return output.text

    def _started(self) -> tuple[LocalRuntimeAdapter, _LoopThread]:
        if self._adapter is None or self._loop is None:
            loop = _LoopThread(f"audioeval-{self.spec.name}")
            adapter = LocalRuntimeAdapter(self.spec)
            try:
                loop.run(adapter.start())
            except BaseException:
                loop.stop()
                raise
            self._adapter, self._loop = adapter, loop
            atexit.register(self.close)
        return self._adapter, self._loop

    def close(self) -> None:
        """Stop the worker (it starts again if another clip comes)."""
        with self._lock:
            adapter, loop = self._adapter, self._loop
            self._adapter = self._loop = None
        if adapter is not None and loop is not None:
            try:
                loop.run(adapter.aclose())
            finally:
                loop.stop()
            atexit.unregister(self.close)


def metric_runtime(ref: str, task: str, scorer: str) -> RuntimeMetricModel:
    """The process-wide worker of runtime `ref` (a spec file or built-in name) for `task`.

    Checked at once: the spec serves `task` with text output, and the runtime is set up (or a
    development interpreter is named), else the error names the setup command.
    """
    try:
        loaded = load_runtime_spec(ref)
    except InputError as exc:
        raise InputError(f"runtime {ref!r}: {exc.describe()}", field=f"scorers.{scorer}.runtime") from exc
    spec = check_metric_runtime(loaded, task, scorer)
    resolve_python(spec)
    key = ("runtime-metric", spec.model_dump_json(), spec.worker_sha256, task)  # an edited spec: a new worker
    return load_once(key, lambda: RuntimeMetricModel(spec, task))


def clip_seconds(audio: AudioRef, sample_id: str, field: str) -> float:
    """The duration of a file or of its slice, or InputError naming the file, sample and field."""
    import soundfile as sf

    from audioeval.audio.slicing import slice_bounds

    try:
        info = sf.info(audio.path)
    except (OSError, RuntimeError) as exc:
        raise InputError(
            f"cannot read audio: {exc}", file=audio.path, sample_id=sample_id, field=field
        ) from exc
    lo, hi = slice_bounds(info.frames, info.samplerate, audio.start, audio.end)
    return (hi - lo) / info.samplerate
