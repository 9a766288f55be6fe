"""The one interface every model under test implements: `generate(request) -> ModelOutput`.

Adapters translate; they do not retry, cache or schedule (the engine does). An adapter that
fails returns a `ModelOutput` with `error` set rather than raising, except for set-up
problems (a missing runtime, a bad configuration), which raise `AudioevalError`s at `start`.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, TypedDict, cast, runtime_checkable

from audioeval.adapters.chat_wire import SamplingFields
from audioeval.core.errors import InputError
from audioeval.core.messages import Message
from audioeval.core.model_output import ModelOutput
from audioeval.core.request_settings import checked_settings
from audioeval.core.sample import Sample


class RequestSettings(SamplingFields, total=False):
    """The settings a model request may carry (`core/request_settings.SETTINGS`): the chat
    ones, and the fields of the transcription APIs routed to them."""

    prompt: str
    response_format: str


class GenerationRecord(RequestSettings, total=False):
    """Every generation setting, as a signature records it."""

    system_prompt: str


class ModelSignature(TypedDict, total=False):
    """The model block of a pair's signature: every choice of the model under test that moves
    a number (never its endpoints or keys). Each adapter fills the keys that describe it."""

    model: str  # the model's name in the run
    type: str  # openai, baseline, codec, replay, predictions, generator
    adapter: str  # local_runtime
    api: str
    provider: str
    served_model: str
    audio_part: str
    sample_rate: int
    voice: str
    baseline: str
    text: str  # the constant baseline's answer
    codec: str
    bitrate_bps: float | None
    folder: str
    outputs_sha256: str
    runtime: str
    requirements: list[str]
    requirements_hash: str
    worker: str
    worker_sha256: str
    worker_args: dict[str, str | int | float | bool | None]
    tasks: list[str]
    output: str
    isolated: bool
    seed: int  # a baseline's argument
    engine: str  # the espeak-ng version
    speed: int
    file: str  # a predictions file, its clips and how it was read
    audio_root: str | None
    predictions_sha256: str
    format: str
    format_chosen: str
    prediction_key: str | None
    matching: str
    note: str
    rows_matched: dict[str, int]


@dataclass(frozen=True, slots=True)
class GenerationConfig:
    """Sampling settings; every field that is set goes into the run signature. Each one is
    checked against the declaration of what a model request may carry
    (`core/request_settings.py`) however the config is built: a refused or mistyped setting is
    an InputError naming it."""

    temperature: float | None = None
    max_tokens: int | None = None
    seed: int | None = None
    extra: RequestSettings = field(default_factory=lambda: RequestSettings())
    top_p: float | None = None
    system_prompt: str | None = None  # a system message sent first (not a request field)

    def __post_init__(self) -> None:
        named = {"temperature": self.temperature, "max_tokens": self.max_tokens, "seed": self.seed}
        more = {"top_p": self.top_p, "system_prompt": self.system_prompt}
        clash = sorted(set(self.extra) & {*named, *more})
        if clash:
            raise InputError(f"{clash[0]} is given twice (a named setting and in extra)", field="generation")
        checked_settings({**named, **more, **self.extra}, field="generation")

    def to_record(self) -> GenerationRecord:
        """Every setting, for signatures (top_p and the system prompt only when set)."""
        rec = {"temperature": self.temperature, "max_tokens": self.max_tokens, "seed": self.seed}
        more = {"top_p": self.top_p, "system_prompt": self.system_prompt}
        return cast(GenerationRecord, {**rec, **{k: v for k, v in more.items() if v is not None}, **self.extra})

    def sampling(self) -> RequestSettings:
        """The request fields that are set, sent with every request."""
        rec = {"temperature": self.temperature, "max_tokens": self.max_tokens, "seed": self.seed}
        rec["top_p"] = self.top_p
        return cast(RequestSettings, {k: v for k, v in {**rec, **self.extra}.items() if v is not None})


@dataclass(frozen=True, slots=True)
class ModelRequest:
    """One sample, rendered: the messages, the task name, and where audio output goes.

    `audio_out` is the path an adapter writes generated audio to (WAV); adapters that only
    produce text ignore it.
    """

    sample: Sample
    messages: tuple[Message, ...]
    task: str
    config: GenerationConfig = GenerationConfig()
    audio_out: str | None = None
    variables: Mapping[str, Any] = field(default_factory=dict)
    """The benchmark's `language` and prompt variables (`target_language`, …), for adapters of
    APIs that take them as request fields (`/audio/transcriptions`); a sample's own field wins."""


@runtime_checkable
class ModelAdapter(Protocol):
    """A model under test. `name` labels results; `signature()` goes into run signatures.

    `tasks`, `api`, `reads_input_audio` and `input_errors` are its optional hooks, each with its
    default on `AdapterHooks`, which every adapter derives from; the engine reads them as plain
    attributes. `tasks`: the task names it serves (None: all); the engine does not pair it with
    benchmarks of other tasks. `reads_input_audio` (default True): False for a model whose
    answers are stored (a predictions file, a replay), whose samples are then asked without
    their input clips being checked, so a benchmark whose clips are absent is scored from the
    stored answers. Every output passes the engine's output gate (`engine/output_gate.py`),
    which counts an empty or blank text as no output, unless the adapter declares it its answer
    with `blank_is_an_answer = True` (the `constant` baseline, the system that says nothing; a
    predictions file, whose empty answer is the system's, as official scorers read it).
    """

    name: str
    max_concurrency: int
    tasks: Collection[str] | None
    api: str | None
    reads_input_audio: bool
    blank_is_an_answer: bool

    def signature(self) -> ModelSignature: ...

    async def start(self) -> None: ...

    async def generate(self, request: ModelRequest) -> ModelOutput: ...

    async def aclose(self) -> None: ...

    def input_errors(self, asked: Collection[str], known: Collection[str]) -> list[InputError] | None: ...


class AdapterHooks:
    """The optional hooks of a `ModelAdapter`, declared once with their defaults. Every adapter
    derives from this class and overrides the hooks it has."""

    tasks: Collection[str] | None = None
    """The task names it serves; None: every task. The engine pairs it with no benchmark of
    another task (and says what it serves when no pair is left)."""

    api: str | None = None
    """The API whose request fields it reads (`chat`, `speech`, `transcription`, …); None: it
    reads none. A routed setting (`core/request_settings.py`) is refused for a model whose `api`
    does not read it."""

    reads_input_audio: bool = True
    """False for a model whose answers are stored (a predictions file, a replay): its samples
    are asked without their input clips being checked, so a benchmark whose clips are absent
    is scored from the stored answers."""

    blank_is_an_answer: bool = False
    """True for a model whose empty text is its answer (the `constant` baseline, a predictions
    file): the output gate (`engine/output_gate.py`) then scores it rather than counting it as
    no output."""

    def input_errors(self, asked: Collection[str], known: Collection[str]) -> list[InputError] | None:
        """The items of the model's own input (a predictions file) that answer no sample: `asked`
        are the ids of the samples run, `known` those the benchmark knows (skipped ones too).
        None: the model reads no input of its own (nothing is written for it)."""
        return None
