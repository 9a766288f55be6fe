"""`audioeval mmae score` as a preset of the run engine, and `mmae rescore`.

The preset builds one run request: the `mmae` source (metadata, audio root), the
`predictions:FILE` model and the `mmae_rubrics` scorer (votes = --retries, max attempts,
shuffle seed, clip policy, early stop when asked) with the run judge (`JudgeSettings`).
The response cache (`--judge-cache`, default `OUTPUT_DIR/judge_cache.sqlite`) is keyed by
request content only, so one file shared by several output folders answers again every
request it has seen. The output folder is a
run directory (`run.json`, `mmae/predictions/records.jsonl`, …); the files of MMAE
(`results.jsonl`, `per_sample.json`, `taxonomy.json`, `skipped.json`,
`failed_outputs.json`) are exported from its records at its top
(`benchmarks/mmae/exports.py`), at the end of every run and every rescore.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from audioeval.analysis.run_summary import write_run_summary
from audioeval.benchmarks.mmae.exports import (
    FAILED_OUTPUTS_FILE,
    PER_SAMPLE_FILE,
    RESULTS_FILE,
    SKIPPED_FILE,
    TAXONOMY_FILE,
)
from audioeval.benchmarks.mmae.loading import load_predictions
from audioeval.benchmarks.spec import BenchmarkSpec, SourceSpec
from audioeval.core.errors import InputError, RunConfigError
from audioeval.engine.evaluate import EvalRequest, EvalResult, evaluate_async
from audioeval.engine.model_specs import ModelConfig
from audioeval.engine.rescore import rescore_run
from audioeval.engine.run_judge import JudgeSettings
from audioeval.engine.run_layout import pair_dir
from audioeval.store.file_digest import file_sha256
from audioeval.store.run_lock import hold_run_lock
from audioeval.store.signature import read_signature

BENCHMARK = "mmae"
MODEL = "predictions"
TAXONOMY = ["modality", "complexity", "complexity_group", "granularity", "operation"]

__all__ = ["MmaeRunConfig", "MmaeRunResult", "rescore_mmae", "run_mmae"]


@dataclass
class MmaeRunConfig:
    predictions: Path
    metadata: Path
    output_dir: Path
    base_urls: list[str]
    audio_root: Path | None = None
    concurrency: int = 16
    retries: int = 3
    max_attempts: int = 10
    timeout: float = 300.0
    model: str = "Qwen3Omni-Instruct"
    api_key: str | None = None
    audio_part: str = "audio_url"
    slice_clips: bool = False
    seed: int = 0
    sample_rate: int = 16000
    temperature: float | None = None
    max_tokens: int | None = 1024
    cache_path: Path | None = None
    use_cache: bool = True
    n_resamples: int = 1000
    progress: bool = True
    exclude_missing: bool = False  # leave samples without a usable output out of the means
    api_key_env: str = "OPENAI_API_KEY"  # named in the message when the endpoints refuse the key
    probe: bool = True  # check the judge endpoints once before judging (endpoint_probe.py)
    early_stop: bool = False  # stop a rubric once its majority is decided (off: the published protocol)

    def spec(self) -> BenchmarkSpec:
        """The benchmark: the metadata as an `mmae` source, scored by the rubric judge."""
        root = self.audio_root or self.predictions.parent
        scorer: dict[str, Any] = {
            "seed": self.seed,
            "votes": self.retries,
            "max_attempts": self.max_attempts,
            "slice_clips": self.slice_clips,
        }
        if self.early_stop:  # named only when on: the spec of earlier folders is unchanged
            scorer["early_stop"] = True
        source = SourceSpec(type="mmae", path=str(_absolute(self.metadata)), audio_root=str(_absolute(root)))
        return BenchmarkSpec(
            name=BENCHMARK,
            task="audio_edit",
            source=source,
            taxonomy=TAXONOMY,
            scorers=[{"mmae_rubrics": scorer}],
        )

    def judge(self) -> JudgeSettings:
        return JudgeSettings(
            urls=self.base_urls,
            model=self.model,
            concurrency=self.concurrency,
            timeout_s=self.timeout,
            api_key_env=self.api_key_env,
            audio_part=self.audio_part,  # type: ignore[arg-type]
            sample_rate=self.sample_rate,
            temperature=self.temperature,
            max_tokens=self.max_tokens,
            api_key=self.api_key,
        )

    def request(self) -> EvalRequest:
        root = self.audio_root or self.predictions.parent
        model = ModelConfig(
            name=MODEL,
            type="predictions",
            predictions=str(_absolute(self.predictions)),
            audio_root=str(_absolute(root)),
        )
        return EvalRequest(
            benchmarks=[],
            models=[model],
            output_dir=self.output_dir,
            specs=[(self.spec(), str(_absolute(self.metadata)))],
            resamples=self.n_resamples,
            seed=self.seed,
            progress=self.progress,
            use_cache=self.use_cache,
            judge=self.judge(),
            exclude_missing=self.exclude_missing,
            probe=self.probe,
            cache_path=self.cache_path or self.output_dir / "judge_cache.sqlite",
            exports_dir=self.output_dir,
        )


@dataclass
class MmaeRunResult:
    output_dir: Path
    taxonomy: dict[str, Any]
    per_sample: list[dict[str, Any]]
    skipped: list[InputError]
    judged_now: int
    reused: int
    failed_outputs: list[InputError] = field(default_factory=list)
    ignored_lines: list[str] = field(default_factory=list)  # stored records not trusted, and why
    calls: int = 0
    judging_s: float = 0.0
    cache_hits: int = 0
    decodes: int = 0
    encodes: int = 0
    endpoints: list[dict[str, object]] = field(default_factory=list)
    first_failure: str | None = None  # the first skipped sample's or failed rubric's reason
    early_stop: bool = False
    calls_saved: int = 0  # valid votes early stop did not ask (taxonomy.json `run` block)


def _absolute(path: Path) -> Path:
    return path.expanduser().absolute()


def _read(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _errors(path: Path) -> list[InputError]:
    return [InputError.from_record(r) for r in _read(path)]


def first_failure(output_dir: Path, skipped: list[InputError], rows: list[dict[str, Any]]) -> str | None:
    """The reason of the first skipped sample, else of the first failed rubric in sample order."""
    if skipped:
        return skipped[0].describe()
    failing = [(r["id"], i) for r in rows for i in r.get("failed_rubrics") or []]
    if not failing:
        return None
    why: dict[tuple[str, int], str] = {}
    for line in (output_dir / RESULTS_FILE).read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        why[(rec["id"], rec["rubric_index"])] = rec.get("failure") or "failed"
    sid, index = failing[0]
    return f"id {sid!r}, rubric {index}: {why.get((sid, index), 'failed')}"


def _result(cfg: MmaeRunConfig, run: EvalResult) -> MmaeRunResult:
    out = cfg.output_dir
    tax = _read(out / TAXONOMY_FILE)
    info = tax.pop("run", {})
    rows = _read(out / PER_SAMPLE_FILE)
    skipped = _errors(out / SKIPPED_FILE)
    work = run.judge_work
    return MmaeRunResult(
        out,
        tax,
        rows,
        skipped,
        int(info.get("judged_now", 0)),
        int(info.get("reused", 0)),
        failed_outputs=_errors(out / FAILED_OUTPUTS_FILE),
        ignored_lines=run.ignored_lines,
        calls=run.judge_calls,
        judging_s=run.work_s,
        cache_hits=run.cache_hits,
        decodes=work.decodes if work is not None else 0,
        encodes=work.encodes if work is not None else 0,
        endpoints=work.endpoints if work is not None else [],
        first_failure=first_failure(out, skipped, rows),
        early_stop=bool(info.get("early_stop", False)),
        calls_saved=int(info.get("calls_saved", 0)),
    )


def run_mmae(cfg: MmaeRunConfig) -> MmaeRunResult:
    """Score a predictions file: one run of the engine, then the MMAE files read back."""
    with hold_run_lock(cfg.output_dir):
        load_predictions(cfg.predictions)  # an unreadable file is refused before anything is written
        run = asyncio.run(evaluate_async(cfg.request()))
        write_run_summary(cfg.output_dir, run.results)  # summary.json, as every run directory has
    return _result(cfg, run)


def rescore_mmae(
    output_dir: Path, metadata: Path, *, n_resamples: int = 1000, exclude_missing: bool = False
) -> dict[str, Any]:
    """Score an `mmae score` folder again from its stored verdicts (no judge call); its taxonomy."""
    with hold_run_lock(output_dir, create=False):
        sig = read_signature(pair_dir(output_dir, BENCHMARK, MODEL))
        stored = sig.get("source_sha256")
        if stored is not None and stored != file_sha256(metadata):
            raise RunConfigError(
                f"{metadata} is not the metadata {output_dir} was scored with (metadata_sha256 differs)"
            )
        rescore_run(output_dir, resamples=n_resamples, exclude_missing=exclude_missing, locked=True)
    tax: dict[str, Any] = _read(output_dir / TAXONOMY_FILE)
    return tax
