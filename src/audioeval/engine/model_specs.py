"""Models under test, as named on the command line or in a run config.

On the command line: `NAME@URL[+URL…]` (an OpenAI-compatible endpoint serving NAME; `API:NAME@URL`
picks its API: `transcription:`, `translation:`, `realtime:`, `speech:`), `gemini:MODEL` (Gemini's
OpenAI-compatible endpoint; Azure OpenAI is read from its URL: engine/api_providers.py), a
built-in runtime (`whisper-tiny.en`), the embedded TTS `espeak-ng[:VOICE]`, a built-in codec
(`opus:12k`, `codec2:3200`, `mulaw`), a baseline (`constant:TEXT`, `random-choice[:SEED]`,
`first-choice`, `longest-choice`, `echo`, `oracle`), `replay:RUN/BENCHMARK/MODEL`, or
`predictions:FILE` (a predictions file in one of the formats the benchmarks register,
`benchmarks/prediction_formats.py`: edited audio, answer texts, or `{id, text}` items of any
text task).
In a YAML config, the same string or a mapping with every option.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from audioeval.adapters.baselines import BASELINES
from audioeval.adapters.codecs.registry import BUILTIN_CODECS, NEURAL_CODECS
from audioeval.adapters.runtimes.spec import builtin_spec_files
from audioeval.core.bounds import MAX_CONCURRENCY, MAX_GPUS, MAX_SECONDS
from audioeval.core.checks import url_problem
from audioeval.core.errors import InputError
from audioeval.core.names import folder_name, name_problem
from audioeval.core.settings import DEFAULTS
from audioeval.core.suggest import one_of, unknown_name
from audioeval.core.validation import describe_validation
from audioeval.engine.api_providers import GEMINI_BASE_URL
from audioeval.engine.chat_client import UnreachableAfterS


class ModelConfig(BaseModel):
    """One model under test."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(description="label in results and leaderboards")
    type: Literal["openai", "runtime", "baseline", "replay", "tts", "codec", "predictions"]
    urls: list[str] = Field(default_factory=list, description="OpenAI-compatible base URLs (…/v1)")
    served_model: str | None = Field(None, description="the `model` field sent; defaults to name")
    # the defaults of the shared model settings (core/settings.py)
    api_key_env: str = Field(DEFAULTS["api_key_env"], description="environment variable holding the API key")
    concurrency: int = Field(DEFAULTS["concurrency"], ge=1, le=MAX_CONCURRENCY)
    timeout_s: float = Field(DEFAULTS["timeout"], gt=0, le=MAX_SECONDS, allow_inf_nan=False)
    unreachable_after_s: UnreachableAfterS
    audio_part: Literal["audio_url", "input_audio"] = DEFAULTS["model_audio_part"]
    api: Literal["chat", "speech", "transcription", "translation", "realtime"] = Field(
        "chat",
        description="type openai: chat completions (audio output via modalities), /audio/speech (TTS), "
        "/audio/transcriptions (asr), /audio/translations (ast into English) or the Realtime API "
        "over WebSocket (docs/models.md)",
    )
    provider: Literal["openai", "azure", "gemini"] | None = Field(
        None,
        description="type openai: whose API (URL, key header, audio format: engine/api_providers.py); "
        "default: read from the URL's host",
    )
    api_version: str | None = Field(
        None, description="provider azure: the api-version query (default 2024-10-21)"
    )
    runtime: str | None = Field(None, description="runtime name or spec file (type runtime)")
    workers: int = Field(1, ge=1, le=MAX_CONCURRENCY, description="worker processes of a runtime")
    executor: Literal["local", "ray"] = Field(
        "local", description="type runtime: worker processes here, or one per Ray actor (docs/scaling.md)"
    )
    ray_address: str | None = Field(
        None, description="executor ray: `auto` or HOST:PORT of a running cluster (default: start Ray here)"
    )
    ray_actors: int | None = Field(
        None,
        ge=1,
        le=MAX_CONCURRENCY,
        description="executor ray: actors (default one per free CPU, or GPU slot)",
    )
    ray_gpus_per_actor: float = Field(0.0, ge=0, le=MAX_GPUS, allow_inf_nan=False, description="executor ray")
    baseline: str | None = Field(None, description="baseline kind with its argument, e.g. constant:yes")
    replay: str | None = Field(None, description="folder of a stored benchmark × model result")
    predictions: str | None = Field(None, description="predictions file (type predictions)")
    predictions_format: str = Field(
        "auto",
        description="type predictions: a format registered by a benchmark (`audioeval list models` "
        "names them), or auto: the one format the file matches (an error when none or several do)",
    )
    prediction_key: str | None = Field(
        None,
        description="type predictions: the key holding the answer, where the format has several "
        "candidate keys (default: the one the file holds; several are an error)",
    )
    audio_root: str | None = Field(
        None, description="folder relative output paths start from (type predictions; default its folder)"
    )
    codec: str | None = Field(None, description="built-in codec spec, e.g. opus:12k (type codec)")
    voice: str | None = Field(
        None, description="espeak-ng voice (type tts), or the voice an OpenAI-compatible model speaks with"
    )
    prompts: dict[str, str] = Field(default_factory=dict, description="task or benchmark -> template")

    @field_validator("predictions_format")
    @classmethod
    def _predictions_format(cls, v: str) -> str:
        from audioeval.benchmarks.plugins import load_benchmarks
        from audioeval.benchmarks.prediction_formats import format_names

        load_benchmarks()  # the formats the benchmarks contribute
        return one_of("predictions format", v, format_names())

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        problem = name_problem(v)
        if problem is not None:
            raise ValueError(f"model name: {problem}")
        return v

    @field_validator("api_version", mode="before")
    @classmethod
    def _api_version(cls, v: Any) -> Any:
        """YAML reads an unquoted `2024-10-21` as a date: take it back as the version text."""
        return v.isoformat() if hasattr(v, "isoformat") else v

    @field_validator("urls")
    @classmethod
    def _urls(cls, urls: list[str]) -> list[str]:
        for url in urls:
            problem = url_problem(url)
            if problem:
                raise ValueError(problem)
        return urls

    @model_validator(mode="after")
    def _executor(self) -> ModelConfig:
        if self.executor == "ray" and self.type != "runtime":
            raise ValueError(
                f"executor ray runs isolated runtimes only; {self.name!r} is of type {self.type}"
            )
        ray_set = self.ray_address is not None or self.ray_actors is not None or self.ray_gpus_per_actor
        if ray_set and self.executor != "ray":
            raise ValueError("ray_address, ray_actors and ray_gpus_per_actor need executor: ray")
        return self

    @property
    def slug(self) -> str:
        """The model's folder under each benchmark (`core/names.folder_name`)."""
        return folder_name(self.name)


def known_model_names() -> list[str]:
    codecs = [f"{c}:…" if c in ("opus", "codec2") else c for c in BUILTIN_CODECS]
    return sorted(
        {
            *builtin_spec_files(),
            *BASELINES,
            "replay:PATH",
            "predictions:FILE",
            "NAME@URL",
            "API:NAME@URL",
            "NAME=SPEC",
            "gemini:MODEL",
            "espeak-ng",
            *codecs,
        }
    )


API_PREFIXES = ("chat", "speech", "transcription", "translation", "realtime")
"""`API:NAME@URL` picks the API of an OpenAI-compatible model on the command line."""


_SYSTEM_NAME = re.compile(r"^[A-Za-z0-9][\w.+-]*$")
SYSTEM_NAME_RULE = "a system name starts with a letter or digit, then letters, digits, '.', '_', '+' or '-'"


def _system_name(name: str) -> str | None:
    """The system name of `NAME=SPEC` (None when `ref` is no such reference: a path or URL
    holding `=`); InputError stating the rule when it is one and breaks it."""
    if not name or any(c in name for c in ":/@"):
        return None
    problem = name_problem(name) or (None if _SYSTEM_NAME.match(name) else f"{name!r}: {SYSTEM_NAME_RULE}")
    if problem is not None:
        raise InputError(f"system name: {problem}", field="model")
    return name


def model_config(values: dict[str, Any], *, name_field: str = "model") -> ModelConfig:
    """A model from a reference's or a preset's values; a name that breaks the naming rule (or
    any other bad value) is an InputError stating it, naming `name_field` for the name."""
    try:
        return ModelConfig(**values)
    except ValidationError as exc:
        msg, loc = describe_validation(exc.errors(), ModelConfig.model_fields)
        raise InputError(msg, field=name_field if loc == "name" else f"model.{loc}") from None


def _config(**values: Any) -> ModelConfig:
    return model_config(values)


def parse_model_ref(ref: str) -> ModelConfig:
    """A model spec; `NAME=SPEC` gives any spec a system name (`mine=predictions:hyps.jsonl`,
    `qwen=qwen2-audio@URL`): the name its folder, boards and leaderboards show."""
    ref = ref.strip()
    if not ref:
        raise InputError("empty model name", field="model")
    name, eq, spec = ref.partition("=")
    if eq and (system := _system_name(name.strip())) is not None:
        base = parse_model_ref(spec)
        served = base.served_model or (base.name if base.type == "openai" else None)
        return base.model_copy(update={"name": system, "served_model": served})
    if "@" in ref:
        name, _, urls = ref.partition("@")
        api, sep, rest = name.partition(":")
        if sep and api in API_PREFIXES and rest:  # `transcription:whisper@URL`
            return parse_model_ref(f"{rest}@{urls}").model_copy(update={"api": api})
        url_list = [u.strip().rstrip("/") for u in urls.split("+") if u.strip()]
        problem = next((p for p in map(url_problem, url_list) if p), None) if url_list else "no URL"
        if not name or problem:
            why = problem or "no name before @"
            raise InputError(f"expected NAME@http://host:port/v1, got {ref!r} ({why})", field="model")
        return _config(name=name, type="openai", urls=url_list)
    if ref.startswith("gemini:") and ref.removeprefix("gemini:").strip():
        name = ref.removeprefix("gemini:").strip()
        return _config(name=name, type="openai", provider="gemini", urls=[GEMINI_BASE_URL])
    if ref.startswith("replay:"):
        return _config(name=ref, type="replay", replay=ref.removeprefix("replay:"))
    if ref.startswith("predictions:"):
        path = ref.removeprefix("predictions:").strip()
        if not path:
            raise InputError(
                "expected predictions:FILE (a predictions file, e.g. of {id, text} items)", field="model"
            )
        return _config(name=ref, type="predictions", predictions=path)
    if ref.partition(":")[0] in builtin_spec_files():  # `encodec:6k`: a runtime's variant
        return _config(name=ref, type="runtime", runtime=ref)
    if ref.endswith((".yaml", ".yml")):
        return _config(name=ref.rsplit("/", 1)[-1].rsplit(".", 1)[0], type="runtime", runtime=ref)
    kind = ref.split(":", 1)[0]
    if kind == "espeak-ng":
        return _config(name=ref, type="tts", voice=ref.partition(":")[2] or None)
    if kind in BUILTIN_CODECS or kind in NEURAL_CODECS:
        return _config(name=ref, type="codec", codec=ref)
    if kind in BASELINES:
        return _config(name=ref, type="baseline", baseline=ref)
    raise InputError(unknown_name("model", ref, known_model_names()), field="model")


def parse_model_entry(entry: Any, where: str, index: int) -> ModelConfig:
    """A model from a config file: a string (as on the command line) or a mapping."""
    field = f"models[{index}]"
    if isinstance(entry, str):
        try:
            return parse_model_ref(entry)
        except InputError as exc:
            raise InputError(exc.message, file=where, field=field) from None
    if not isinstance(entry, dict):
        raise InputError("expected a model name or a mapping", file=where, field=field)
    data = dict(entry)
    if "type" not in data and "name" in data:
        try:
            base = parse_model_ref(str(data["name"]))
            data = {**base.model_dump(exclude_defaults=True), **data}
        except InputError:
            pass
    try:
        return ModelConfig.model_validate(data)
    except ValidationError as exc:
        msg, loc = describe_validation(exc.errors(), ModelConfig.model_fields)
        raise InputError(msg, file=where, field=f"{field}.{loc}") from None


def with_predictions_settings(
    models: list[ModelConfig], predictions_format: str | None, prediction_key: str | None
) -> list[ModelConfig]:
    """The models with `--predictions-format` / `--prediction-key` applied to the predictions
    models that name none; given without a predictions model, an error."""
    update = {
        k: v for k, v in (("predictions_format", predictions_format), ("prediction_key", prediction_key)) if v
    }
    if not update:
        return models
    if not any(m.type == "predictions" for m in models):
        flags = ", ".join("--" + k.replace("_", "-") for k in update)
        raise InputError(f"{flags}: no predictions:FILE model given", field="model")
    out = []
    for m in models:
        if m.type != "predictions":
            out.append(m)
            continue
        mine = {k: v for k, v in update.items() if k not in m.model_fields_set}
        out.append(ModelConfig.model_validate({**m.model_dump(), **mine}) if mine else m)
    return out


def with_executor(
    models: list[ModelConfig],
    executor: str,
    *,
    address: str | None = None,
    actors: int | None = None,
    gpus_per_actor: float | None = None,
) -> tuple[list[ModelConfig], list[str]]:
    """The models with `--executor` applied to the runtime ones, and the names it does not
    apply to (an OpenAI-compatible model, a baseline: they run as before)."""
    if executor == "local":
        if address is not None or actors is not None or gpus_per_actor is not None:
            raise InputError("--ray-address, --ray-actors and --ray-gpus-per-actor need --executor ray")
        return models, []
    if executor != "ray":
        raise InputError(f"--executor must be local or ray, got {executor!r}", field="executor")
    update = {
        "executor": "ray",
        "ray_address": address,
        "ray_actors": actors,
        "ray_gpus_per_actor": gpus_per_actor or 0.0,
    }
    out = [m.model_validate({**m.model_dump(), **update}) if m.type == "runtime" else m for m in models]
    return out, [m.name for m in models if m.type != "runtime"]
