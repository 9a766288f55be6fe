"""A judge `generate(messages, attempt)` callable: response cache first, then a live call.

Only usable answers are cached: non-empty text that the caller's check accepts (`accept`,
given per call or as the judge's default: a parseable verdict, decodable audio). An empty or
unusable answer is returned to the caller, which records it, and asked again on a rerun. A
stored answer the check refuses (left by an older version) is ignored and asked again.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from audioeval.adapters.openai_chat import AudioPartStyle, encode_chat_request, request_identity
from audioeval.audio.clip_cache import ClipCache
from audioeval.core.generation import AnswerCheck, Generation, usable_answer
from audioeval.core.messages import AudioRef, Message
from audioeval.engine.chat_client import ChatClient, ReplyParser, chat_reply_first_token, chat_reply_text
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
        return Generation(hit, cached=True)
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
        sampling: dict[str, Any] | None = None,
        cache: ResponseCache | None = None,
        parse: ReplyParser = chat_reply_text,
        accept: AnswerCheck | None = None,
    ) -> None:
        self.client = client
        self.clips = clips
        self.model = model
        self.style = style
        self.sampling = sampling or {}
        self.cache = cache
        self.parse = parse
        self.accept = accept

    def _clip(self, ref: AudioRef):  # type: ignore[no-untyped-def]
        return self.clips.get(ref)

    async def __call__(
        self,
        messages: list[Message],
        attempt: int,
        accept: AnswerCheck | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> Generation:
        """One answer; `accept` (default: the judge's own) decides whether it may be cached;
        `extra` request fields override the judge's sampling (with `logprobs`, the answer is
        the JSON of the text and the first token's top logprobs)."""
        sampling = {**self.sampling, **extra} if extra else self.sampling
        parse = chat_reply_first_token if extra and extra.get("logprobs") else self.parse
        key = None
        if self.cache is not None:
            ident = request_identity(messages, model=self.model, clips=self._clip, sampling=sampling)
            key = request_key({"request": ident, "attempt": attempt})

        def call() -> Awaitable[Generation]:
            return self.client.complete(
                lambda: encode_chat_request(
                    messages, model=self.model, clips=self._clip, style=self.style, sampling=sampling
                ),
                parse=parse,
            )

        return await through_cache(self.cache, key, call, accept or self.accept)
