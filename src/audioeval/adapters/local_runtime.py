"""Isolated local runtime: a model served by worker subprocesses in its own virtual env.

A model whose dependencies conflict with ours runs in a venv made by
`audioeval runtime setup NAME` (see `adapters/runtimes/`). The adapter starts `workers`
long-lived worker processes and keeps at most one request in flight on each, so
`max_concurrency` equals the number of workers.

Worker protocol (JSON lines over stdin/stdout, UTF-8, one object per line):

1. The parent starts `<venv>/bin/python <worker script> --args-json '<worker_args as JSON>'`.
2. The worker loads its model, then prints `{"ready": true, "info": {...}}`. The parent waits
   up to the spec's `startup_timeout_s`; an exit or a timeout before that line is a start-up
   error quoting the worker's stderr tail.
3. For each request line `{"id": "...", "task": "asr", "audio": "/abs/path.wav" | null,
   "text": "..." | null, "audio_out": "/abs/out.wav" | null}` the worker answers one line
   `{"id": "...", "text": "..." | null, "audio_path": "..." | null, "error": "..." | null}`.
   A failure on one request is an answer with `error` set; the worker keeps serving.
4. `{"op": "ping"}` is answered `{"pong": true}`; `{"op": "shutdown"}` makes the worker exit 0.
5. Workers print nothing else to stdout (they point fd 1 at stderr at start and keep a private
   handle to the real stdout); anything may go to stderr. Workers import only the standard
   library and their venv's packages, never audioeval.

Failures become `ModelOutput(error=...)`, never scores (an answer without text or audio, or
with a number where text is due, is refused by the engine's output gate like any model's): a worker that exits mid-request
("worker crashed: …" with its stderr tail), prints a non-protocol line, or runs past
`request_timeout_s` fails that request and is restarted for the next one, at most
`max_restarts` times within `restart_window_s`; after that every request fails with a clear
message. A missing venv raises `RuntimeNotInstalledError` at `start()` with the exact
`audioeval runtime setup NAME` command.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import tempfile
import time
import uuid
from collections import deque
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from audioeval.adapters.base import AdapterHooks, ModelRequest, ModelSignature
from audioeval.adapters.runtimes.environment import resolve_python
from audioeval.adapters.runtimes.request_inputs import audio_input, text_input
from audioeval.adapters.runtimes.spec import RuntimeSpec, WorkerArg, load_runtime_spec
from audioeval.adapters.runtimes.worker_process import (
    WorkerCrashed,
    WorkerError,
    WorkerProcess,
    WorkerProtocolError,
    WorkerStartError,
    worker_env,
)
from audioeval.core.errors import AudioevalError, InputError
from audioeval.core.model_output import ModelOutput

if TYPE_CHECKING:
    from audioeval.adapters.runtimes.workers.worker_protocol import WorkerInfo, WorkerReply, WorkerRequest


class RestartBudget:
    """At most `limit` restarts within `window_s` seconds; past that the runtime gives up for
    good: the reason is kept and every later request fails with it."""

    def __init__(self, runtime: str, limit: int, window_s: float) -> None:
        self.runtime, self.limit, self.window_s = runtime, limit, window_s
        self._times: deque[float] = deque()
        self.gave_up: str | None = None

    def claim(self, what: str, last: object) -> str | None:
        """Count one restart of a `what` ("worker", "Ray actor") that failed with `last`:
        None when the budget allows it, else why not."""
        if self.gave_up is not None:
            return self.gave_up
        now = time.monotonic()
        while self._times and now - self._times[0] > self.window_s:
            self._times.popleft()
        if len(self._times) >= self.limit:
            self.gave_up = (
                f"runtime {self.runtime!r}: gave up after {self.limit} {what} restarts within "
                f"{self.window_s:g} s; last failure: {last}"
            )
            return self.gave_up
        self._times.append(now)
        return None


class _Slot:
    """One worker position: its current process, replaced after each failure."""

    def __init__(self, index: int) -> None:
        self.index = index
        self.worker: WorkerProcess | None = None


class LocalRuntimeAdapter(AdapterHooks):
    """A `ModelAdapter` over a runtime spec's worker processes."""

    def __init__(
        self,
        spec: RuntimeSpec | str,
        *,
        runtimes_dir: str | Path | None = None,
        workers: int = 1,
        request_timeout_s: float | None = None,
        startup_timeout_s: float | None = None,
        python_executable: str | Path | None = None,
        worker_args: Mapping[str, WorkerArg] | None = None,
        max_restarts: int = 3,
        restart_window_s: float = 300.0,
        name: str | None = None,
    ) -> None:
        if workers < 1:
            raise ValueError("workers must be at least 1")
        self.spec = load_runtime_spec(spec) if isinstance(spec, str) else spec
        self.name = name or self.spec.name
        self.max_concurrency = workers
        self.runtimes_dir = runtimes_dir
        self.request_timeout_s = request_timeout_s or self.spec.request_timeout_s
        self.startup_timeout_s = startup_timeout_s or self.spec.startup_timeout_s
        self.python_executable = python_executable
        self.worker_args: dict[str, WorkerArg] = {**self.spec.worker_args, **(worker_args or {})}
        self.python: Path | None = None
        self.python_source = ""
        self._slots = [_Slot(i) for i in range(workers)]
        self._idle: asyncio.Queue[_Slot] | None = None
        self._restarts = RestartBudget(self.spec.name, max_restarts, restart_window_s)
        self._tmp: Path | None = None

    # -- ModelAdapter -------------------------------------------------------------------

    @property
    def tasks(self) -> tuple[str, ...]:
        """The tasks the runtime serves; the engine pairs it with those benchmarks only."""
        return tuple(self.spec.tasks)

    def signature(self) -> ModelSignature:
        return {
            "adapter": "local_runtime",
            "runtime": self.spec.name,
            "requirements": list(self.spec.requirements),
            "requirements_hash": self.spec.requirements_hash,
            "worker": self.spec.worker.name,
            "worker_sha256": self.spec.worker_sha256,
            "worker_args": dict(sorted(self.worker_args.items())),
            "tasks": list(self.spec.tasks),
            "output": self.spec.output,
            "isolated": self.python_executable is None and not os.environ.get(self.spec.env_var_name),
        }

    async def start(self) -> None:
        """Start every worker and wait for their ready lines (raises on any failure)."""
        self.python, self.python_source = resolve_python(self.spec, self.runtimes_dir, self.python_executable)
        if not self.python.exists():
            raise AudioevalError(
                f"runtime {self.spec.name!r}: interpreter {self.python} does not exist "
                f"(set by {self.python_source})"
            )
        if not self.spec.worker.is_file():
            raise AudioevalError(f"runtime {self.spec.name!r}: worker script not found: {self.spec.worker}")
        self._tmp = Path(tempfile.mkdtemp(prefix=f"audioeval-{self.spec.name}-"))
        self._idle = asyncio.Queue()
        results = await asyncio.gather(*(self._launch(s) for s in self._slots), return_exceptions=True)
        failure = next((r for r in results if isinstance(r, BaseException)), None)
        if failure is not None:
            await self.aclose()
            raise failure
        for slot in self._slots:
            self._idle.put_nowait(slot)

    async def generate(self, request: ModelRequest) -> ModelOutput:
        if self._idle is None:
            raise RuntimeError(f"{self.name}: generate() called before start()")
        if request.task not in self.spec.tasks:
            return self._error(f"task {request.task!r} not served (serves {list(self.spec.tasks)})")
        try:
            assert self._tmp is not None
            audio = await asyncio.to_thread(audio_input, request, self._tmp)
        except InputError:
            raise  # a clip that cannot be read: the caller knows whose it is (input or output)
        except (AudioevalError, OSError) as exc:
            return self._error(f"audio input: {exc}")
        payload: WorkerRequest = {
            "id": f"{request.sample.id}#{uuid.uuid4().hex[:8]}",
            "task": request.task,
            "audio": audio,
            "text": text_input(request),
            "audio_out": os.path.abspath(request.audio_out) if request.audio_out else None,
        }
        slot = await self._idle.get()
        try:
            return await self._on_slot(slot, payload)
        finally:
            self._idle.put_nowait(slot)
            if audio and self._tmp is not None and Path(audio).parent == self._tmp:
                Path(audio).unlink(missing_ok=True)

    async def aclose(self) -> None:
        await asyncio.gather(*(s.worker.close() for s in self._slots if s.worker), return_exceptions=True)
        for slot in self._slots:
            slot.worker = None
        self._idle = None
        if self._tmp is not None:
            shutil.rmtree(self._tmp, ignore_errors=True)
            self._tmp = None

    # -- extras ---------------------------------------------------------------------------

    async def health(self, timeout_s: float = 5.0) -> list[bool]:
        """Ping every worker: True for each that answered in time."""
        return list(
            await asyncio.gather(*((s.worker.ping(timeout_s) if s.worker else _false()) for s in self._slots))
        )

    def worker_info(self) -> list[WorkerInfo]:
        """What each worker reported in its ready line."""
        return [s.worker.info.copy() if s.worker else {} for s in self._slots]

    # -- internals ------------------------------------------------------------------------

    def _label(self, slot: _Slot) -> str:
        return f"runtime {self.spec.name!r} worker {slot.index}"

    async def _launch(self, slot: _Slot) -> None:
        assert self.python is not None
        argv = [str(self.python), str(self.spec.worker), "--args-json", json.dumps(self.worker_args)]
        worker = WorkerProcess(argv, label=self._label(slot), env=worker_env(self.spec.env))
        slot.worker = worker
        await worker.start(self.startup_timeout_s)

    def _error(self, message: str, started: float | None = None) -> ModelOutput:
        latency = time.perf_counter() - started if started is not None else None
        return ModelOutput(error=message, endpoint=f"runtime:{self.name}", latency_s=latency)

    async def _ensure_worker(self, slot: _Slot) -> str | None:
        """Restart a dead worker within the restart budget; the reason when it cannot."""
        if self._restarts.gave_up is None and slot.worker is not None and slot.worker.alive:
            return None
        reason = self._restarts.claim("worker", slot.worker.broken if slot.worker else None)
        if reason is not None:
            return reason
        if slot.worker is not None:
            await slot.worker.kill()
        try:
            await self._launch(slot)
        except WorkerStartError as exc:
            return f"worker restart failed: {exc}"
        return None

    async def _on_slot(self, slot: _Slot, payload: WorkerRequest) -> ModelOutput:
        t0 = time.perf_counter()
        reason = await self._ensure_worker(slot)
        if reason is not None:
            return self._error(reason, t0)
        assert slot.worker is not None
        t0 = time.perf_counter()
        try:
            answer = await slot.worker.request(payload, self.request_timeout_s)
        except TimeoutError:
            await slot.worker.kill()
            return self._error(
                f"runtime {self.spec.name!r}: request timed out after {self.request_timeout_s:g} s; "
                "worker stopped (it restarts for the next request); "
                f"stderr tail:\n{slot.worker.stderr_tail()}",
                t0,
            )
        except WorkerCrashed as exc:
            return self._error(f"worker crashed: {exc}", t0)
        except WorkerProtocolError as exc:
            return self._error(f"worker protocol error: {exc}", t0)
        except WorkerError as exc:
            return self._error(str(exc), t0)
        return self._output(answer, slot, time.perf_counter() - t0)

    def _output(self, answer: WorkerReply, slot: _Slot, latency: float) -> ModelOutput:
        endpoint = f"runtime:{self.name}#{slot.index}"
        text, audio_path, error = answer.get("text"), answer.get("audio_path"), answer.get("error")
        if error is not None:
            return ModelOutput(error=f"worker error: {error}", endpoint=endpoint, latency_s=latency)
        # What the answer is worth (no text, a number for a text, a missing file) is the output
        # gate's to say, as for every adapter (engine/output_gate.py).
        return ModelOutput(text=text, audio_path=audio_path, endpoint=endpoint, latency_s=latency)


async def _false() -> bool:
    return False
