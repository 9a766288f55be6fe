"""Ray executor: an isolated runtime's workers sharded over Ray actors (`--executor ray`).

Each Ray actor hosts one `LocalRuntimeAdapter` with one worker: the same venv, worker
process, JSON-lines protocol, slicing of clips, restarts and error texts as a single-process
run. The actor reserves a CPU (or `gpus_per_actor` GPUs: Ray sets `CUDA_VISIBLE_DEVICES`,
which the worker inherits). This adapter sends each request to a free actor, so
`max_concurrency` is the number of actors and the engine (resume, cache, records) runs
unchanged; its `signature()` is the runtime's own, so a run may resume under either executor.

Audio travels as paths, never bytes: every node must see the inputs and the run directory
(where workers write output audio) at the same paths, as it must see audioeval, the
runtime's spec, worker script and venv (`audioeval runtime setup` on each node, or shared
storage). docs/scaling.md has the recipe.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict

from audioeval.adapters.base import AdapterHooks, ModelRequest, ModelSignature
from audioeval.adapters.local_runtime import LocalRuntimeAdapter, RestartBudget
from audioeval.adapters.runtimes.spec import RuntimeSpec, WorkerArg
from audioeval.core.errors import (
    AudioError,
    AudioevalError,
    EndpointUnusable,
    InputError,
    OptionalDependencyError,
)
from audioeval.core.model_output import ModelOutput

if TYPE_CHECKING:
    from audioeval.adapters.runtimes.workers.worker_protocol import WorkerInfo

RAY_HINT = "pip install 'audioeval[ray]'"
START_MARGIN_S = 60.0  # beyond the runtime's startup_timeout_s: Ray schedules and starts actors


@dataclass(frozen=True)
class RaySettings:
    """Where and how wide: `address` None starts a local Ray (`auto` or HOST:PORT joins a
    cluster); `actors` None takes one actor per free slot of the cluster."""

    address: str | None = None
    actors: int | None = None
    gpus_per_actor: float = 0.0
    cpus_per_actor: float = 1.0


RAY_CONNECT_TIMEOUT_S = 5.0
"""How long `--ray-address HOST:PORT` may take to accept a TCP connection before the run
stops (exit 3): `ray.init` itself retries an unreachable address for many minutes."""


def check_ray_address(address: str, timeout_s: float = RAY_CONNECT_TIMEOUT_S) -> None:
    """EndpointUnusable unless HOST:PORT (or ray://HOST:PORT) accepts a TCP connection within
    `timeout_s`; `auto` (the cluster this machine joined) is left to Ray."""
    import socket
    from urllib.parse import urlsplit

    if address == "auto":
        return
    parts = urlsplit(address if "://" in address else f"tcp://{address}")
    try:
        host, port = parts.hostname, parts.port
    except ValueError:
        host, port = None, None
    if not host or port is None:
        raise InputError(f"expected HOST:PORT, ray://HOST:PORT or auto, got {address!r}", field="--ray-address")
    try:
        socket.create_connection((host, port), timeout=timeout_s).close()
    except OSError as exc:
        raise EndpointUnusable(
            f"--ray-address {address}: no Ray cluster answers there (no connection within "
            f"{timeout_s:g} s: {exc.strerror or exc}); start one with `ray start --head` or leave "
            "--ray-address out to start Ray on this machine"
        ) from None


def import_ray() -> Any:
    try:
        import ray
    except ImportError as exc:
        raise OptionalDependencyError(f"--executor ray needs Ray: {RAY_HINT}") from exc
    return ray


class ActorOptions(TypedDict):
    """The runtime adapter's settings an actor is created with (resolved on the driver)."""

    runtimes_dir: str | None
    request_timeout_s: float
    startup_timeout_s: float
    python_executable: str | None
    worker_args: dict[str, WorkerArg]
    max_restarts: int
    restart_window_s: float
    name: str


class ActorStart(TypedDict, total=False):
    """An actor's answer to `start`: where it runs and its worker's ready info, or the error
    (`optional`: a missing optional dependency)."""

    error: str
    optional: bool
    pid: int
    host: str
    worker: WorkerInfo


class ActorInputError(TypedDict):
    """An unreadable clip's `InputError` as an actor hands it back (`audio`: an AudioError)."""

    input_error: dict[str, str | int | None]
    audio: bool


class RuntimeActor:
    """Lives inside one Ray actor: a runtime adapter with one worker process."""

    def __init__(self, spec: RuntimeSpec | str, options: ActorOptions) -> None:
        self.adapter = LocalRuntimeAdapter(spec, workers=1, **options)

    async def start(self) -> ActorStart:
        """The worker's ready info, or `{"error": …}` (an audioeval error, as text)."""
        try:
            await self.adapter.start()
        except AudioevalError as exc:
            return {"error": str(exc), "optional": isinstance(exc, OptionalDependencyError)}
        return {"pid": os.getpid(), "host": os.uname().nodename, "worker": self.adapter.worker_info()[0]}

    async def generate(self, request: ModelRequest) -> ModelOutput | ActorInputError:
        """The output, or an unreadable clip's `InputError` as a record (re-raised by the caller)."""
        try:
            return await self.adapter.generate(request)
        except InputError as exc:
            return {"input_error": exc.as_record(), "audio": isinstance(exc, AudioError)}

    async def close(self) -> None:
        await self.adapter.aclose()


class _Actor:
    """One actor position: its handle, replaced when the actor dies."""

    def __init__(self, index: int) -> None:
        self.index = index
        self.handle: Any = None
        self.dead: str | None = None
        self.calls = 0


class RayRuntimeAdapter(AdapterHooks):
    """A `ModelAdapter` over Ray actors, each running one worker of a runtime spec."""

    def __init__(
        self,
        spec: RuntimeSpec | str,
        *,
        settings: RaySettings | None = None,
        runtimes_dir: str | Path | None = None,
        request_timeout_s: float | None = None,
        startup_timeout_s: float | None = None,
        python_executable: str | Path | None = None,
        worker_args: Mapping[str, WorkerArg] | None = None,
        max_restarts: int = 3,
        restart_window_s: float = 300.0,
        name: str | None = None,
    ) -> None:
        self.settings = settings or RaySettings()
        if self.settings.actors is not None and self.settings.actors < 1:
            raise ValueError("actors must be at least 1")
        # Never started: the signature, tasks and limits, exactly as a single-process run has them.
        self.local = LocalRuntimeAdapter(
            spec,
            runtimes_dir=runtimes_dir,
            request_timeout_s=request_timeout_s,
            startup_timeout_s=startup_timeout_s,
            python_executable=python_executable,
            worker_args=worker_args,
            max_restarts=max_restarts,
            restart_window_s=restart_window_s,
            name=name,
        )
        self.spec = self.local.spec
        self.name = self.local.name
        self.max_concurrency = self.settings.actors or 1  # set from the cluster at start()
        # A built-in name is loaded on the actor's node; a spec (file) travels as it is.
        self._spec_arg: RuntimeSpec | str = spec
        python = python_executable or os.environ.get(self.spec.env_var_name)  # actors may not inherit it
        self._options: ActorOptions = {
            "runtimes_dir": str(runtimes_dir) if runtimes_dir else None,
            "request_timeout_s": self.local.request_timeout_s,
            "startup_timeout_s": self.local.startup_timeout_s,
            "python_executable": str(python) if python else None,
            # resolved here (variant `encodec:6k`, $AUDIOEVAL_RUNTIME_MODEL_<NAME>): a node may lack the env
            "worker_args": dict(self.local.worker_args),
            "max_restarts": max_restarts,
            "restart_window_s": restart_window_s,
            "name": self.name,
        }
        self._actors: list[_Actor] = []
        self._idle: asyncio.Queue[_Actor] | None = None
        self._actor_class: Any = None
        self._owns_ray = False
        self._restarts = RestartBudget(self.spec.name, max_restarts, restart_window_s)
        self.actor_info: list[ActorStart] = []

    # -- ModelAdapter -------------------------------------------------------------------

    @property
    def tasks(self) -> tuple[str, ...]:
        return self.local.tasks

    def signature(self) -> ModelSignature:
        """The runtime's signature: the executor moves no number."""
        return self.local.signature()

    async def start(self) -> None:
        ray = import_ray()
        if not ray.is_initialized():
            await asyncio.to_thread(self._init_ray, ray)
        try:
            self.actor_info = await self._start_actors(ray)
        except BaseException:
            await self.aclose()  # the actors that did start, and a Ray started here
            raise
        self._idle = asyncio.Queue()
        for actor in self._actors:
            self._idle.put_nowait(actor)

    async def generate(self, request: ModelRequest) -> ModelOutput:
        if self._idle is None:
            raise RuntimeError(f"{self.name}: generate() called before start()")
        if request.task not in self.spec.tasks:
            return self._error(f"task {request.task!r} not served (serves {list(self.spec.tasks)})")
        actor = await self._idle.get()
        try:
            return await self._on_actor(actor, request)
        finally:
            self._idle.put_nowait(actor)

    async def aclose(self) -> None:
        if not self._actors and not self._owns_ray:
            return
        ray = import_ray()
        handles = [a.handle for a in self._actors if a.handle is not None and a.dead is None]
        if handles:
            closing = asyncio.gather(*(h.close.remote() for h in handles), return_exceptions=True)
            try:
                await asyncio.wait_for(closing, timeout=15)
            except TimeoutError:
                pass
        for actor in self._actors:
            if actor.handle is not None:
                _kill(actor.handle)
                actor.handle = None
        self._idle = None
        if self._owns_ray:
            await asyncio.to_thread(ray.shutdown)
            self._owns_ray = False

    # -- extras ---------------------------------------------------------------------------

    def calls_by_actor(self) -> list[int]:
        """Requests each actor answered (or failed) in this adapter's life."""
        return [a.calls for a in self._actors]

    # -- internals ------------------------------------------------------------------------

    def _error(self, message: str, started: float | None = None) -> ModelOutput:
        latency = time.perf_counter() - started if started is not None else None
        return ModelOutput(error=message, endpoint=f"runtime:{self.name}@ray", latency_s=latency)

    async def _start_actors(self, ray: Any) -> list[ActorStart]:
        n = self.settings.actors or self._free_slots(ray)
        self.max_concurrency = n
        gpus = self.settings.gpus_per_actor
        self._actor_class = ray.remote(num_cpus=self.settings.cpus_per_actor, num_gpus=gpus or None)(
            RuntimeActor
        )
        self._actors = [_Actor(i) for i in range(n)]
        results = await asyncio.gather(*(self._launch(a) for a in self._actors), return_exceptions=True)
        failure = next((r for r in results if isinstance(r, BaseException)), None)
        if failure is not None:
            raise failure
        return [r for r in results if isinstance(r, dict)]

    def _init_ray(self, ray: Any) -> None:
        address = self.settings.address
        if address is None:  # a local Ray of this machine's cores and GPUs, stopped at aclose()
            ray.init(include_dashboard=False, log_to_driver=False)
        else:
            check_ray_address(address)
            try:
                ray.init(address=address, log_to_driver=False)
            except (ConnectionError, RuntimeError, ValueError) as exc:
                raise EndpointUnusable(
                    f"--ray-address {address}: cannot join a Ray cluster ({exc}); start one with "
                    "`ray start --head` or leave --ray-address out to start Ray on this machine"
                ) from None
        self._owns_ray = True

    def _free_slots(self, ray: Any) -> int:
        free = ray.available_resources()
        gpus = self.settings.gpus_per_actor
        n = (
            int(free.get("GPU", 0) // gpus)
            if gpus
            else int(free.get("CPU", 0) // self.settings.cpus_per_actor)
        )
        if n < 1:
            want = f"{gpus:g} GPU" if gpus else f"{self.settings.cpus_per_actor:g} CPU"
            raise AudioevalError(
                f"runtime {self.spec.name!r}: the Ray cluster has no free slot of {want} for an actor "
                f"(free: {self._describe(free)}); free some or give --ray-actors"
            )
        return n

    @staticmethod
    def _describe(free: Mapping[str, float]) -> str:
        return ", ".join(f"{free.get(k, 0):g} {k}" for k in ("CPU", "GPU"))

    async def _launch(self, actor: _Actor) -> ActorStart:
        """Create the actor and start its worker; raises with the worker's reason."""
        actor.handle = self._actor_class.remote(self._spec_arg, self._options)
        actor.dead = None
        limit = self.local.startup_timeout_s + START_MARGIN_S
        try:
            info = await asyncio.wait_for(actor.handle.start.remote(), timeout=limit)
        except TimeoutError:
            free = self._describe(import_ray().available_resources())
            raise AudioevalError(
                f"runtime {self.spec.name!r}: Ray actor {actor.index} did not start within {limit:g} s "
                f"(each actor needs {self.settings.cpus_per_actor:g} CPU and "
                f"{self.settings.gpus_per_actor:g} GPU; free now: {free}); give fewer --ray-actors"
            ) from None
        if "error" in info:
            kind = OptionalDependencyError if info.get("optional") else AudioevalError
            raise kind(f"Ray actor {actor.index}: {info['error']}")
        return info

    async def _on_actor(self, actor: _Actor, request: ModelRequest) -> ModelOutput:
        from ray.exceptions import RayActorError

        t0 = time.perf_counter()
        reason = await self._ensure_actor(actor)
        if reason is not None:
            return self._error(reason, t0)
        actor.calls += 1
        try:
            answer = await actor.handle.generate.remote(request)
        except RayActorError as exc:
            actor.dead = f"Ray actor {actor.index} died: {str(exc).splitlines()[0] if str(exc) else exc!r}"
            return self._error(f"runtime {self.spec.name!r}: {actor.dead}", t0)
        if isinstance(answer, dict):
            kind = AudioError if answer.get("audio") else InputError
            raise kind.from_record(answer["input_error"])
        endpoint = (answer.endpoint or f"runtime:{self.name}").split("#", 1)[0]
        return ModelOutput(
            text=answer.text,
            audio_path=answer.audio_path,
            error=answer.error,
            endpoint=f"{endpoint}@ray#{actor.index}",
            latency_s=answer.latency_s,
            error_detail=answer.error_detail,
        )

    async def _ensure_actor(self, actor: _Actor) -> str | None:
        """Replace a dead actor within the restart budget; the reason when it cannot."""
        if self._restarts.gave_up is None and actor.dead is None:
            return None
        reason = self._restarts.claim("Ray actor", actor.dead)
        if reason is not None:
            return reason
        _kill(actor.handle)
        try:
            await self._launch(actor)
        except AudioevalError as exc:
            actor.dead = str(exc)
            return f"Ray actor restart failed: {exc}"
        return None


def _kill(handle: Any) -> None:
    """Stop an actor (its worker process exits with it: end of input)."""
    try:
        import_ray().kill(handle)
    except Exception:  # noqa: BLE001 - an actor already gone
        pass
