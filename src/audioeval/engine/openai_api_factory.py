"""Building the adapter of a model of type `openai`: its API (chat, speech, transcription,
translation, realtime) and its provider's wire form (`api_providers.py`)."""

from __future__ import annotations

from audioeval.adapters.base import GenerationConfig, ModelAdapter
from audioeval.core.redact import secret_from_env
from audioeval.engine.api_providers import KEY_ENVS, provider_wire
from audioeval.engine.model_specs import ModelConfig
from audioeval.engine.openai_model import OpenAIChatModel
from audioeval.store.response_cache import ResponseCache


def build_openai_adapter(
    cfg: ModelConfig, *, config: GenerationConfig, cache: ResponseCache | None = None
) -> ModelAdapter:
    served = cfg.served_model or cfg.name
    wire = provider_wire(cfg.provider, cfg.urls, served, cfg.api_version)
    # The provider's own variable unless the config names another than the default.
    key_env = cfg.api_key_env if cfg.api_key_env != KEY_ENVS["openai"] else KEY_ENVS[wire.provider]
    common = dict(
        api_key=secret_from_env(key_env),
        api_key_env=key_env,
        max_concurrency=cfg.concurrency,
        timeout_s=cfg.timeout_s,
        unreachable_after_s=cfg.unreachable_after_s,
        config=config,
        cache=cache,
        voice=cfg.voice,
    )
    if cfg.api == "realtime":
        from audioeval.engine.realtime_model import RealtimeModel

        return RealtimeModel(cfg.name, wire, served, **common)  # type: ignore[arg-type]
    cls = OpenAIChatModel
    if cfg.api in ("transcription", "translation"):
        from audioeval.engine.transcription_model import OpenAITranscriptionModel

        cls = OpenAITranscriptionModel
    return cls(
        cfg.name,
        wire.urls,
        served,
        audio_part="input_audio" if wire.force_input_audio else cfg.audio_part,
        api=cfg.api,  # type: ignore[arg-type]
        provider=wire.provider,
        key_header=wire.key_header,
        query=wire.query,
        **common,  # type: ignore[arg-type]
    )
