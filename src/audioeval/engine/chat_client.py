"""Sending chat requests to OpenAI-compatible endpoints: concurrency, retries, timeouts.

One attempt has one deadline (`timeout_s`). Inside it, transport errors, timeouts of a single
request, 429 and 5xx answers are retried with exponential backoff and jitter, on whichever
endpoint the pool offers. Other 4xx answers and malformed bodies end the attempt with a
recorded error. The API key is sent as a bearer token (or an endpoint's own URL credentials as basic auth:
`endpoint_auth.py`) and never written anywhere: error texts
built from remote bodies pass through `core.redact` (a server may echo the key).

Each request's generation carries its `Usage` (`core/usage.py`): one call, its retries, its
wall time, and the tokens of the answer's `usage` (read by `usage`: `adapters/api_usage.py`).
A final HTTP error answer used no tokens (0); a request that timed out may have, unknown. A
request starts only while the run's budget allows (`--max-calls`, `--max-cost`:
`engine/run_budget.py`); past it, `BudgetReached` stops the run.
"""

from __future__ import annotations

import asyncio
import functools
import json
import random
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Annotated

import aiohttp
from pydantic import Field

from audioeval.adapters.api_usage import chat_usage
from audioeval.adapters.chat_wire import ChatRequest, SpeechRequest
from audioeval.adapters.openai_chat import reply_first_token, reply_text
from audioeval.core.bounds import MAX_SECONDS
from audioeval.core.errors import EndpointsUnreachable
from audioeval.core.generation import Generation
from audioeval.core.redact import excerpt, redact
from audioeval.core.usage import Usage
from audioeval.engine.endpoint_auth import request_url
from audioeval.engine.endpoint_pool import EndpointPool
from audioeval.engine.request_slots import NORMAL, RequestSlots
from audioeval.engine.run_budget import current_budget
from audioeval.store.bounded_json import loads

RETRYABLE_STATUS = {408, 409, 425, 429, 500, 502, 503, 504}
CONNECTION_ERRORS = (aiohttp.ClientConnectorError, aiohttp.ServerDisconnectedError, aiohttp.ClientOSError)
"""Failures with no answer from the server: refused, reset, unresolvable, closed mid-request."""
UNREACHABLE_AFTER_S = 30.0
"""How long every endpoint may fail by connection before the run stops (`EndpointsUnreachable`)."""
UnreachableAfterS = Annotated[
    float,
    Field(
        UNREACHABLE_AFTER_S,
        gt=0,
        le=MAX_SECONDS,
        allow_inf_nan=False,
        exclude=True,
        description="stop the run when every endpoint has failed by connection this long (a rerun resumes)",
    ),
]
"""The setting of a model's and of the judge's configuration (`ModelConfig`, `JudgeSettings`)."""
WEB_PAGE_TYPES = ("text/html", "application/xhtml+xml")
"""Content types of a 2xx answer that is a web page (a proxy's or a login's error page), never
an API's answer: a bad output, whatever the page says (the output gate, `engine/output_gate.py`)."""
RequestBody = ChatRequest | SpeechRequest | bytes
"""A request's body: a chat or speech request, or a body already encoded."""


class Reply:
    """A 2xx answer's body: its bytes, and the JSON they hold, parsed once when first read
    (the answer's text and its `usage` are both read from it)."""

    def __init__(self, raw: bytes) -> None:
        self.raw = raw

    @functools.cached_property
    def json(self) -> object:
        """The body as JSON; ValueError (or UnicodeDecodeError) when it is none."""
        return loads(self.raw, nesting=None)


ReplyParser = Callable[[Reply], str]
"""Turns a 2xx answer into the text a `Generation` carries; ValueError when malformed."""
UsageReader = Callable[[object], Usage]
"""Reads the tokens of a JSON answer's `usage` (`adapters/api_usage.py`)."""


def chat_reply_text(reply: Reply) -> str:
    return reply_text(reply.json)


def chat_reply_first_token(reply: Reply) -> str:
    """The reply to a request with `logprobs`: its text and first token's top logprobs, as a
    JSON text (what a `Generation` carries and the response cache stores)."""
    return json.dumps(reply_first_token(reply.json), ensure_ascii=False)


def _answer_usage(
    status: int, reply: Reply, content_type: str, read: UsageReader, tries: int, wall_s: float
) -> Usage:
    """The usage of a request answered (after `tries` further tries): the tokens of a JSON
    answer's `usage`; none for an error answer (0), unknown for a body that is not JSON."""
    if status >= 400:
        tokens = Usage.nothing_asked()
    elif "json" in content_type.lower():
        try:
            tokens = read(reply.json)
        except (ValueError, UnicodeDecodeError):
            tokens = Usage.unknown()
    else:
        tokens = Usage.unknown()
    # audio seconds: none until the caller says what it sent and decoded (`cached_judge.py`, `openai_model.py`)
    sent = tokens.audio_sent_s if tokens.audio_sent_s is not None else 0.0  # a transcription API's billed seconds
    return replace(tokens, calls=1, retries=tries, wall_s=wall_s, audio_sent_s=sent, audio_received_s=0.0)


class ChatClient:
    def __init__(
        self,
        base_urls: list[str],
        *,
        api_key: str | None = None,
        timeout_s: float = 300.0,
        concurrency: int = 16,
        backoff_base_s: float = 0.25,
        backoff_max_s: float = 8.0,
        cooldown_s: float = 2.0,
        unreachable_after_s: float = UNREACHABLE_AFTER_S,
        role: str = "endpoint",
        key_header: str = "Authorization",
        query: str = "",
        priced_as: str | None = None,
    ) -> None:
        self.pool = EndpointPool(base_urls, cooldown_s=cooldown_s, api_key=api_key, key_header=key_header)
        self.query = query  # appended to every request path (Azure OpenAI's `?api-version=…`)
        self.unreachable_after_s = unreachable_after_s
        self.role = role
        self.priced_as = priced_as  # the model name a price file prices its requests by
        self.timeout_s = timeout_s
        self.backoff_base_s = backoff_base_s
        self.backoff_max_s = backoff_max_s
        self._slots = RequestSlots(concurrency)
        self._headers = {"Content-Type": "application/json"}  # + each endpoint's Authorization
        self._concurrency = concurrency
        self._http: aiohttp.ClientSession | None = None
        self._rng = random.Random()
        self.calls = 0
        self.retries = 0

    def _session(self) -> aiohttp.ClientSession:
        # aiohttp's pool stays O(1) per request at hundreds of connections (httpx's does not).
        if self._http is None:
            connector = aiohttp.TCPConnector(limit=self._concurrency, limit_per_host=0, ttl_dns_cache=300)
            self._http = aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=None))
        return self._http

    async def aclose(self) -> None:
        if self._http is not None:
            await self._http.close()

    async def __aenter__(self) -> ChatClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    def _backoff(self, tries: int) -> float:
        return min(self.backoff_max_s, self.backoff_base_s * 2**tries) * self._rng.uniform(0.5, 1.5)

    async def complete(
        self,
        body: RequestBody | Callable[[], RequestBody],
        *,
        path: str = "/chat/completions",
        parse: ReplyParser = chat_reply_text,
        content_type: str = "application/json",
        usage: UsageReader = chat_usage,
        priority: int = NORMAL,
    ) -> Generation:
        """Send one request (by default a chat completion): a JSON body as a dict, or already
        encoded as UTF-8 JSON bytes. A callable body is built only once a concurrency slot is
        free, so thousands of queued attempts never hold their encoded audio at once. `parse`
        turns the answer into the generation's text. Bytes of another `content_type` (a
        multipart form: `adapters/openai_transcription.py`) are sent as they are. `usage` reads
        the tokens of a JSON answer's `usage` (a chat completion's by default). An URGENT
        `priority` waits for a slot ahead of every other request (`engine/request_slots.py`)."""
        budget = current_budget()
        async with self._slots.slot(priority):
            if budget is not None:
                budget.admit(self.role)  # BudgetReached: no new request past --max-calls / --max-cost
            built = body() if callable(body) else body
            if isinstance(built, bytes):
                payload = built
            else:
                payload = json.dumps(built, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
            del built
            self.calls += 1
            gen = await self._send(payload, path, parse, content_type, usage)
            if budget is not None:
                budget.spent(self.priced_as, gen.usage, self.role)
            return gen

    async def _send(
        self,
        payload: bytes,
        path: str,
        parse: ReplyParser,
        content_type: str = "application/json",
        usage: UsageReader = chat_usage,
    ) -> Generation:
        start = time.monotonic()
        deadline = start + self.timeout_s
        tries = 0
        last_error = "no request sent"
        last_url: str | None = None  # the endpoint of the last try, named in a timeout's record
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                latency = time.monotonic() - start
                return Generation(
                    None,
                    error=f"timed out after {self.timeout_s:g}s (last: {last_error})",
                    endpoint=last_url,
                    latency_s=latency,
                    usage=Usage(calls=1, retries=max(0, tries - 1), wall_s=latency),
                )
            ep = self.pool.acquire()
            last_url = ep.url
            try:
                async with self._session().post(
                    request_url(ep.url, path, self.query),
                    data=payload,
                    headers={**self._headers, "Content-Type": content_type, **ep.headers},
                    timeout=aiohttp.ClientTimeout(total=remaining),
                ) as resp:
                    status, raw, kind = resp.status, await resp.read(), resp.content_type
            except TimeoutError:
                self.pool.release(ep, failed=True)
                last_error = f"{ep.url}: request timed out"
            except CONNECTION_ERRORS as exc:
                reason = f"{type(exc).__name__}: {redact(str(exc))}"
                self.pool.release(ep, failed=True, unreachable=True, error=reason)
                last_error = f"{ep.url}: {reason}"
                self._stop_when_unreachable()
            except aiohttp.ClientError as exc:
                self.pool.release(ep, failed=True)
                last_error = f"{ep.url}: {type(exc).__name__}: {redact(str(exc))}"
            else:
                if status in RETRYABLE_STATUS:
                    self.pool.release(ep, failed=status >= 500)
                    last_error = f"{ep.url}: HTTP {status}: {excerpt(raw, 200)}"
                else:
                    self.pool.release(ep, failed=False)
                    latency = time.monotonic() - start
                    reply = Reply(raw)
                    gen = self._reply(status, reply, ep.url, latency, parse, kind)
                    return replace(gen, usage=_answer_usage(status, reply, kind, usage, tries, latency))
            tries += 1
            self.retries += 1
            pause = min(self._backoff(tries - 1), max(0.0, deadline - time.monotonic()))
            await asyncio.sleep(pause)

    def _stop_when_unreachable(self) -> None:
        down = self.pool.unreachable_for()
        if down >= self.unreachable_after_s:
            raise EndpointsUnreachable(
                f"{self.role}: every endpoint unreachable for {down:.0f}s "
                f"({self.pool.unreachable_reasons()}); what finished is kept, rerun the same "
                "command to resume"
            )

    @staticmethod
    def _reply(
        status: int, reply: Reply, url: str, latency: float, parse: ReplyParser, content_type: str = ""
    ) -> Generation:
        """The generation of a final answer: an HTTP error (a failed call), a 2xx answer that is
        a web page or does not parse (a bad output: `Generation.bad`), or the parsed text."""
        if status >= 400:
            return Generation(
                None,
                error=f"{url}: HTTP {status}: {excerpt(reply.raw, 300)}",
                endpoint=url,
                latency_s=latency,
            )
        if content_type.lower() in WEB_PAGE_TYPES:
            error = f"{url}: bad output: HTTP {status} answered with a web page ({content_type}): {excerpt(reply.raw, 200)}"
            return Generation(None, error=error, endpoint=url, latency_s=latency, bad=True)
        try:
            text = parse(reply)
        except (ValueError, UnicodeDecodeError) as exc:
            error = f"{url}: malformed response: {redact(str(exc))}"
            return Generation(None, error=error, endpoint=url, latency_s=latency, bad=True)
        return Generation(text, endpoint=url, latency_s=latency)
