"""`mcq score`: a preset of the run engine, not a pipeline of its own.

The predictions file (the benchmark's items with the model's answer, validated by
`benchmarks/mcq/loading.py`) becomes the samples of an `mcq` benchmark and a text
`predictions` model that answers each item with its stored answer; the scorers are the
official match and the robust reading, and with `--rubrics` the MMAR-Rubrics judged scorer
on the run's judge (`JudgeSettings` / `RunJudge`: client, endpoint pool, response cache).
The engine records every item in `<out>/<benchmark>/predictions/records.jsonl`; a rerun
keeps the records of items whose contents (answer, reasoning, rubric, …) are unchanged and
scores the others again (their new records supersede the old). `mcq_summary.json`,
`per_item.jsonl`, `disagreements.jsonl` and `rubrics/results.jsonl` are exports of the
records (`benchmarks/mcq/export.py`, named by the spec's `exports:`), written by the engine
after the run and by `audioeval rescore OUT` alone.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from audioeval.benchmarks.mcq.definitions import McqBenchmark
from audioeval.benchmarks.mcq.export import RUN_INFO_KEY, McqScoreResult
from audioeval.benchmarks.mcq.loading import McqFile, load_mcq_file
from audioeval.benchmarks.mcq.rubric_plan import RubricPlan, load_rubric_meta, plan_rubrics
from audioeval.benchmarks.mcq.rubric_prompt import PROMPT_VERSION
from audioeval.benchmarks.mcq.rubric_scorer import REDUCER
from audioeval.benchmarks.mcq.source import mcq_samples, score_spec
from audioeval.benchmarks.sources.loader import SampleSet
from audioeval.core.errors import InputError
from audioeval.engine.evaluate import EvalRequest, evaluate_async
from audioeval.engine.model_specs import ModelConfig
from audioeval.engine.run_judge import JudgeSettings
from audioeval.store.file_digest import file_sha256
from audioeval.store.json_items import gc_paused

MODEL_NAME = "predictions"


@dataclass
class RubricSettings:
    """`--rubrics`: the judge (configured like any judge) and the votes per item."""

    judge: JudgeSettings
    votes: int = 5
    max_attempts: int = 20
    meta: Path | None = None
    prompt: Path | None = None  # a prompt template file in place of ours (`--judge-prompt`)

    def info(self) -> dict[str, Any]:
        """The settings part of `mcq_summary.json`'s `rubrics`."""
        return {
            "benchmark": "mmar-rubrics",
            "judge_model": self.judge.model,
            "prompt_version": PROMPT_VERSION if self.prompt is None else None,
            **({} if self.prompt is None else {"prompt_file": str(self.prompt)}),
            "votes": self.votes,
            "max_attempts": self.max_attempts,
            "item_score": f"{REDUCER.replace('_', ' ')} (drop max and min)",
            "temperature": self.judge.temperature,
            "seed": self.judge.seed,
            "max_tokens": self.judge.max_tokens,
        }


@dataclass
class McqScoreConfig:
    bench: McqBenchmark
    predictions: Path
    output_dir: Path
    prediction_key: str | None = None
    n_resamples: int = 1000
    seed: int = 0
    rubrics: RubricSettings | None = None
    use_cache: bool = True
    progress: bool = True
    probe: bool = True
    cache_path: Path | None = None  # the judge response cache (default: in the output folder)


@dataclass
class McqScoreRun:
    result: McqScoreResult
    skipped: list[InputError] = field(default_factory=list)  # malformed rubrics, reported


def _model(cfg: McqScoreConfig, file: McqFile) -> ModelConfig:
    return ModelConfig(
        name=MODEL_NAME,
        type="predictions",
        predictions=str(cfg.predictions.expanduser().resolve()),
        predictions_format=cfg.bench.name,  # type: ignore[arg-type]
        prediction_key=file.prediction_key,
        concurrency=cfg.rubrics.judge.concurrency if cfg.rubrics else 8,
    )


def _request(cfg: McqScoreConfig, file: McqFile, plan: RubricPlan | None) -> EvalRequest:
    scorer = None
    if cfg.rubrics is not None:
        scorer = {"votes": cfg.rubrics.votes, "max_attempts": cfg.rubrics.max_attempts}
    spec = score_spec(cfg.bench, cfg.predictions, jsonl=file.jsonl, rubric_scorer=scorer)
    samples = SampleSet(mcq_samples(file, plan), [], str(cfg.predictions))
    return EvalRequest(
        benchmarks=[],
        specs=[(spec, str(cfg.predictions))],
        models=[_model(cfg, file)],
        output_dir=cfg.output_dir,
        resamples=cfg.n_resamples,
        seed=cfg.seed,
        progress=cfg.progress,
        use_cache=cfg.use_cache,
        cache_path=cfg.cache_path,
        judge=cfg.rubrics.judge if cfg.rubrics else None,
        judge_prompt=cfg.rubrics.prompt if cfg.rubrics else None,
        probe=cfg.probe,
        sample_sets={cfg.bench.name: samples},
        rescore_changed_samples=True,
        exports_dir=cfg.output_dir,
        export_info=_export_info(cfg, file, plan),
    )


async def score_predictions_async(cfg: McqScoreConfig) -> McqScoreRun:
    """Run the preset in `cfg.output_dir` (held by the caller); the engine exports its files."""
    with gc_paused():  # many small acyclic objects: collector passes only cost time
        file = load_mcq_file(cfg.predictions, cfg.bench, prediction_key=cfg.prediction_key)
    plan = None
    if cfg.rubrics is not None:
        meta = load_rubric_meta(cfg.rubrics.meta) if cfg.rubrics.meta else None
        plan = plan_rubrics(file.items, str(cfg.predictions), meta)
    # Without a judge, the run makes tens of thousands of small acyclic records and no
    # connections: collector passes only cost time.
    with gc_paused() if cfg.rubrics is None else contextlib.nullcontext():
        run = await evaluate_async(_request(cfg, file, plan))
    result = run.exports[cfg.output_dir]
    return McqScoreRun(result, plan.skipped if plan is not None else [])


def _export_info(cfg: McqScoreConfig, file: McqFile, plan: RubricPlan | None) -> dict[str, Any]:
    """What the exporter needs beside the records: the file scored and the rubric settings."""
    rubrics = None
    if cfg.rubrics is not None and plan is not None:
        rubrics = {
            **cfg.rubrics.info(),
            "without_rubric": plan.without_rubric,
            "skipped": [e.as_record() for e in plan.skipped],
        }
    source = {
        "predictions": str(cfg.predictions),
        "predictions_sha256": file_sha256(cfg.predictions),
        "prediction_key": file.prediction_key,
        "rubrics": rubrics,
    }
    return {RUN_INFO_KEY: source}


def score_predictions(cfg: McqScoreConfig) -> McqScoreRun:
    return asyncio.run(score_predictions_async(cfg))
