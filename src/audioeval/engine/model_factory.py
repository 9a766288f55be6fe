"""Building the adapter of each configured model (the engine owns their lifetime)."""

from __future__ import annotations

from pathlib import Path

from audioeval.adapters.base import GenerationConfig, ModelAdapter
from audioeval.adapters.baselines import make_baseline
from audioeval.adapters.generators import CodecModel, EspeakTts
from audioeval.adapters.local_runtime import LocalRuntimeAdapter
from audioeval.adapters.predictions import PredictionsFile, PredictionsReading
from audioeval.adapters.replay import Replay
from audioeval.benchmarks.plugins import load_benchmarks
from audioeval.benchmarks.prediction_formats import format_of
from audioeval.core.errors import InputError
from audioeval.engine.model_specs import ModelConfig
from audioeval.engine.openai_api_factory import build_openai_adapter
from audioeval.store.response_cache import ResponseCache


def build_adapter(
    cfg: ModelConfig, *, config: GenerationConfig, cache: ResponseCache | None = None
) -> ModelAdapter:
    if cfg.type == "openai":
        return build_openai_adapter(cfg, config=config, cache=cache)
    if cfg.type == "runtime" and cfg.executor == "ray":
        from audioeval.adapters.ray_runtime import RayRuntimeAdapter, RaySettings

        settings = RaySettings(cfg.ray_address, cfg.ray_actors, cfg.ray_gpus_per_actor)
        return RayRuntimeAdapter(cfg.runtime or cfg.name, settings=settings, name=cfg.name)
    if cfg.type == "runtime":
        return LocalRuntimeAdapter(cfg.runtime or cfg.name, workers=cfg.workers, name=cfg.name)
    if cfg.type == "tts":
        return EspeakTts(cfg.name, voice=cfg.voice or "en-us")
    if cfg.type == "codec":
        return CodecModel(
            cfg.name, cfg.codec or cfg.name, max_concurrency=cfg.concurrency if cfg.concurrency != 8 else 2
        )
    if cfg.type == "predictions":
        return build_predictions(cfg)
    if cfg.type == "replay":
        return Replay(cfg.name, Path(cfg.replay or "").expanduser())
    return make_baseline(cfg.baseline or cfg.name, name=cfg.name)


def build_predictions(cfg: ModelConfig) -> PredictionsFile:
    """A predictions file as a model, read now: a missing, unreadable or empty file, a format
    that is not found or not the only one the file matches, or an ambiguous answer key is an
    InputError naming the file before anything runs."""
    try:
        path = Path(cfg.predictions or "").expanduser()
        _refuse_empty(path)
        load_benchmarks()  # the formats the benchmarks contribute
        chosen = format_of(cfg.predictions_format, path)
        adapter = PredictionsFile(
            cfg.name,
            path,
            chosen.format.reader(cfg.prediction_key),
            audio_root=Path(cfg.audio_root).expanduser() if cfg.audio_root else None,
            tasks=chosen.format.tasks,
            max_concurrency=cfg.concurrency,
            output=chosen.format.output,
            reading=PredictionsReading(chosen.name, chosen.how, chosen.format.matching),
            sample_keys=chosen.format.sample_keys,
        )
        adapter.load()
    except InputError as exc:
        where = exc.file or str(cfg.predictions)
        raise InputError(f"model {cfg.name}: {exc.message}", file=where, line=exc.line,
                         sample_id=exc.sample_id, field=exc.field) from None
    return adapter


def _refuse_empty(path: Path) -> None:
    """An empty predictions file is named as such (not read as a format that serves no task)."""
    try:
        small = path.is_file() and path.stat().st_size < 4096
        if small and path.read_text(errors="replace").strip() in ("", "[]", "{}"):
            raise InputError("the predictions file is empty: it holds no answer to score", file=str(path))
    except OSError:
        return  # unreadable: the format's reader says why
