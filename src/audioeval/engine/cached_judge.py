"""A judge `generate(messages, attempt)` callable: response cache first, then a live call.

Only usable answers are cached: non-empty text that the caller's check accepts (`accept`,
given per call or as the judge's default: a parseable verdict, decodable audio). An empty or
unusable answer is returned to the caller, which records it, and asked again on a rerun. A
stored answer the check refuses (left by an older version) is ignored and asked again.

A cached answer made no request: its usage is a known zero (`core/usage.py`). A live one's
usage gains the seconds of audio its request sent.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import replace

from audioeval.adapters.chat_wire import SamplingFields
from audioeval.adapters.openai_chat import AudioPartStyle, encode_chat_request, request_identity
from audioeval.audio.clip_cache import ClipCache
from audioeval.core.errors import InputError
from audioeval.core.generation import AnswerCheck, Generation, usable_answer
from audioeval.core.messages import AudioRef, Message
from audioeval.core.request_settings import checked_settings, routed_problem
from audioeval.core.usage import Usage
from audioeval.engine.chat_client import ChatClient, ReplyParser, chat_reply_first_token, chat_reply_text
from audioeval.engine.request_slots import NORMAL
from audioeval.store.response_cache import ResponseCache, request_key


async def through_cache(
    cache: ResponseCache | None,
    key: str | None,
    call: Callable[[], Awaitable[Generation]],
    accept: AnswerCheck | None = None,
) -> Generation:
    """A usable cached answer under `key`, else `call()`, whose answer is cached if usable."""
    if cache is None or key is None:
        return await call()
    hit = cache.get(key, lambda text: usable_answer(text, accept))
    if hit is not None:
        return Generation(hit, cached=True, usage=Usage.nothing_asked())
    gen = await call()
    if gen.ok and usable_answer(gen.text, accept):
        cache.put(key, gen.text or "")
    return gen


class CachedJudge:
    def __init__(
        self,
        client: ChatClient,
        clips: ClipCache,
        *,
        model: str,
        style: AudioPartStyle = "audio_url",
        sampling: SamplingFields | None = None,
        cache: ResponseCache | None = None,
        parse: ReplyParser = chat_reply_text,
        accept: AnswerCheck | None = None,
    ) -> None:
        self.client = client
        self.clips = clips
        self.model = model
        self.style = style
        self.sampling: SamplingFields = sampling or {}
        self.cache = cache
        self.parse = parse
        self.accept = accept
        # requests being asked, by cache key: an identical one waits for that answer and reads it
        # from the cache rather than asking again (sent together, both would miss the cache)
        self._in_flight: dict[str, asyncio.Future[None]] = {}

    def _clip(self, ref: AudioRef):  # type: ignore[no-untyped-def]
        return self.clips.get(ref)

    async def __call__(
        self,
        messages: list[Message],
        attempt: int,
        accept: AnswerCheck | None = None,
        extra: SamplingFields | None = None,
        *,
        logprobs: int | None = None,
        priority: int = NORMAL,
    ) -> Generation:
        """One answer; `accept` (default: the judge's own) decides whether it may be cached;
        `extra` request settings override the judge's sampling (each checked against the
        declaration of what a request may carry: `core/request_settings.py`, so `logprobs` or
        `model` never arrive this way). `logprobs=N`, the judge's own typed request, asks for
        the first token's top N logprobs: the answer is then the JSON of the text and those.
        `priority` orders the request among those waiting for a slot (`engine/request_slots.py`)."""
        if extra:
            checked = checked_settings({k: v for k, v in extra.items() if v is not None}, field="judge request")
            routed = routed_problem(checked, "chat", self.model)
            if routed:
                raise InputError(routed, field="judge request")
            sampling: SamplingFields = {**self.sampling, **extra}
        else:
            sampling = self.sampling
        parse = self.parse
        if logprobs is not None:
            sampling = {**sampling, "logprobs": True, "top_logprobs": logprobs}
            parse = chat_reply_first_token
        key = None
        if self.cache is not None:
            ident = request_identity(messages, model=self.model, clips=self._clip, sampling=sampling)
            key = request_key({"request": ident, "attempt": attempt})

        sent: list[float] = []

        def clip(ref: AudioRef):  # type: ignore[no-untyped-def]
            found = self._clip(ref)
            sent.append(found.duration_s)
            return found

        async def call() -> Generation:
            gen = await self.client.complete(
                lambda: encode_chat_request(
                    messages, model=self.model, clips=clip, style=self.style, sampling=sampling
                ),
                parse=parse,
                priority=priority,
            )
            if gen.usage is None:
                return gen
            return replace(gen, usage=gen.usage.with_audio(sent_s=round(sum(sent), 3)))

        check = accept or self.accept
        if key is None:
            return await through_cache(self.cache, key, call, check)
        earlier = self._in_flight.get(key)
        if earlier is not None:  # the same request is being asked: the cache holds its answer then
            await asyncio.shield(earlier)
            return await through_cache(self.cache, key, call, check)
        mine: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._in_flight[key] = mine
        try:
            return await through_cache(self.cache, key, call, check)
        finally:
            mine.set_result(None)
            del self._in_flight[key]
