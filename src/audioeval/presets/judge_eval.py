"""`audioeval judge-eval`: how well an audio judge's rubric scores match labels — a preset of
the run engine.

The bench rows (`benchmarks/anyaudio_bench/loading.py`: AnyAudio-Judge-Bench as JSONL, a
saved dataset, parquet or a hub name) are the samples of an `audio_instruct` benchmark; the
model is the `echo` baseline (each row's own audio is the audio judged); the scorer is
`anyaudio_items` on the run's judge (`rubric_items` as AnyAudio-Judge's code reads its
generate-mode answers, `benchmarks/anyaudio_bench/items_scorer.py`): each rubric item gets
a P(yes), a row's score is their mean. Rows with an empty rubric are left out of the run
and counted as unscored. With
`--tune-on DEV`, the dev rows are a second benchmark of the same run and the threshold is the
one that maximises accuracy on them. The engine records every row (resume, cache, rescore)
and exports `judge_eval_summary.json` and `per_row.jsonl` (`benchmarks/anyaudio_bench/export.py`).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from audioeval.benchmarks.anyaudio_bench.export import RUN_INFO_KEY, JudgeEvalResult
from audioeval.benchmarks.anyaudio_bench.loading import load_bench
from audioeval.benchmarks.anyaudio_bench.schema import is_unscored
from audioeval.benchmarks.anyaudio_bench.summary import judge_eval_row
from audioeval.benchmarks.sources.loader import SampleSet
from audioeval.benchmarks.spec import BenchmarkSpec, SourceSpec
from audioeval.core.errors import InputError
from audioeval.engine.evaluate import EvalRequest, evaluate_async
from audioeval.engine.model_specs import ModelConfig
from audioeval.engine.run_judge import JudgeSettings
from audioeval.engine.run_layout import IDS_FILE, RECORDS_FILE, pair_dir

BENCH_NAME = "judge-bench"
DEV_NAME = "judge-bench-dev"
MODEL = ModelConfig(name="echo", type="baseline", baseline="echo")


@dataclass
class JudgeEvalConfig:
    bench: str
    judge: JudgeSettings
    output_dir: Path
    config: str | None = None  # en | zh of a hub name or a folder with one per configuration
    threshold: float | None = None  # --threshold (default by mode: 0.8 all_at_once, 0.5 per_item)
    tune_on: str | None = None  # a dev split the threshold is tuned on
    mode: Literal["per_item", "all_at_once"] = "per_item"
    samples: int = 5  # sampled answers per item when the judge sends no logprobs
    max_attempts: int = 3
    limit: int | None = None
    n_resamples: int = 1000
    seed: int = 0
    use_cache: bool = True
    progress: bool = True
    probe: bool = True
    data_root: Path | None = None
    cache_path: Path | None = None  # the judge response cache (default: in the output folder)
    prompt: Path | None = None  # a prompt template file for `rubric_items` (`--judge-prompt`)


@dataclass
class JudgeEvalRun:
    result: JudgeEvalResult
    skipped: list[InputError] = field(default_factory=list)  # rows that could not be read
    asked: int = 0  # rows judged in this run (the others were reused)


def _spec(name: str, location: str, scorer: dict[str, Any], exports: bool) -> BenchmarkSpec:
    return BenchmarkSpec(
        name=name,
        task="audio_instruct",
        source=SourceSpec(type="jsonl", path=location),
        taxonomy=["subset", "type"],
        scorers=[{"anyaudio_items": scorer}],
        metrics=["mean:rubric_score"],
        exports="judge_eval" if exports else None,
    )


def _judged(samples: SampleSet) -> tuple[SampleSet, list[Any]]:
    """The rows the judge sees, and those with an empty rubric (unscored) as summary rows."""
    unscored = [judge_eval_row(s, None) for s in samples.samples if is_unscored(s)]
    judged = [s for s in samples.samples if not is_unscored(s)]
    return SampleSet(judged, samples.skipped, samples.location), unscored


async def run_judge_eval_async(cfg: JudgeEvalConfig) -> JudgeEvalRun:
    """Run the preset in `cfg.output_dir` (held by the caller); the engine exports its files."""
    if cfg.threshold is not None and cfg.tune_on is not None:
        raise InputError("give --threshold or --tune-on, not both", field="--threshold")
    loaded = load_bench(cfg.bench, config=cfg.config, data_root_dir=cfg.data_root, limit=cfg.limit)
    bench, unscored = _judged(loaded)
    scorer = {"mode": cfg.mode, "samples": cfg.samples, "max_attempts": cfg.max_attempts}
    specs = [(_spec(BENCH_NAME, loaded.location, scorer, True), loaded.location)]
    sets = {BENCH_NAME: bench}
    skipped = list(loaded.skipped)
    info: dict[str, Any] = {
        "bench": cfg.bench if cfg.config is None else f"{cfg.bench} ({cfg.config})",
        "judge_model": cfg.judge.model,
        "threshold": cfg.threshold,
        "threshold_source": "default" if cfg.threshold is None else "--threshold",
        "dev_records": None,
        "dev_ids": None,
        "mode": cfg.mode,
    }
    if cfg.tune_on is not None:
        dev_loaded = load_bench(cfg.tune_on, config=cfg.config, data_root_dir=cfg.data_root)
        dev, _ = _judged(dev_loaded)
        specs.append((_spec(DEV_NAME, dev_loaded.location, scorer, False), dev_loaded.location))
        sets[DEV_NAME] = dev
        skipped += dev_loaded.skipped
        records = pair_dir(cfg.output_dir, DEV_NAME, MODEL.slug) / RECORDS_FILE
        info.update(
            threshold_source=f"tuned on {cfg.tune_on}",
            dev_records=str(records.relative_to(cfg.output_dir)),
            dev_ids=str((records.parent / IDS_FILE).relative_to(cfg.output_dir)),
        )
    info["unscored_rows"] = [r._asdict() for r in unscored]
    info["skipped_rows"] = [e.as_record() for e in skipped]  # judge_eval_summary.json's `skipped`
    request = EvalRequest(
        benchmarks=[],
        specs=specs,
        models=[MODEL],
        output_dir=cfg.output_dir,
        resamples=cfg.n_resamples,
        seed=cfg.seed,
        progress=cfg.progress,
        use_cache=cfg.use_cache,
        cache_path=cfg.cache_path,
        judge=cfg.judge,
        judge_prompt=cfg.prompt,
        probe=cfg.probe,
        sample_sets=sets,
        exports_dir=cfg.output_dir,
        export_info={RUN_INFO_KEY: info},
    )
    run = await evaluate_async(request)
    result = next(r for r in run.exports.values() if isinstance(r, JudgeEvalResult))
    return JudgeEvalRun(result, skipped, run.asked)


def run_judge_eval(cfg: JudgeEvalConfig) -> JudgeEvalRun:
    return asyncio.run(run_judge_eval_async(cfg))
