"""The caption decomposition run of `presets/rubrics_on_the_fly.py` (rubrics made before an
`audioeval run`): `rubric decompose`'s run (`benchmarks/rubric_items/preset.py`) with its
settings given in code, not a pipeline of its own.

The captions file (checked first: `benchmarks/rubric_items/decompose_source.py`) becomes the
samples of a `rubric_decompose` benchmark; the model is `caption`, the echo baseline, which
answers each caption with itself; the text LLM is the run's judge (`JudgeSettings`: URLs,
model, key variable, concurrency, timeout, sampling), asked by the `rubric_decompose` judged
scorer (decomposition, cleaning; retries of unusable answers; fallback). The engine records
each caption in `<run>/rubric_decompose/caption/records.jsonl`, caches every usable answer,
and on a rerun keeps the records of captions whose text and domain are unchanged
(`rescore_changed_samples`: an edited caption is decomposed again, its new record
superseding the old). The rubrics file and `<run>/decompose_summary.json` are exports of the
records (`benchmarks/rubric_items/decompose_export.py`), written by the engine after the run
and by `audioeval rescore <run>` alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from audioeval.benchmarks.prepared import PreparedInputs
from audioeval.benchmarks.preset import run_folder_beside
from audioeval.benchmarks.rubric_items.decompose_export import RUN_INFO_KEY, DecomposeResult
from audioeval.benchmarks.rubric_items.decompose_prompts import PROMPT_VERSION
from audioeval.benchmarks.rubric_items.decompose_source import (
    BENCHMARK,
    Caption,
    caption_samples,
    decompose_spec,
    load_captions,
)
from audioeval.benchmarks.sources.loader import SampleSet
from audioeval.core.prices import PriceTable
from audioeval.engine.evaluate import EvalRequest, evaluate_async
from audioeval.engine.model_specs import ModelConfig
from audioeval.engine.run_judge import JudgeSettings
from audioeval.store.file_digest import file_sha256

Scalar = str | int | float | bool | None
"""A setting's value in the scorer's arguments and the summary's settings block."""

MODEL = ModelConfig(name="caption", type="baseline", baseline="echo")


@dataclass
class DecomposeConfig:
    captions: Path
    output: Path
    llm: JudgeSettings
    domain: str = "mix"  # the official default
    max_items: int | None = None  # ours: a cap (the official has none)
    max_attempts: int = 3
    dedupe: bool = False  # ours: drop repeated questions (the official does not)
    temperature: float | None = None  # decomposition; None: the official greedy decoding
    max_tokens: int | None = None  # decomposition; None: the official per-domain budget
    run_dir: Path | None = None
    use_cache: bool = True
    progress: bool = True
    probe: bool = True
    cache_path: Path | None = None  # the LLM response cache (default: in the run directory)
    prompt: Path | None = None  # a prompt template file for both steps (`--judge-prompt`)
    # the run's usage and cost settings (docs/cost.md): its prices, and its limits, whose
    # budget the decomposition's requests count against (`engine/run_budget.command_budget`)
    prices: PriceTable | None = None
    max_calls: int | None = None
    max_cost: float | None = None

    @property
    def folder(self) -> Path:
        """The run directory: `--output_dir`, else `<output>.run` beside the rubrics file."""
        return self.run_dir or run_folder_beside(self.output)

    def scorer_args(self) -> dict[str, Scalar]:
        return {
            "domain": self.domain,
            "max_items": self.max_items,
            "max_attempts": self.max_attempts,
            "dedupe": self.dedupe,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
        }

    def info(self) -> dict[str, Scalar]:
        """The settings part of the summary (the exporter's `run_info`)."""
        return {
            "captions": str(self.captions),
            "captions_sha256": file_sha256(self.captions),
            "output": str(self.output.expanduser().resolve()),
            "llm_model": self.llm.model,
            "prompt_version": PROMPT_VERSION if self.prompt is None else None,
            **({} if self.prompt is None else {"prompt_file": str(self.prompt)}),
            **self.scorer_args(),
            "seed": self.llm.seed,
        }


def _request(cfg: DecomposeConfig, samples: SampleSet) -> EvalRequest:
    return EvalRequest(
        benchmarks=[],
        specs=[(decompose_spec(cfg.captions, cfg.scorer_args()), str(cfg.captions))],
        models=[MODEL],
        output_dir=cfg.folder,
        resamples=0,
        progress=cfg.progress,
        use_cache=cfg.use_cache,
        cache_path=cfg.cache_path,
        judge=cfg.llm,
        judge_prompt=cfg.prompt,
        probe=cfg.probe,
        prices=cfg.prices,
        max_calls=cfg.max_calls,
        max_cost=cfg.max_cost,
        prepared=PreparedInputs(
            samples={BENCHMARK: samples},
            rescore_changed_samples=True,
            export_info={RUN_INFO_KEY: cfg.info()},
            exports_dir=cfg.folder,
        ),
    )


async def decompose_async(cfg: DecomposeConfig, captions: list[Caption] | None = None) -> DecomposeResult:
    """Run the preset in `cfg.folder` (held by the caller) on the captions (read from
    `cfg.captions` when not given); the engine exports the files."""
    captions = load_captions(cfg.captions) if captions is None else captions
    samples = SampleSet(caption_samples(captions, str(cfg.captions)), [], str(cfg.captions))
    run = await evaluate_async(_request(cfg, samples))
    result: DecomposeResult = run.exports[cfg.folder]
    return result
