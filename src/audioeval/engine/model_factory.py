"""Building the adapter of each configured model (the engine owns their lifetime)."""

from __future__ import annotations

from pathlib import Path

from audioeval.adapters.base import GenerationConfig, ModelAdapter
from audioeval.adapters.baselines import make_baseline
from audioeval.adapters.generators import CodecModel, EspeakTts
from audioeval.adapters.local_runtime import LocalRuntimeAdapter
from audioeval.adapters.predictions import PredictionsFile, PredictionsLoader
from audioeval.adapters.replay import Replay
from audioeval.core.errors import InputError
from audioeval.core.redact import secret_from_env
from audioeval.engine.model_specs import ModelConfig
from audioeval.engine.openai_model import OpenAIChatModel
from audioeval.store.response_cache import ResponseCache


def build_adapter(
    cfg: ModelConfig, *, config: GenerationConfig, cache: ResponseCache | None = None
) -> ModelAdapter:
    if cfg.type == "openai":
        return OpenAIChatModel(
            cfg.name,
            cfg.urls,
            cfg.served_model or cfg.name,
            api_key=secret_from_env(cfg.api_key_env),
            api_key_env=cfg.api_key_env,
            max_concurrency=cfg.concurrency,
            timeout_s=cfg.timeout_s,
            audio_part=cfg.audio_part,
            config=config,
            cache=cache,
            api=cfg.api,
            voice=cfg.voice,
        )
    if cfg.type == "runtime":
        return LocalRuntimeAdapter(cfg.runtime or cfg.name, workers=cfg.workers, name=cfg.name)
    if cfg.type == "tts":
        return EspeakTts(cfg.name, voice=cfg.voice or "en-us")
    if cfg.type == "codec":
        return CodecModel(
            cfg.name, cfg.codec or cfg.name, max_concurrency=cfg.concurrency if cfg.concurrency != 8 else 2
        )
    if cfg.type == "predictions" and cfg.predictions_format != "mmae":
        return PredictionsFile(
            cfg.name,
            Path(cfg.predictions or "").expanduser(),
            _mcq_answers(cfg.predictions_format, cfg.prediction_key),
            tasks=frozenset({"mcq"}),
            max_concurrency=cfg.concurrency,
            output="text",
        )
    if cfg.type == "predictions":
        return PredictionsFile(
            cfg.name,
            Path(cfg.predictions or "").expanduser(),
            _mmae_outputs,
            audio_root=Path(cfg.audio_root).expanduser() if cfg.audio_root else None,
            max_concurrency=cfg.concurrency,
        )
    if cfg.type == "replay":
        return Replay(cfg.name, Path(cfg.replay or "").expanduser())
    return make_baseline(cfg.baseline or cfg.name, name=cfg.name)


def _mcq_answers(benchmark: str, key: str | None) -> PredictionsLoader:
    """Each id's answer text in an MMAR / MMAU predictions file (the parser of `mcq score`)."""

    def load(path: Path) -> tuple[dict[str, str], list[InputError]]:
        from audioeval.benchmarks.mcq.definitions import get_benchmark
        from audioeval.benchmarks.mcq.loading import load_mcq_file

        file = load_mcq_file(path, get_benchmark(benchmark), prediction_key=key)
        return {item.id: item.prediction for item in file.items if item.prediction is not None}, []

    return load


def _mmae_outputs(path: Path) -> tuple[dict[str, str], list[InputError]]:
    """Each id's edited audio in an MMAE predictions file (the parser of `mmae score`)."""
    from audioeval.benchmarks.mmae.loading import load_predictions

    preds, errors = load_predictions(path)
    return {sid: p.output_audio for sid, p in preds.items()}, errors
