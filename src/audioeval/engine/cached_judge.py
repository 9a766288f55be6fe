"""A judge `generate(messages, attempt)` callable: response cache first, then a live call."""

from __future__ import annotations

from typing import Any

from audioeval.adapters.openai_chat import AudioPartStyle, encode_chat_request, request_identity
from audioeval.audio.clip_cache import ClipCache
from audioeval.core.generation import Generation
from audioeval.core.messages import AudioRef, Message
from audioeval.engine.chat_client import ChatClient, ReplyParser, chat_reply_text
from audioeval.store.response_cache import ResponseCache, request_key


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
    ) -> None:
        self.client = client
        self.clips = clips
        self.model = model
        self.style = style
        self.sampling = sampling or {}
        self.cache = cache
        self.parse = parse

    def _clip(self, ref: AudioRef):  # type: ignore[no-untyped-def]
        return self.clips.get(ref)

    async def __call__(self, messages: list[Message], attempt: int) -> Generation:
        key = None
        if self.cache is not None:
            ident = request_identity(messages, model=self.model, clips=self._clip, sampling=self.sampling)
            key = request_key({"request": ident, "attempt": attempt})
            hit = self.cache.get(key)
            if hit is not None:
                return Generation(hit, cached=True)
        gen = await self.client.complete(
            lambda: encode_chat_request(
                messages, model=self.model, clips=self._clip, style=self.style, sampling=self.sampling
            ),
            parse=self.parse,
        )
        if gen.ok and key is not None and self.cache is not None:
            self.cache.put(key, gen.text or "")
        return gen
