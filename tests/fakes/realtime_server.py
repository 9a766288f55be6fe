"""A fake of the OpenAI Realtime API (beta events) over WebSocket: an aiohttp.web server on
127.0.0.1 in a background thread, checking what a client must send.

Per connection: `GET /v1/realtime?model=NAME` (or Azure's `/openai/realtime?api-version=…&
deployment=NAME`) upgraded to a WebSocket; it sends `session.created`, then expects
`session.update` with `turn_detection: null` (server VAD off), `conversation.item.create`
(one user message of `input_text` / `input_audio` parts, PCM16 24 kHz) and `response.create`;
it answers by the pitch of the audio ("The tone is high." above 500 Hz, else "The tone is
low.") as `response.text.delta`s, or, with audio in the modalities, as
`response.audio_transcript.delta`s and `response.audio.delta`s of a 24 kHz tone, then
`response.done`. A protocol violation is answered with an `error` event and kept in
`violations`.

Faults, switched by the question text: `[drop]` closes the socket before `response.done` on
the first connection for that question, `[error]` sends an `error` event, `[garbage]` a text
frame that is not JSON, `[incomplete]` a `response.done` with status `incomplete`. With
`state.fault` set (one of `tests/fakes/faulty_answers.FAULTS`), every text answer is that
faulty answer: its text as one delta (none when empty; NaN as the JSON literal), or, for
`html`, a web page sent as the frame.
"""

from __future__ import annotations

import asyncio
import base64
import json
import threading
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from aiohttp import WSMsgType, web

from tests.fakes.faulty_answers import HTML_PAGE, fault_text
from tests.fakes.mcq_server import dominant_hz


@dataclass
class FakeRealtimeState:
    model: str = "gpt-4o-realtime"
    connections: list[dict[str, Any]] = field(default_factory=list)
    sessions: list[dict[str, Any]] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)
    dropped: set[str] = field(default_factory=set)
    fault: str | None = None


def _tone_pcm(hz: float, seconds: float = 0.4) -> bytes:
    t = np.arange(int(24000 * seconds)) / 24000
    return (0.4 * np.sin(2 * np.pi * hz * t) * 32767).astype("<i2").tobytes()


class _Turn:
    def __init__(self, state: FakeRealtimeState, ws: web.WebSocketResponse) -> None:
        self.state, self.ws = state, ws
        self.n = 0

    async def send(self, kind: str, **fields: Any) -> None:
        self.n += 1
        await self.ws.send_str(json.dumps({"event_id": f"event_{self.n}", "type": kind, **fields}))

    async def violation(self, text: str) -> None:
        self.state.violations.append(text)
        await self.send("error", error={"type": "invalid_request_error", "code": "protocol", "message": text})

    async def run(self) -> None:
        await self.send("session.created", session={"id": "sess_1", "model": self.state.model})
        session: dict[str, Any] | None = None
        item: dict[str, Any] | None = None
        async for msg in self.ws:
            if msg.type != WSMsgType.TEXT:
                continue
            event = json.loads(msg.data)
            kind = event.get("type")
            if kind == "session.update":
                session = event["session"]
                if "turn_detection" not in session or session["turn_detection"] is not None:
                    await self.violation("server VAD must be off (turn_detection: null)")
                self.state.sessions.append(session)
                await self.send("session.updated", session=session)
            elif kind == "conversation.item.create":
                item = event["item"]
                await self.send("conversation.item.created", item={**item, "id": "item_1"})
            elif kind == "response.create":
                if session is None or item is None:
                    await self.violation("response.create before session.update and an item")
                    continue
                await self.respond(session, item, event["response"]["modalities"])
                if self.ws.closed:
                    return

    async def respond(self, session: dict[str, Any], item: dict[str, Any], modalities: list[str]) -> None:
        texts, hz = [], None
        for part in item["content"]:
            if part["type"] == "input_text":
                texts.append(part["text"])
            elif part["type"] == "input_audio":
                pcm = np.frombuffer(base64.b64decode(part["audio"]), dtype="<i2").astype(np.float32) / 32768
                hz = dominant_hz(pcm, 24000)
            else:
                await self.violation(f"unknown content part {part['type']}")
                return
        prompt = " ".join(texts)
        say = "I heard nothing." if hz is None else ("The tone is high." if hz > 500 else "The tone is low.")
        await self.send("response.created", response={"id": "resp_1", "status": "in_progress"})
        if "[error]" in prompt:
            await self.send(
                "error", error={"type": "server_error", "code": None, "message": "the model failed"}
            )
            return
        if "[garbage]" in prompt:
            await self.ws.send_str("<html>not an event</html>")
            return
        if "[drop]" in prompt and prompt not in self.state.dropped:
            self.state.dropped.add(prompt)
            await self.send("response.text.delta", delta="The tone")
            await self.ws.close()
            return
        if self.state.fault is not None and "audio" not in modalities:
            await self.faulty_answer(self.state.fault)
            return
        words = say.split(" ")
        deltas = [words[0], *(" " + w for w in words[1:])]
        if "audio" in modalities:
            for delta in deltas:
                await self.send("response.audio_transcript.delta", delta=delta)
            pcm = _tone_pcm(880 if "high" in say else 220)
            for start in range(0, len(pcm), 4800):
                await self.send(
                    "response.audio.delta", delta=base64.b64encode(pcm[start : start + 4800]).decode()
                )
            await self.send("response.audio.done")
        else:
            for delta in deltas:
                await self.send("response.text.delta", delta=delta)
        status = "incomplete" if "[incomplete]" in prompt else "completed"
        details = {"type": "incomplete", "reason": "max_output_tokens"} if status != "completed" else None
        # the Realtime API's usage: audio in at 10 tokens per second, a token per word of text
        audio_in = round(
            sum(
                len(base64.b64decode(p["audio"])) / 2 / 24000
                for p in item["content"]
                if p["type"] == "input_audio"
            )
            * 10
        )
        audio_out = round(len(_tone_pcm(220)) / 2 / 24000 * 10) if "audio" in modalities else 0
        text_in, text_out = len(prompt.split()), len(words)
        usage = {
            "total_tokens": text_in + audio_in + text_out + audio_out,
            "input_tokens": text_in + audio_in,
            "output_tokens": text_out + audio_out,
            "input_token_details": {"cached_tokens": 0, "text_tokens": text_in, "audio_tokens": audio_in},
            "output_token_details": {"text_tokens": text_out, "audio_tokens": audio_out},
        }
        await self.send(
            "response.done",
            response={"id": "resp_1", "status": status, "status_details": details, "usage": usage},
        )

    async def faulty_answer(self, fault: str) -> None:
        if fault == "html":
            await self.ws.send_str(HTML_PAGE)
            return
        text = fault_text(fault)
        if text != "":
            await self.send("response.text.delta", delta=text)
        await self.send("response.done", response={"id": "resp_1", "status": "completed"})


class FakeRealtimeServer:
    """`with FakeRealtimeServer() as s: s.base_url` serves on 127.0.0.1."""

    def __init__(self, state: FakeRealtimeState | None = None) -> None:
        self.state = state or FakeRealtimeState()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._runner: web.AppRunner | None = None
        self.port = 0

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        self.state.connections.append(
            {"path": request.path, "query": dict(request.query), "headers": dict(request.headers)}
        )
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        await _Turn(self.state, ws).run()
        return ws

    async def _start(self) -> None:
        app = web.Application()
        app.router.add_get("/v1/realtime", self._handle)
        app.router.add_get("/openai/realtime", self._handle)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def __enter__(self) -> FakeRealtimeServer:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self._loop).result(10)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._runner is not None:
            asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)
