"""A model under test behind OpenAI-compatible endpoints (vLLM, OpenAI, others).

The same client as the judge: several endpoints with least-outstanding balancing and
failover, retries with backoff inside each call's deadline, and the content-keyed response
cache, so a rerun never asks the same question twice.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from audioeval.adapters.base import GenerationConfig, ModelRequest
from audioeval.adapters.openai_chat import AudioPartStyle
from audioeval.audio.clip_cache import ClipCache
from audioeval.core.errors import AudioevalError
from audioeval.core.model_output import ModelOutput
from audioeval.engine.cached_judge import CachedJudge
from audioeval.engine.chat_client import ChatClient
from audioeval.store.response_cache import ResponseCache


@dataclass
class OpenAIChatModel:
    name: str
    urls: list[str]
    served_model: str
    api_key: str | None = None
    max_concurrency: int = 8
    timeout_s: float = 300.0
    audio_part: AudioPartStyle = "audio_url"
    sample_rate: int = 16000
    config: GenerationConfig = field(default_factory=GenerationConfig)
    cache: ResponseCache | None = None
    _client: ChatClient | None = None
    _call: CachedJudge | None = None

    def signature(self) -> dict[str, Any]:
        # Endpoints and keys do not move numbers; the served model and the audio policy do.
        return {
            "model": self.name,
            "type": "openai",
            "served_model": self.served_model,
            "audio_part": self.audio_part,
            "sample_rate": self.sample_rate,
        }

    async def start(self) -> None:
        self._client = ChatClient(
            self.urls, api_key=self.api_key, timeout_s=self.timeout_s, concurrency=self.max_concurrency
        )
        sampling = {k: v for k, v in self.config.to_record().items() if v is not None}
        self._call = CachedJudge(
            self._client,
            ClipCache(target_rate=self.sample_rate),
            model=self.served_model,
            style=self.audio_part,
            sampling=sampling,
            cache=self.cache,
        )

    async def generate(self, request: ModelRequest) -> ModelOutput:
        assert self._call is not None, "start() first"
        try:
            gen = await self._call(list(request.messages), 0)
        except AudioevalError as exc:
            return ModelOutput(error=str(exc))
        return ModelOutput(
            text=gen.text, error=gen.error, endpoint=gen.endpoint, latency_s=gen.latency_s, cached=gen.cached
        )

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()

    @property
    def calls(self) -> int:
        return self._client.calls if self._client else 0
