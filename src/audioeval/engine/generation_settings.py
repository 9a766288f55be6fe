"""Generation settings of a run: `--gen-kwargs`, `--system-prompt` and the sampling flags over
a run config's `generation:`, each task family's default and a spec's own `generation:`, and
the endpoint flags (`--timeout`, `--concurrency`, `--api-key-env`) applied to the models.

Precedence, per benchmark × model pair (later wins): the task's default
(`benchmarks/tasks.py`: greedy, temperature 0, for tasks with one right reply), the spec's
`generation:`, the user's settings. The result is sent with every request and written into
the pair's signature, so a changed setting never reuses records made under another.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from audioeval.adapters.base import GenerationConfig, ModelAdapter
from audioeval.benchmarks.tasks import default_generation
from audioeval.core.errors import InputError
from audioeval.core.json_value import JsonValue
from audioeval.core.request_settings import checked_settings, routed_problem
from audioeval.engine.model_specs import ModelConfig
from audioeval.store.bounded_json import loads

NAMED = ("temperature", "max_tokens", "seed", "top_p", "system_prompt")


def _value(text: str) -> JsonValue:
    """A `--gen-kwargs` value: its JSON value where it reads as one (`0.5`, `false`, `null`,
    `{"enable_thinking":false}`), else the text itself; the declaration then types it."""
    try:
        return loads(text)
    except ValueError:
        return text


def parse_gen_kwargs(text: str | None) -> dict[str, JsonValue]:
    """`temperature=0,max_tokens=512,top_p=1,seed=0` as a dict (lm-eval's spelling)."""
    out: dict[str, JsonValue] = {}
    for item in (text or "").split(","):
        if not item.strip():
            continue
        key, eq, value = item.partition("=")
        key = key.strip()
        if not eq or not key:
            raise InputError(f"{item.strip()!r} is not KEY=VALUE", field="--gen-kwargs")
        out[key] = _value(value.strip())
    return out


def to_config(
    values: Mapping[str, JsonValue], *, field: str = "--gen-kwargs", file: str | None = None
) -> GenerationConfig:
    """A GenerationConfig from a flat mapping, every setting checked against the one declaration
    of what a model request may carry (`core/request_settings.py`): InputError naming `field`."""
    checked = checked_settings(values, field=field, file=file)
    named = {k: checked.get(k) for k in NAMED}
    extra = {k: v for k, v in checked.items() if k not in NAMED}
    return GenerationConfig(**named, extra=extra)


def generation_of(
    section: Mapping[str, JsonValue],
    gen_kwargs: str | Mapping[str, JsonValue] | None,
    *,
    temperature: float | None = None,
    max_tokens: int | None = None,
    system_prompt: str | None = None,
) -> GenerationConfig:
    """The user's settings: the run config's `generation:`, then `--gen-kwargs` (the CLI's
    `KEY=VALUE,…` text, or a mapping whose values keep their JSON types), then the flags."""
    values = {k: v for k, v in section.items() if v is not None}
    values.update(
        parse_gen_kwargs(gen_kwargs) if gen_kwargs is None or isinstance(gen_kwargs, str) else gen_kwargs
    )
    flags = {"temperature": temperature, "max_tokens": max_tokens, "system_prompt": system_prompt}
    values.update({k: v for k, v in flags.items() if v is not None})
    return to_config(values)


def _set(config: GenerationConfig) -> dict[str, JsonValue]:
    rec = config.to_record()
    return {k: v for k, v in rec.items() if v is not None}


def pair_generation(
    task: str, spec_generation: Mapping[str, JsonValue] | None, user: GenerationConfig
) -> GenerationConfig:
    """The settings one benchmark's requests carry: task default < spec < user (the spec's
    were checked when it was read, the user's when they were given)."""
    values = {**default_generation(task), **(spec_generation or {}), **_set(user)}
    return to_config(values, field="generation")


def check_routed_settings(
    pairs: Iterable[tuple[str, str, ModelAdapter, Mapping[str, JsonValue] | None]], user: GenerationConfig
) -> None:
    """Refuse, before anything is asked, a routed setting (`response_format`, `prompt`: fields of
    `/audio/transcriptions`) given to a pair whose model does not read it. `pairs` are
    (benchmark, task, adapter, spec generation) for each benchmark × model pair that runs."""
    for bench, task, adapter, spec_generation in pairs:
        config = pair_generation(task, spec_generation, user)
        problem = routed_problem(config.extra, adapter.api, adapter.name)
        if problem:
            raise InputError(f"benchmark {bench}: {problem}", field="generation")


def with_endpoint_settings(
    models: list[ModelConfig],
    *,
    timeout_s: float | None = None,
    concurrency: int | None = None,
    api_key_env: str | None = None,
) -> list[ModelConfig]:
    """The models with `--timeout`, `--concurrency` and `--api-key-env` applied (flags win over
    each model's own settings); models that call no endpoint keep theirs, unused."""
    update = {"timeout_s": timeout_s, "concurrency": concurrency, "api_key_env": api_key_env}
    update = {k: v for k, v in update.items() if v is not None}
    if not update:
        return models
    return [m.model_validate({**m.model_dump(), **update}) for m in models]
