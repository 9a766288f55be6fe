"""One worker subprocess speaking JSON lines over stdin/stdout (protocol: `local_runtime`).

`WorkerProcess` starts the worker, waits for its ready line, sends request lines and
matches answers by id. Its stderr is drained all the time into a bounded tail that every
failure message quotes. Any line on stdout that is not a protocol object marks the worker
broken; so does its exit. A broken worker fails every request it holds and must be replaced.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from collections import deque
from typing import TYPE_CHECKING

from audioeval.core.errors import AudioevalError
from audioeval.store.bounded_json import loads

if TYPE_CHECKING:  # the protocol's types, declared beside the workers that speak it
    from audioeval.adapters.runtimes.workers.worker_protocol import WorkerInfo, WorkerReply, WorkerRequest

_LINE_LIMIT = 16 * 1024 * 1024


class WorkerError(AudioevalError):
    """A worker that crashed, broke the protocol or did not answer in time."""


class WorkerStartError(WorkerError):
    """A worker that did not get to its ready line."""


class WorkerCrashed(WorkerError):
    pass


class WorkerProtocolError(WorkerError):
    pass


def _clip(text: str, n: int = 300) -> str:
    return text if len(text) <= n else text[:n] + f"… ({len(text)} chars)"


class WorkerProcess:
    """A started worker; `label` names it in messages (e.g. "runtime 'x' worker 0")."""

    def __init__(self, argv: list[str], *, label: str, env: dict[str, str] | None = None) -> None:
        self.argv = argv
        self.label = label
        self.env = env
        self.info: WorkerInfo = {}
        self.broken: WorkerError | None = None
        self._proc: asyncio.subprocess.Process | None = None
        self._stderr: deque[str] = deque(maxlen=40)
        self._pending: dict[str, asyncio.Future[WorkerReply]] = {}
        self._abandoned: set[str] = set()
        self._pongs: deque[asyncio.Future[None]] = deque()
        self._ready: asyncio.Future[WorkerInfo] | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._stderr_done = asyncio.Event()

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc else None

    @property
    def alive(self) -> bool:
        return self._proc is not None and self._proc.returncode is None and self.broken is None

    def stderr_tail(self, max_chars: int = 2000) -> str:
        text = "".join(self._stderr).rstrip()
        return text[-max_chars:] if text else "(no stderr output)"

    async def start(self, timeout_s: float) -> WorkerInfo:
        """Launch and wait for `{"ready": true, "info": {...}}`; WorkerStartError otherwise."""
        loop = asyncio.get_running_loop()
        self._ready = loop.create_future()
        try:
            self._proc = await asyncio.create_subprocess_exec(
                *self.argv,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                env=self.env,
                limit=_LINE_LIMIT,
            )
        except OSError as exc:
            raise WorkerStartError(f"{self.label}: could not start {self.argv[0]} ({exc})") from None
        self._tasks = [
            asyncio.create_task(self._read_stdout()),
            asyncio.create_task(self._read_stderr()),
        ]
        try:
            self.info = await asyncio.wait_for(asyncio.shield(self._ready), timeout_s)
        except TimeoutError:
            await self.kill()
            raise WorkerStartError(
                f"{self.label}: not ready after {timeout_s:g} s; stderr tail:\n{self.stderr_tail()}"
            ) from None
        except WorkerError as exc:
            await self.kill()
            raise WorkerStartError(str(exc)) from None
        return self.info

    async def request(self, payload: WorkerRequest, timeout_s: float) -> WorkerReply:
        """Send one request line and await the answer with the same id."""
        if self.broken is not None:
            raise self.broken
        rid = str(payload["id"])
        if rid in self._pending:
            raise WorkerProtocolError(f"{self.label}: request id {rid!r} is already in flight")
        fut: asyncio.Future[WorkerReply] = asyncio.get_running_loop().create_future()
        self._pending[rid] = fut
        try:
            await self._send(payload)
            return await asyncio.wait_for(asyncio.shield(fut), timeout_s)
        except (asyncio.CancelledError, TimeoutError):
            self._abandoned.add(rid)  # its late answer is dropped, not taken for a protocol error
            raise
        finally:
            self._pending.pop(rid, None)

    async def ping(self, timeout_s: float = 5.0) -> bool:
        if not self.alive:
            return False
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._pongs.append(fut)
        try:
            await self._send({"op": "ping"})
            await asyncio.wait_for(asyncio.shield(fut), timeout_s)
            return True
        except (TimeoutError, WorkerError):
            return False

    async def close(self, timeout_s: float = 5.0) -> None:
        """Ask the worker to shut down; kill it when it does not exit in time."""
        proc = self._proc
        if proc is None:
            return
        if proc.returncode is None and self.broken is None:
            with contextlib.suppress(WorkerError):
                await self._send({"op": "shutdown"})
            with contextlib.suppress(OSError, RuntimeError):
                assert proc.stdin is not None
                proc.stdin.close()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(proc.wait(), timeout_s)
        await self.kill()

    async def kill(self) -> None:
        proc = self._proc
        if proc is not None and proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(proc.wait(), 5.0)
        self._fail(self.broken or WorkerCrashed(f"{self.label}: worker was stopped"))
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    async def _send(self, payload: WorkerRequest) -> None:
        assert self._proc is not None and self._proc.stdin is not None
        try:
            self._proc.stdin.write((json.dumps(payload, ensure_ascii=False) + "\n").encode("utf-8"))
            await self._proc.stdin.drain()
        except (BrokenPipeError, ConnectionResetError, RuntimeError) as exc:
            await self._on_exit()
            raise self.broken or WorkerCrashed(
                f"{self.label}: could not write to the worker ({exc})"
            ) from None

    def _fail(self, exc: WorkerError) -> None:
        if self.broken is None:
            self.broken = exc
        for fut in [*self._pending.values(), *self._pongs, self._ready]:
            if fut is not None and not fut.done():
                fut.set_exception(self.broken)
                fut.exception()  # mark retrieved: nobody may be awaiting it any more
        self._pongs.clear()

    async def _read_stderr(self) -> None:
        assert self._proc is not None and self._proc.stderr is not None
        try:
            while line := await self._proc.stderr.readline():
                self._stderr.append(line.decode("utf-8", "replace"))
        finally:
            self._stderr_done.set()

    async def _on_exit(self) -> None:
        """The worker's stdout closed: wait for its exit and stderr, then fail what it held."""
        assert self._proc is not None
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._proc.wait(), 5.0)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._stderr_done.wait(), 2.0)
        code = self._proc.returncode
        self._fail(WorkerCrashed(f"{self.label} exited with code {code}; stderr tail:\n{self.stderr_tail()}"))

    async def _read_stdout(self) -> None:
        assert self._proc is not None and self._proc.stdout is not None
        while True:
            try:
                raw = await self._proc.stdout.readline()
            except ValueError:  # a line over the limit
                self._protocol_error("(a line longer than 16 MiB)")
                break
            if not raw:
                await self._on_exit()
                return
            line = raw.decode("utf-8", "replace").strip()
            if line and not self._dispatch(line):
                self._protocol_error(line)
                break
        with contextlib.suppress(ProcessLookupError):
            self._proc.kill()

    def _protocol_error(self, line: str) -> None:
        self._fail(
            WorkerProtocolError(
                f"{self.label} printed a line that is not protocol JSON: {_clip(line)!r} "
                "(workers must write nothing but protocol lines to stdout; "
                f"stderr tail:\n{self.stderr_tail()})"
            )
        )

    def _dispatch(self, line: str) -> bool:
        try:
            msg = loads(line, nesting=None)
        except ValueError:
            return False
        if not isinstance(msg, dict):
            return False
        if msg.get("ready") is True and self._ready is not None and not self._ready.done():
            info = msg.get("info")
            self._ready.set_result(info if isinstance(info, dict) else {})
            return True
        if msg.get("pong") is True and self._pongs:
            self._pongs.popleft().set_result(None)
            return True
        rid = str(msg.get("id"))
        if "id" in msg and rid in self._abandoned:
            self._abandoned.discard(rid)
            return True
        fut = self._pending.get(rid)
        if "id" in msg and fut is not None:
            if not fut.done():
                fut.set_result(msg)
            return True
        return False


def worker_env(extra: dict[str, str]) -> dict[str, str]:
    """The parent's environment without Python path leaks, plus unbuffered UTF-8 and `extra`."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env.update({"PYTHONUNBUFFERED": "1", "PYTHONIOENCODING": "utf-8", "PYTHONNOUSERSITE": "1"})
    env.update(extra)
    return env
