"""Helpers for MMAE tests: run configs against the fake judge, and the files of a run."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from audioeval.benchmarks.plugins import load_benchmarks
from audioeval.core.errors import InputError
from audioeval.presets.preset_run import rescore_preset, run_preset

# `MmaeRunConfig`'s field names (before `mmae score` was a data preset) -> the preset's value names
OLD_NAMES = {
    "base_urls": "judge",
    "concurrency": "judge_concurrency",
    "retries": "judge_votes",
    "max_attempts": "judge_max_attempts",
    "timeout": "judge_timeout",
    "model": "judge_model",
    "api_key": "judge_api_key",
    "api_key_env": "judge_api_key_env",
    "sample_rate": "judge_sample_rate",
    "temperature": "judge_temperature",
    "max_tokens": "judge_max_tokens",
    "cache_path": "cache",
    "n_resamples": "resamples",
}


def values(**kw: Any) -> dict[str, Any]:
    """Values of the `mmae score` preset from keyword arguments, old field names accepted
    (`use_cache` and `probe` as their `no_` flags)."""
    out: dict[str, Any] = {}
    for key, value in kw.items():
        if key in ("use_cache", "probe"):
            out[f"no_{'cache' if key == 'use_cache' else 'probe'}"] = not value
        else:
            out[OLD_NAMES.get(key, key)] = value
    return out


MmaeRunConfig = values


def config(preds: Path, meta: Path, out: Path, urls: list[str], **kw: Any) -> dict[str, Any]:
    base: dict[str, Any] = dict(
        predictions=preds,
        metadata=meta,
        output_dir=out,
        base_urls=urls,
        progress=False,
        n_resamples=200,
        timeout=20.0,
    )
    base.update(kw)
    return values(**base)


def score_preset() -> Any:
    return load_benchmarks()["mmae"].presets[0]


@dataclass
class MmaeRun:
    """What a test reads of one `mmae score` run: MMAE's files and the engine's account."""

    output_dir: Path
    taxonomy: dict[str, Any]
    per_sample: list[dict[str, Any]]
    skipped: list[InputError]
    failed_outputs: list[InputError]
    judged_now: int
    reused: int
    calls: int
    cache_hits: int
    decodes: int
    encodes: int
    endpoints: list[dict[str, object]]
    first_failure: str | None
    early_stop: bool
    calls_saved: int
    judging_s: float = 0.0
    ignored_lines: list[str] = field(default_factory=list)


def run_mmae(cfg: dict[str, Any]) -> MmaeRun:
    done = run_preset(score_preset(), cfg)
    tax = dict(done.outcome.figures)
    info = tax.pop("run", {})
    work = done.engine.judge_work
    return MmaeRun(
        done.output_dir,
        tax,
        json.loads((done.output_dir / "per_sample.json").read_text()),
        done.outcome.skipped,
        done.outcome.failed_outputs,
        int(info.get("judged_now", 0)),
        int(info.get("reused", 0)),
        done.engine.judge_calls,
        done.engine.cache_hits,
        work.decodes if work is not None else 0,
        work.encodes if work is not None else 0,
        work.endpoints if work is not None else [],
        done.outcome.first_failure,
        bool(info.get("early_stop", False)),
        int(info.get("calls_saved", 0)),
        done.engine.work_s,
        done.engine.ignored_lines,
    )


def rescore_mmae(
    out: Path, meta: Path, *, n_resamples: int = 1000, exclude_missing: bool = False
) -> dict[str, Any]:
    given = {"metadata": meta, "resamples": n_resamples, "exclude_missing": exclude_missing}
    return dict(rescore_preset(score_preset(), out, given).figures)


def results(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]


def records_file(out: Path) -> Path:
    """The record stream of an `mmae score` output folder (a run directory)."""
    return out / "mmae" / "predictions" / "records.jsonl"


def rubric_count(meta: Path) -> int:
    """How many rubrics the samples of an MMAE metadata file hold."""
    return sum(len(m["rubrics"]) for m in json.loads(Path(meta).read_text()))
