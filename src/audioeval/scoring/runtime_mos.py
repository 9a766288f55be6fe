"""MOS predictors a user has but audioeval does not ship (UTMOS, …), run as isolated runtimes.

No UTMOS ships its weights in a registry package, so audioeval cannot embed one. A user who has
one (its package and weights) writes a runtime spec whose worker loads it, and names that spec
in the benchmark:

    scorers: [asr_wer, dnsmos, {utmos: {runtime: my-utmos.yaml}}]

The spec lists task `mos` and text output (docs/runtimes.md, "Metric runtimes"). For each
output clip the worker receives `{"id", "task": "mos", "audio": "/abs/clip.wav", "text": null,
"audio_out": null}` and answers the predicted MOS as text (`{"id", "text": "3.87"}`). An answer
that is no finite number, or an `error`, fails that sample (recorded, counted, retried by the
next run), never a score.

Scorers are called from worker threads, so the runtime lives on an event loop of its own in a
background thread; its worker starts on the first clip and stops at `close()` or at exit.
"""

from __future__ import annotations

import asyncio
import atexit
import math
import threading
from collections.abc import Coroutine
from dataclasses import dataclass, field
from typing import Any, TypeVar

from audioeval.adapters.base import ModelRequest
from audioeval.adapters.local_runtime import LocalRuntimeAdapter
from audioeval.adapters.runtimes.environment import resolve_python
from audioeval.adapters.runtimes.spec import RuntimeSpec, load_runtime_spec
from audioeval.core.errors import InputError
from audioeval.core.messages import AudioRef
from audioeval.core.sample import Sample
from audioeval.scoring.base import Prediction, SampleScore
from audioeval.scoring.speech_models.runtime import ModelStats

MOS_TASK = "mos"
RUNTIME_DOCS = 'docs/runtimes.md, section "Metric runtimes"'
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


def check_mos_runtime(spec: RuntimeSpec, scorer: str) -> RuntimeSpec:
    """The spec when it serves task `mos` with text output, else InputError saying what is missing."""
    missing = []
    if MOS_TASK not in spec.tasks:
        missing.append(f"task mos (its tasks: {', '.join(spec.tasks)})")
    if spec.output not in ("text", "text+audio"):
        missing.append(f"text output (its output: {spec.output})")
    if missing:
        where = f" ({spec.source})" if spec.source else ""
        raise InputError(
            f"runtime {spec.name!r}{where} cannot score {scorer}: its spec lacks {' and '.join(missing)}. "
            f"A MOS runtime lists mos under `tasks` and answers the score as text ({RUNTIME_DOCS}).",
            field=f"scorers.{scorer}.runtime",
        )
    return spec


def parse_mos(text: str | None) -> float | None:
    """The worker's answer as a finite number, or None."""
    try:
        value = float((text or "").strip())
    except ValueError:
        return None
    return value if math.isfinite(value) else None


@dataclass
class RuntimeMosScorer:
    """The MOS of each output clip from a runtime's worker; the value is named after the scorer."""

    name: str
    runtime: str
    _spec: RuntimeSpec = field(init=False, repr=False)
    _adapter: LocalRuntimeAdapter | None = field(default=None, init=False, repr=False)
    _loop: _LoopThread | None = field(default=None, init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)
    stats: ModelStats = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._spec = check_mos_runtime(load_runtime_spec(self.runtime), self.name)
        resolve_python(self._spec)  # not installed: the exact setup command, before anything runs
        self.stats = ModelStats(f"runtime {self._spec.name} ({self.name})")

    def signature(self) -> dict[str, Any]:
        return {"scorer": self.name, "runtime": LocalRuntimeAdapter(self._spec).signature()}

    def score(self, prediction: Prediction, sample: Sample) -> SampleScore:
        import soundfile as sf

        if not prediction.audio_path:
            raise InputError("the model returned no audio", sample_id=sample.id, field="output.audio_path")
        try:
            seconds = float(sf.info(prediction.audio_path).duration)
        except (OSError, RuntimeError) as exc:
            raise InputError(
                f"cannot read the output audio: {exc}", sample_id=sample.id, field="output.audio_path"
            ) from exc
        request = ModelRequest(
            sample=Sample(sample.id, {"audio": AudioRef(prediction.audio_path)}, {}, {}, sample.source),
            messages=(),
            task=MOS_TASK,
        )
        with self._lock, self.stats.measure(seconds):  # one clip at a time: busy time is real
            adapter, loop = self._started()
            output = loop.run(adapter.generate(request))
        where = f"runtime {self._spec.name!r}"
        if output.error:
            raise InputError(f"{where} failed: {output.error}", sample_id=sample.id, field=self.name)
        value = parse_mos(output.text)
        if value is None:
            raise InputError(
                f"{where} answered {output.text!r}, not a number", sample_id=sample.id, field=self.name
            )
        return SampleScore({self.name: value}, {self.name: value}, {"runtime": self._spec.name})

    def _started(self) -> tuple[LocalRuntimeAdapter, _LoopThread]:
        if self._adapter is None or self._loop is None:
            loop = _LoopThread(f"audioeval-{self._spec.name}")
            adapter = LocalRuntimeAdapter(self._spec)
            try:
                loop.run(adapter.start())
            except BaseException:
                loop.stop()
                raise
            self._adapter, self._loop = adapter, loop
            atexit.register(self.close)
        return self._adapter, self._loop

    def close(self) -> None:
        """Stop the worker (it is started again if another clip comes)."""
        with self._lock:
            adapter, loop = self._adapter, self._loop
            self._adapter = self._loop = None
        if adapter is not None and loop is not None:
            try:
                loop.run(adapter.aclose())
            finally:
                loop.stop()
            atexit.unregister(self.close)
