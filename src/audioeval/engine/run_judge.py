"""The judge of `audioeval run`: settings (`--judge`, `--judge-model`, `--judge-concurrency`,
or `judge:` in a run config) and the `generate(messages, attempt)` callable that judged
scorers receive.

`ChatClient` (concurrency slot, retries with backoff inside one deadline, endpoint
failover) behind `CachedJudge` (the run's content-keyed response cache), with clips
decoded, resampled and encoded once per run (`ClipCache`), in a thread so the event loop
never decodes audio. Endpoints, concurrency and timeouts may change between runs; what
moves a number goes into the pair signature.

Admission: the judge counts its outstanding attempts (queued for a concurrency slot or in
flight) plus the attempts reserved by samples admitted but not yet asking (`reserve`).
The engine admits a judged sample only while that load is below twice the concurrency,
so the slots never wait for work while live attempts, encoded clips and coroutines stay
proportional to the concurrency rather than to the number of samples.

An unexpected exception inside the judge call (a bug, not an answer) is kept in `crash`:
the engine stops the run with it rather than recording it as the sample's failure.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Literal, TypedDict

from pydantic import BaseModel, ConfigDict, Field, field_validator

from audioeval.adapters.chat_wire import SamplingFields
from audioeval.audio.clip_cache import ClipCache
from audioeval.core.bounds import (
    MAX_CONCURRENCY,
    MAX_SAMPLE_RATE,
    MAX_SECONDS,
    MAX_SEED,
    MAX_TEMPERATURE,
    MAX_TOKENS,
)
from audioeval.core.checks import url_problem
from audioeval.core.errors import AudioevalError, InputError
from audioeval.core.generation import AnswerCheck, Generation
from audioeval.core.messages import AudioPart, AudioRef, Message
from audioeval.core.redact import register_secret, secret_from_env
from audioeval.core.settings import DEFAULTS
from audioeval.core.shorten import shorten
from audioeval.core.usage import Usage
from audioeval.engine.cached_judge import CachedJudge
from audioeval.engine.chat_client import ChatClient, UnreachableAfterS
from audioeval.engine.endpoint_pool import EndpointStats
from audioeval.engine.request_slots import NORMAL, URGENT
from audioeval.store.response_cache import ResponseCache

DEFAULT_JUDGE_MODEL = DEFAULTS["judge_model"]


class JudgeSignature(TypedDict, total=False):
    """The judge block of a pair's signature: what moves a judged number."""

    judge_model: str
    audio_part: str
    judge_sample_rate: int
    temperature: float | None
    max_tokens: int | None
    seed: int


class JudgeSettings(BaseModel):
    """An OpenAI-compatible audio judge."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    urls: list[str] = Field(description="OpenAI-compatible base URLs (…/v1)")
    model: str = Field(DEFAULT_JUDGE_MODEL, description="the served judge model")
    # the defaults of the shared judge settings (core/settings.py)
    concurrency: int = Field(
        DEFAULTS["judge_concurrency"],
        ge=1,
        le=MAX_CONCURRENCY,
        description="judge requests in flight, over all endpoints",
    )
    timeout_s: float = Field(
        DEFAULTS["judge_timeout"],
        gt=0,
        le=MAX_SECONDS,
        allow_inf_nan=False,
        description="seconds per judge request, retries included",
    )
    unreachable_after_s: UnreachableAfterS
    api_key_env: str = DEFAULTS["judge_api_key_env"]
    audio_part: Literal["audio_url", "input_audio"] = DEFAULTS["audio_part"]
    sample_rate: int = Field(
        DEFAULTS["judge_sample_rate"],
        ge=0,
        le=MAX_SAMPLE_RATE,
        description="clips resampled to this rate (0: native)",
    )
    temperature: float | None = Field(None, ge=0, le=MAX_TEMPERATURE, allow_inf_nan=False)
    max_tokens: int | None = Field(DEFAULTS["judge_max_tokens"], ge=1, le=MAX_TOKENS)
    seed: int | None = Field(
        None, ge=0, le=MAX_SEED, description="sampling seed sent with every judge request"
    )
    # What messages call it ("judge"; "LLM" for the text LLM of `rubric decompose`).
    role: str = Field("judge", exclude=True)
    # A key given in code (never written anywhere); otherwise read from `api_key_env`.
    api_key: str | None = Field(None, exclude=True, repr=False)

    @field_validator("urls")
    @classmethod
    def _urls(cls, urls: list[str]) -> list[str]:
        return checked_urls(urls)

    def key(self) -> str | None:
        """The API key (registered as a secret, so it never reaches a file or a log)."""
        register_secret(self.api_key)
        return self.api_key or secret_from_env(self.api_key_env)

    def signature(self) -> JudgeSignature:
        """What moves a judged number (not endpoints, concurrency or timeouts)."""
        signature: JudgeSignature = {
            "judge_model": self.model,
            "audio_part": self.audio_part,
            "judge_sample_rate": self.sample_rate,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
        }
        if self.seed is not None:  # absent when unset: earlier runs' signatures stay valid
            signature["seed"] = self.seed
        return signature

    def sampling(self) -> SamplingFields:
        """What every judge request is sent with (unset values are left out of the body)."""
        sampling: SamplingFields = {"temperature": self.temperature, "max_tokens": self.max_tokens}
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
    """`URL[,URL]` or a list of URLs; anything else (a number, a mapping, a list holding one)
    is an InputError saying what it got."""
    if isinstance(value, list) and all(isinstance(u, str) for u in value):
        items = value
    elif isinstance(value, str):
        items = value.split(",")
    else:
        got = next((u for u in value if not isinstance(u, str)), value) if isinstance(value, list) else value
        raise InputError(
            f"expected judge URL(s) http://host:port/v1[,…] as text or a list of texts, got "
            f"{type(got).__name__} {shorten(got, 60)}",
            field="judge",
        )
    urls = [u.strip().rstrip("/") for u in items if u and u.strip()]
    try:
        return checked_urls(urls)
    except ValueError as exc:
        raise InputError(f"expected judge URL(s) http://host:port/v1[,…]: {exc}", field="judge") from None


@dataclass
class JudgeWork:
    """What the judge did in one run: live calls, clips decoded and encoded, endpoint stats."""

    calls: int = 0
    decodes: int = 0
    encodes: int = 0
    endpoints: list[EndpointStats] = field(default_factory=list)


class RunJudge:
    """The judge `generate(messages, attempt)` callable, and its client's lifetime."""

    def __init__(self, settings: JudgeSettings, cache: ResponseCache | None) -> None:
        self.settings = settings
        self.client = ChatClient(
            settings.urls,
            api_key=settings.key(),
            timeout_s=settings.timeout_s,
            concurrency=settings.concurrency,
            unreachable_after_s=settings.unreachable_after_s,
            role=settings.role,
            priced_as=settings.model,
        )
        self.clips = ClipCache(target_rate=settings.sample_rate, max_bytes=clip_budget(settings.concurrency))
        self.judge = CachedJudge(
            self.client,
            self.clips,
            model=settings.model,
            style=settings.audio_part,
            sampling=settings.sampling(),
            cache=cache,
        )
        self.attempts = 0
        self.load = 0  # attempts outstanding, plus those reserved by admitted samples
        self.waiting = 0  # attempts of samples waiting for their first call's answer (`SampleJudge`)
        self.crash: BaseException | None = None
        self._room = asyncio.Event()

    def _encode(self, refs: list[AudioRef]) -> None:
        for ref in refs:
            self.clips.get(ref, field=f"audio {ref.path}")

    async def prepare(self, refs: list[AudioRef]) -> None:
        """Decode and encode clips before any is sent (AudioError: the sample cannot be judged)."""
        if any(self.clips.peek(r) is None for r in refs):
            await asyncio.to_thread(self._encode, refs)

    async def generate(
        self,
        messages: list[Message],
        attempt: int,
        accept: AnswerCheck | None = None,
        extra: SamplingFields | None = None,
        *,
        logprobs: int | None = None,
        priority: int = NORMAL,
    ) -> Generation:
        await self.prepare([p.audio for m in messages for p in m.parts if isinstance(p, AudioPart)])
        return await self.ask(messages, attempt, accept, extra, logprobs=logprobs, priority=priority)

    async def ask(
        self,
        messages: list[Message],
        attempt: int,
        accept: AnswerCheck | None = None,
        extra: SamplingFields | None = None,
        *,
        logprobs: int | None = None,
        priority: int = NORMAL,
    ) -> Generation:
        """One judge call whose clips are prepared (an unprepared clip is encoded on the loop)."""
        self.attempts += 1
        self.add_load(1)
        try:
            return await self.judge(messages, attempt, accept, extra, logprobs=logprobs, priority=priority)
        except (AudioevalError, asyncio.CancelledError):
            raise
        except Exception as exc:
            self.crash = self.crash or exc
            raise
        finally:
            self.add_load(-1)

    # -- admission -------------------------------------------------------------------------

    @property
    def admission_limit(self) -> int:
        return 2 * max(1, self.settings.concurrency)

    def add_load(self, n: int) -> None:
        self.load += n
        if n < 0:
            self._room.set()

    def add_waiting(self, n: int) -> None:
        self.waiting += n
        if n < 0:
            self._room.set()

    @property
    def pending_limit(self) -> int:
        """Attempts outstanding, reserved by admitted samples, or waiting for their sample's
        first answer, together: twice the admission limit (twice the concurrency of queued work
        beyond the requests in flight, so the slots stay busy while first calls are answered)."""
        return 2 * self.admission_limit

    def has_room(self) -> bool:
        """Below the pending limit in attempts outstanding, reserved and waiting. Counting the
        waiting attempts admits a sample each time others' calls finish, so first calls go out
        steadily; counted apart (admitting on the attempts outstanding alone), whole waves of
        samples came in at once, their other calls came back together, and the slots ran dry
        between waves (judging 0.966 of ideal at concurrency 256 against 0.985)."""
        return self.load + self.waiting < self.pending_limit

    async def room_changed(self) -> None:
        """Until the load drops, or `wake` is called."""
        self._room.clear()
        await self._room.wait()

    def wake(self) -> None:
        self._room.set()

    def for_sample(self, reserved: int) -> SampleJudge:
        """A sample's judge callable: it holds `reserved` attempts of load until its first call."""
        self.add_load(reserved)
        return SampleJudge(self, reserved)

    # -- figures ---------------------------------------------------------------------------

    @property
    def calls(self) -> int:
        return self.client.calls

    def work(self) -> JudgeWork:
        endpoints = [e.stats() for e in self.client.pool.endpoints]
        return JudgeWork(self.client.calls, self.clips.decodes, self.clips.encodes, endpoints)

    async def aclose(self) -> None:
        await self.client.aclose()
        self.clips.clear()  # judging is over: its encoded clips need not outlive it (summaries, exports)


CLIP_BYTES_PER_SLOT = 256 * 1024
"""Encoded clip bytes the judge keeps per concurrency slot: admission keeps about two slots'
worth of attempts live, and a sample's attempts share its clips, so the clips of the live
samples fit (a clip evicted while still needed is encoded again, never sent wrong)."""


def clip_budget(concurrency: int) -> int:
    """Bytes of encoded clips the run's judge keeps: 16–128 MiB, by concurrency."""
    return min(128 * 1024 * 1024, max(16 * 1024 * 1024, concurrency * CLIP_BYTES_PER_SLOT))


class SampleJudge:
    """The judge as one sample sees it. Its first call goes alone and the sample's other calls
    wait until it is answered: a sample's requests share their prefix (system prompt and clips,
    byte for byte), so a server with a prefix cache (vLLM's automatic prefix caching) encodes
    the clips once, for the first, and the rest reuse them; sent together, each would encode
    them again. The sample's reservation counts in the judge's load until its first call, then
    in its waiting attempts, each until it goes (once the first is answered) and counts itself
    as outstanding. `release` hands back what is left at the sample's end (votes an early stop
    did not need)."""

    def __init__(self, judge: RunJudge, reserved: int) -> None:
        self.judge = judge
        self.reserved = reserved
        self.waiting = 0
        self.prepared = False  # the scorer prepared every clip of the sample
        self.usage = Usage.nothing_asked()  # what the sample's judge requests used (its record's)
        self._live = 0  # the sample's judge calls in flight or waiting for the first's answer
        self._settled = asyncio.Event()
        self._settled.set()
        self._first: asyncio.Event | None = None  # set once the sample's first call is answered

    def release(self) -> None:
        if self.reserved:
            self.judge.add_load(-self.reserved)
            self.reserved = 0
        if self.waiting:
            self.judge.add_waiting(-self.waiting)
            self.waiting = 0

    async def prepare(self, refs: list[AudioRef]) -> None:
        await self.judge.prepare(refs)
        self.prepared = True

    async def __call__(
        self,
        messages: list[Message],
        attempt: int,
        accept: AnswerCheck | None = None,
        extra: SamplingFields | None = None,
        *,
        logprobs: int | None = None,
    ) -> Generation:
        self._live += 1
        self._settled.clear()
        try:
            if self._first is None:  # the sample's first call: it counts itself, the rest wait
                self._first = asyncio.Event()
                waiting = max(0, self.reserved - 1)
                self.release()
                self.waiting = waiting
                self.judge.add_waiting(waiting)
                try:  # ahead of the other samples' calls: theirs are ready once it is answered
                    gen = await self._call(messages, attempt, accept, extra, logprobs, URGENT)
                finally:
                    self._first.set()  # the waiting calls go now
            else:
                await self._first.wait()
                if self.waiting:  # from waiting to outstanding, with no moment counted in neither
                    self.waiting -= 1
                    self.judge.add_waiting(-1)
                gen = await self._call(messages, attempt, accept, extra, logprobs)
        finally:
            self._live -= 1
            if not self._live:
                self._settled.set()
        self.usage = self.usage + (gen.usage if gen.usage is not None else Usage.unknown())
        return gen

    async def _call(
        self,
        messages: list[Message],
        attempt: int,
        accept: AnswerCheck | None,
        extra: SamplingFields | None,
        logprobs: int | None,
        priority: int = NORMAL,
    ) -> Generation:
        if self.prepared:
            return await self.judge.ask(messages, attempt, accept, extra, logprobs=logprobs, priority=priority)
        return await self.judge.generate(messages, attempt, accept, extra, logprobs=logprobs, priority=priority)

    async def settled(self) -> None:
        """Until none of the sample's judge calls is in flight or waiting (a call refused by the
        run's budget ends the sample's judging while its others finish: their usage is its record's)."""
        await self._settled.wait()
