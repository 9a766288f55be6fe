"""A model behind the Realtime API over WebSocket (gpt-4o-realtime on OpenAI or Azure OpenAI):
one connection and one turn per sample, server VAD off (`adapters/realtime_events.py`).

Text tasks ask for `["text"]`; tasks with audio output (spoken answers, TTS) for
`["audio", "text"]`: the PCM16 deltas become a 24 kHz WAV at the path the engine gives, the
audio transcript the output text. Input clips go out as PCM16 at 24 kHz; the prompt's
system text becomes the session's `instructions`, its other text and audio one user message.

Like `ChatClient` (aiohttp's `ws_connect`, no extra package): one deadline per sample
(`timeout_s`); inside it a refused or dropped connection, a handshake answered 429/5xx or a
socket closed before `response.done` is retried with backoff on whichever endpoint the pool
offers, and when every endpoint has failed by connection for `unreachable_after_s` the run
stops (a rerun resumes). An `error` event, a response not `completed`, a handshake refused
otherwise (401, 404) or a malformed event is a recorded failure. Answers go through the
response cache (audio only when it decodes), so a rerun asks nothing twice. The Realtime
beta takes temperatures from 0.6 to 1.2 only: a lower `--temperature` is sent as set and the
server's refusal recorded.
"""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import json
import random
import time
from dataclasses import dataclass, field, replace
from typing import TypedDict

import aiohttp

from audioeval.adapters.base import AdapterHooks, GenerationConfig, ModelRequest, ModelSignature
from audioeval.adapters.realtime_events import (
    RATE,
    ClientEvent,
    RealtimeError,
    SessionConfig,
    TurnReply,
    response_create,
    session_update,
    user_item,
    wav_to_pcm16,
)
from audioeval.audio.clip_cache import ClipCache
from audioeval.core.errors import AudioevalError, EndpointsUnreachable, RunStopped
from audioeval.core.generation import Generation
from audioeval.core.messages import AudioPart, TextPart
from audioeval.core.model_output import ModelOutput
from audioeval.core.redact import redact
from audioeval.core.usage import Usage
from audioeval.engine.api_providers import ProviderWire
from audioeval.engine.cached_judge import through_cache
from audioeval.engine.chat_client import CONNECTION_ERRORS, RETRYABLE_STATUS
from audioeval.engine.endpoint_pool import Endpoint, EndpointPool
from audioeval.engine.endpoint_probe import PROBE_TIMEOUT_S, EndpointCheck, keep_usable
from audioeval.engine.openai_model import _audio_decodes, generation_output
from audioeval.engine.output_gate import usable_text
from audioeval.engine.run_budget import current_budget
from audioeval.store.bounded_json import loads
from audioeval.store.response_cache import ResponseCache, request_key


class TurnIdentity(TypedDict):
    """What one turn asks, with audio as content hashes: the base of its cache key."""

    model: str
    session: SessionConfig
    parts: list[list[str]]  # ["text", text] or ["audio", sha256], in the prompt's order


class _Dropped(Exception):
    """The socket closed before `response.done` (retried)."""


class _NoHandshake(Exception):
    """The server took the connection but answered no WebSocket handshake in time."""


@dataclass
class RealtimeModel(AdapterHooks):
    name: str
    wire: ProviderWire
    served_model: str
    api_key: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    max_concurrency: int = 8
    timeout_s: float = 300.0
    unreachable_after_s: float = 30.0
    handshake_timeout_s: float = PROBE_TIMEOUT_S
    config: GenerationConfig = field(default_factory=GenerationConfig)
    cache: ResponseCache | None = None
    voice: str | None = None
    backoff_base_s: float = 0.25
    backoff_max_s: float = 8.0
    calls: int = 0
    _pool: EndpointPool | None = None
    _http: aiohttp.ClientSession | None = None
    _clips: ClipCache | None = None
    _sem: asyncio.Semaphore | None = None

    def signature(self) -> ModelSignature:
        sig: ModelSignature = {
            "model": self.name,
            "type": "openai",
            "api": "realtime",
            "served_model": self.served_model,
            "sample_rate": RATE,
        }
        if self.wire.provider != "openai":
            sig["provider"] = self.wire.provider
        if self.voice:
            sig["voice"] = self.voice
        return sig

    async def check_endpoints(self) -> None:
        """One WebSocket handshake with each endpoint within PROBE_TIMEOUT_S, before the run;
        the usable ones are kept (`endpoint_probe.keep_usable`)."""
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=None)) as http:
            checks = await asyncio.gather(*(self._check(http, url) for url in self.wire.urls))
        urls = keep_usable(checks, f"model {self.name}")
        self.wire = dataclasses.replace(self.wire, urls=urls)

    async def _check(self, http: aiohttp.ClientSession, base: str) -> EndpointCheck:
        ep = EndpointPool([base], api_key=self.api_key, key_header=self.wire.key_header).acquire()
        url = self.wire.realtime_url(base, self.served_model)
        headers = {**ep.headers, **self.wire.realtime_headers()}
        problem: str | None = None
        try:
            ws = await asyncio.wait_for(http.ws_connect(url, headers=headers), PROBE_TIMEOUT_S)
            await ws.close()
        except TimeoutError:
            problem = f"no WebSocket handshake within {PROBE_TIMEOUT_S:g}s"
        except aiohttp.WSServerHandshakeError as exc:
            if exc.status in (401, 403):
                problem = f"unauthorised (HTTP {exc.status}): check ${self.api_key_env}"
            elif exc.status in (404, 405):
                problem = f"no Realtime API here: the WebSocket handshake answered HTTP {exc.status}"
        except aiohttp.ClientError as exc:
            problem = f"cannot connect ({type(exc).__name__}: {redact(str(exc))})"
        return EndpointCheck(base, problem)

    async def start(self) -> None:
        self._pool = EndpointPool(self.wire.urls, api_key=self.api_key, key_header=self.wire.key_header)
        self._http = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=None))
        self._clips = ClipCache(target_rate=RATE)
        self._sem = asyncio.Semaphore(self.max_concurrency)

    async def aclose(self) -> None:
        if self._http is not None:
            await self._http.close()

    def _turn_events(
        self, request: ModelRequest, audio_out: bool
    ) -> tuple[list[ClientEvent], TurnIdentity]:
        """(the client events of one turn, their identity with audio as content hashes)."""
        assert self._clips is not None
        system = request.config.system_prompt or self.config.system_prompt
        instructions = [system] if system else []
        parts: list[tuple[str, str]] = []
        ident_parts: list[list[str]] = []
        for message in request.messages:
            for part in message.parts:
                if isinstance(part, TextPart) and message.role == "system":
                    instructions.append(part.text)
                elif isinstance(part, TextPart):
                    parts.append(("text", part.text))
                    ident_parts.append(["text", part.text])
                elif isinstance(part, AudioPart):
                    clip = self._clips.get(part.audio, sample_id=request.sample.id, field="audio")
                    pcm = wav_to_pcm16(base64.b64decode(clip.b64_wav))
                    parts.append(("audio", base64.b64encode(pcm).decode("ascii")))
                    ident_parts.append(["audio", clip.sha256])
        modalities = ["audio", "text"] if audio_out else ["text"]
        temperature = request.config.sampling().get("temperature")
        update = session_update(
            modalities=modalities,
            instructions="\n\n".join(instructions) or None,
            voice=self.voice,
            temperature=temperature,
        )
        events: list[ClientEvent] = [update, user_item(parts), response_create(modalities)]
        ident: TurnIdentity = {"model": self.served_model, "session": update["session"], "parts": ident_parts}
        return events, ident

    async def generate(self, request: ModelRequest) -> ModelOutput:
        audio = request.audio_out is not None
        try:
            events, ident = self._turn_events(request, audio)
            key = request_key({"realtime": ident, "attempt": 0})
            sent_s = self._sent_seconds(request)
            gen = await through_cache(
                self.cache,
                key,
                lambda: self._ask(events, audio, sent_s),
                _audio_decodes if audio else usable_text,
            )
        except RunStopped:
            raise
        except (AudioevalError, ValueError) as exc:
            return ModelOutput(error=redact(str(exc)))
        return await generation_output(gen, request, source=self.name)

    async def _ask(self, events: list[ClientEvent], audio: bool, sent_s: float) -> Generation:
        assert self._sem is not None and self._pool is not None
        budget = current_budget()
        async with self._sem:
            if budget is not None:
                budget.admit(f"model {self.name}")  # BudgetReached: no new request past the limits
            self.calls += 1
            gen = await self._with_retries(events, audio)
            if gen.usage is not None:
                gen = replace(gen, usage=gen.usage.with_audio(sent_s=round(sent_s, 3)))
            if budget is not None:
                budget.spent(self.served_model, gen.usage, f"model {self.name}")
            return gen

    def _sent_seconds(self, request: ModelRequest) -> float:
        """Seconds of the audio one request of `request` sends (its clips, encoded once)."""
        assert self._clips is not None
        refs = [p.audio for m in request.messages for p in m.parts if isinstance(p, AudioPart)]
        return sum(self._clips.get(r, sample_id=request.sample.id, field="audio").duration_s for r in refs)

    async def _with_retries(self, events: list[ClientEvent], audio: bool) -> Generation:
        gen, tries = await self._tries(events, audio)
        wall = gen.latency_s or 0.0
        reply_usage = gen.usage if gen.usage is not None else Usage.unknown()
        used = replace(reply_usage, calls=1, retries=tries, wall_s=wall, audio_sent_s=0.0, audio_received_s=0.0)
        return replace(gen, usage=used)

    async def _tries(self, events: list[ClientEvent], audio: bool) -> tuple[Generation, int]:
        """The generation of one request, and how many further tries it took."""
        pool = self._pool
        assert pool is not None
        start = time.monotonic()
        deadline = start + self.timeout_s
        last_error, last_url, tries = "no request sent", None, 0
        while (remaining := deadline - time.monotonic()) > 0:
            ep = pool.acquire()
            last_url = ep.url
            try:
                reply = await asyncio.wait_for(self._turn(ep, events), remaining)
            except TimeoutError:
                pool.release(ep, failed=True)
                last_error = f"{ep.url}: no response.done in time"
            except aiohttp.WSServerHandshakeError as exc:
                pool.release(ep, failed=exc.status >= 500)
                last_error = f"{ep.url}: WebSocket handshake answered HTTP {exc.status}"
                if exc.status not in RETRYABLE_STATUS:
                    return Generation(
                        None, error=last_error, endpoint=ep.url, latency_s=time.monotonic() - start
                    ), tries
            except (*CONNECTION_ERRORS, _NoHandshake) as exc:
                reason = f"{type(exc).__name__}: {redact(str(exc))}"
                pool.release(ep, failed=True, unreachable=True, error=reason)
                last_error = f"{ep.url}: {reason}"
                self._stop_when_unreachable()
            except (_Dropped, aiohttp.ClientError) as exc:
                pool.release(ep, failed=True)
                last_error = f"{ep.url}: {type(exc).__name__}: {redact(str(exc))}"
            except RealtimeError as exc:
                pool.release(ep, failed=False)
                return Generation(
                    None,
                    error=f"{ep.url}: {redact(str(exc))}",
                    endpoint=ep.url,
                    latency_s=time.monotonic() - start,
                ), tries
            except ValueError as exc:
                pool.release(ep, failed=False)
                error = f"{ep.url}: malformed event: {redact(str(exc))}"
                latency = time.monotonic() - start
                return Generation(None, error=error, endpoint=ep.url, latency_s=latency, bad=True), tries
            else:
                pool.release(ep, failed=False)
                return self._generation(reply, audio, ep.url, time.monotonic() - start), tries
            tries += 1
            pause = min(self.backoff_max_s, self.backoff_base_s * 2 ** (tries - 1)) * random.uniform(0.5, 1.5)
            await asyncio.sleep(min(pause, max(0.0, deadline - time.monotonic())))
        error = f"timed out after {self.timeout_s:g}s (last: {last_error})"
        return Generation(None, error=error, endpoint=last_url, latency_s=time.monotonic() - start), max(
            0, tries - 1
        )

    @staticmethod
    def _generation(reply: TurnReply, audio: bool, url: str, latency: float) -> Generation:
        text, wav = reply.answer(audio=audio)
        used = reply.usage
        if not audio:  # no text deltas: an empty answer, which the output gate counts as no output
            return Generation(text or "", endpoint=url, latency_s=latency, usage=used)
        if wav is None:
            return Generation(
                None, error=f"{url}: the response holds no audio", endpoint=url, latency_s=latency, usage=used
            )
        payload = json.dumps({"text": text, "audio": base64.b64encode(wav).decode("ascii")})
        return Generation(payload, endpoint=url, latency_s=latency, usage=used)

    async def _turn(self, ep: Endpoint, events: list[ClientEvent]) -> TurnReply:
        assert self._http is not None
        url = self.wire.realtime_url(ep.url, self.served_model)
        headers = {**ep.headers, **self.wire.realtime_headers()}
        connect = self._http.ws_connect(url, headers=headers, max_msg_size=0, autoping=True)
        try:
            ws = await asyncio.wait_for(connect, self.handshake_timeout_s)
        except TimeoutError:
            raise _NoHandshake(f"no WebSocket handshake within {self.handshake_timeout_s:g}s") from None
        async with ws:
            for event in events:
                await ws.send_str(json.dumps(event, ensure_ascii=False))
            reply = TurnReply()
            async for msg in ws:
                if msg.type == aiohttp.WSMsgType.TEXT:
                    reply.feed(loads(msg.data, nesting=None))
                    if reply.done:
                        return reply
                elif msg.type == aiohttp.WSMsgType.ERROR:
                    break
        raise _Dropped("the WebSocket closed before response.done")

    def _stop_when_unreachable(self) -> None:
        assert self._pool is not None
        down = self._pool.unreachable_for()
        if down >= self.unreachable_after_s:
            raise EndpointsUnreachable(
                f"model {self.name}: every endpoint unreachable for {down:.0f}s "
                f"({self._pool.unreachable_reasons()}); what finished is kept, rerun the same command to resume"
            )
