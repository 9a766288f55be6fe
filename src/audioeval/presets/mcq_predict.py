"""`mcq predict`: ask a model every MMAR / MMAU question with its audio; write predictions.

A thin layer over the `audioeval run` engine (`evaluate_async`), not a pipeline of its
own: the metadata file becomes an `mcq` benchmark spec (prompt template, audio root) and
the model an OpenAI-compatible `ModelConfig`; the engine asks, records, caches and resumes
in the run directory (`<run>/<benchmark>/<model>/records.jsonl`, see `run_layout`). The
predictions file is then the metadata with each sample's latest answer added under the
benchmark's key (think blocks moved to `thinking_prediction` for MMAR); items whose call
failed get no prediction.

Unlike `audioeval run`, which skips unreadable rows, bad input stops `mcq predict` before
any model is asked: a predictions file must hold every item of the metadata.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from audioeval.adapters.base import GenerationConfig
from audioeval.benchmarks.mcq.definitions import McqBenchmark
from audioeval.benchmarks.mcq.loading import McqFile, load_mcq_file
from audioeval.benchmarks.mcq.predictions_out import (
    answers_from_records,
    check_prompt_fields,
    predict_spec,
    write_predictions,
)
from audioeval.benchmarks.resolved import resolve
from audioeval.benchmarks.sources.loader import load_samples
from audioeval.benchmarks.spec import BenchmarkSpec
from audioeval.engine.evaluate import EvalRequest, evaluate_async
from audioeval.engine.model_specs import ModelConfig
from audioeval.engine.run_layout import RECORDS_FILE, pair_dir
from audioeval.engine.sample_pipeline import build_messages
from audioeval.store.records import read_records
from audioeval.store.run_lock import check_output_file, hold_run_lock


@dataclass
class McqPredictConfig:
    bench: McqBenchmark
    metadata: Path
    audio_root: Path
    base_urls: list[str]
    model: str
    out: Path
    run_dir: Path | None = None
    template: str = "mcq_choices"
    api_key_env: str = "OPENAI_API_KEY"
    concurrency: int = 8
    timeout: float = 300.0
    temperature: float | None = None
    max_tokens: int | None = None
    audio_part: str = "audio_url"
    sample_rate: int = 16000
    use_cache: bool = True
    progress: bool = True
    probe: bool = True  # check the endpoints once before asking (endpoint_probe.py)

    @property
    def folder(self) -> Path:
        return self.run_dir or self.out.parent / f"{self.out.name}.run"

    def model_config(self) -> ModelConfig:
        return ModelConfig(
            name=self.model,
            type="openai",
            urls=list(self.base_urls),
            served_model=self.model,
            api_key_env=self.api_key_env,
            concurrency=self.concurrency,
            timeout_s=self.timeout,
            audio_part=self.audio_part,  # type: ignore[arg-type]
        )


@dataclass
class McqPredictResult:
    out: Path
    run_dir: Path
    records: Path  # the engine's records of this benchmark × model
    items: int
    answered: int
    failed: int
    asked_now: int
    reused: int
    calls: int
    cache_hits: int
    first_failure: str | None = None  # "id: error" of the first item without an answer


def _check_prompts(spec: BenchmarkSpec, where: str, data_root: Path) -> None:
    """Load the samples and render every prompt as the engine will: the first problem
    (an unreadable row, a template that does not render) is raised, nothing is asked."""
    bench = resolve(spec, where)
    samples = load_samples(spec, where, root=data_root)
    if samples.skipped:
        raise samples.skipped[0]
    for sample in samples.samples:
        build_messages(bench, sample, None)


async def predict_async(cfg: McqPredictConfig) -> McqPredictResult:
    file = load_mcq_file(cfg.metadata, cfg.bench, require_predictions=False)
    check_prompt_fields(file.items, cfg.bench, str(cfg.metadata))
    spec = predict_spec(cfg.bench, cfg.metadata, cfg.audio_root, cfg.template, jsonl=file.jsonl)
    where = spec.source.path
    folder = cfg.folder
    # The run folder as data root: no local copy under AUDIOEVAL_DATA replaces the metadata.
    _check_prompts(spec, where, folder)
    with hold_run_lock(folder):
        return await _ask_and_write(cfg, file, spec, where)


async def _ask_and_write(
    cfg: McqPredictConfig, file: McqFile, spec: BenchmarkSpec, where: str
) -> McqPredictResult:
    """Ask through the engine in the run folder (held by this process); write the predictions."""
    folder = cfg.folder
    model = cfg.model_config()
    result = await evaluate_async(
        EvalRequest(
            benchmarks=[],
            specs=[(spec, where)],
            models=[model],
            output_dir=folder,
            data_root=folder,
            generation=GenerationConfig(temperature=cfg.temperature, max_tokens=cfg.max_tokens),
            sample_rate=cfg.sample_rate,
            progress=cfg.progress,
            use_cache=cfg.use_cache,
            probe=cfg.probe,
        )
    )
    records = pair_dir(folder, spec.name, model.slug) / RECORDS_FILE
    answers = answers_from_records(read_records(records).records)
    current = {item.id: answers[item.id] for item in file.items if item.id in answers}
    write_predictions(cfg.out, file.items, cfg.bench, current, jsonl=_is_jsonl_out(cfg.out, file.jsonl))
    return McqPredictResult(
        cfg.out,
        folder,
        records,
        len(file.items),
        len(current),
        len(file.items) - len(current),
        result.asked,
        result.reused,
        result.calls,
        result.cache_hits,
        _first_failure(result.results),
    )


def _first_failure(results: list[dict[str, Any]]) -> str | None:
    first = next((r["first_failure"] for r in results if r.get("first_failure")), None)
    return None if first is None else f"{first['id']}: {first['error']}"


def _is_jsonl_out(out: Path, source_jsonl: bool) -> bool:
    if out.suffix.lower() == ".jsonl":
        return True
    return False if out.suffix.lower() == ".json" else source_jsonl


def predict(cfg: McqPredictConfig) -> McqPredictResult:
    check_output_file(cfg.out, "the predictions file (--out)")
    return asyncio.run(predict_async(cfg))
