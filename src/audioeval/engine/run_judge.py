"""The judge of `audioeval run`: settings (`--judge`, `--judge-model`, `--judge-concurrency`,
or `judge:` in a run config) and the `generate(messages, attempt)` callable that judged
scorers receive.

It is the judge client of `audioeval mmae score`: `ChatClient` (concurrency slot, retries
with backoff inside one deadline, endpoint failover) behind `CachedJudge` (the run's
content-keyed response cache), with clips decoded, resampled and encoded once per run
(`ClipCache`), in a thread so the event loop never decodes audio. Endpoints, concurrency
and timeouts may change between runs; what moves a number goes into the pair signature.
"""

from __future__ import annotations

import asyncio
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from audioeval.audio.clip_cache import ClipCache
from audioeval.core.checks import url_problem
from audioeval.core.errors import InputError
from audioeval.core.generation import AnswerCheck, Generation
from audioeval.core.messages import AudioPart, AudioRef, Message
from audioeval.core.redact import secret_from_env
from audioeval.engine.cached_judge import CachedJudge
from audioeval.engine.chat_client import ChatClient
from audioeval.store.response_cache import ResponseCache

DEFAULT_JUDGE_MODEL = "Qwen3Omni-Instruct"


class JudgeSettings(BaseModel):
    """An OpenAI-compatible audio judge."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    urls: list[str] = Field(description="OpenAI-compatible base URLs (…/v1)")
    model: str = Field(DEFAULT_JUDGE_MODEL, description="the served judge model")
    concurrency: int = Field(16, ge=1, description="judge requests in flight, over all endpoints")
    timeout_s: float = Field(
        300.0, gt=0, allow_inf_nan=False, description="seconds per judge request, retries included"
    )
    api_key_env: str = "OPENAI_API_KEY"
    audio_part: Literal["audio_url", "input_audio"] = "audio_url"
    sample_rate: int = Field(16000, ge=0, description="clips resampled to this rate (0: native)")
    temperature: float | None = Field(None, ge=0, allow_inf_nan=False)
    max_tokens: int | None = Field(1024, ge=1)
    seed: int | None = Field(None, description="sampling seed sent with every judge request")

    @field_validator("urls")
    @classmethod
    def _urls(cls, urls: list[str]) -> list[str]:
        return checked_urls(urls)

    def signature(self) -> dict[str, Any]:
        """What moves a judged number (not endpoints, concurrency or timeouts)."""
        signature: dict[str, Any] = {
            "judge_model": self.model,
            "audio_part": self.audio_part,
            "judge_sample_rate": self.sample_rate,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
        }
        if self.seed is not None:  # absent when unset: earlier runs' signatures stay valid
            signature["seed"] = self.seed
        return signature

    def sampling(self) -> dict[str, Any]:
        """What every judge request is sent with (unset values are left out of the body)."""
        sampling: dict[str, Any] = {"temperature": self.temperature, "max_tokens": self.max_tokens}
        if self.seed is not None:
            sampling["seed"] = self.seed
        return sampling


def checked_urls(urls: list[str]) -> list[str]:
    """At least one endpoint, each an http(s) base URL (ValueError otherwise, for pydantic)."""
    if not urls:
        raise ValueError("at least one endpoint URL is needed")
    for url in urls:
        problem = url_problem(url)
        if problem:
            raise ValueError(problem)
    return urls


def split_urls(value: str | list[str]) -> list[str]:
    items = value.split(",") if isinstance(value, str) else value
    urls = [u.strip().rstrip("/") for u in items if u and u.strip()]
    try:
        return checked_urls(urls)
    except ValueError as exc:
        raise InputError(f"expected judge URL(s) http://host:port/v1[,…]: {exc}", field="judge") from None


class RunJudge:
    """The judge `generate(messages, attempt)` callable, and its client's lifetime."""

    def __init__(self, settings: JudgeSettings, cache: ResponseCache | None) -> None:
        self.settings = settings
        self.client = ChatClient(
            settings.urls,
            api_key=secret_from_env(settings.api_key_env),
            timeout_s=settings.timeout_s,
            concurrency=settings.concurrency,
        )
        self.clips = ClipCache(target_rate=settings.sample_rate)
        self.judge = CachedJudge(
            self.client,
            self.clips,
            model=settings.model,
            style=settings.audio_part,
            sampling=settings.sampling(),
            cache=cache,
        )
        self.attempts = 0

    def _encode(self, refs: list[AudioRef]) -> None:
        for ref in refs:
            self.clips.get(ref, field=f"audio {ref.path}")

    async def generate(
        self, messages: list[Message], attempt: int, accept: AnswerCheck | None = None
    ) -> Generation:
        refs = [p.audio for m in messages for p in m.parts if isinstance(p, AudioPart)]
        if any(self.clips.peek(r) is None for r in refs):
            await asyncio.to_thread(self._encode, refs)  # AudioError: the sample cannot be judged
        self.attempts += 1
        return await self.judge(messages, attempt, accept)

    @property
    def calls(self) -> int:
        return self.client.calls

    async def aclose(self) -> None:
        await self.client.aclose()
