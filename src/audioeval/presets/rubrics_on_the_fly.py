"""Rubrics made on the fly: a benchmark whose spec has `source.decompose` gets, before the
run, a rubric for every sample that has none, decomposed from its caption by a text LLM.

This is `audioeval rubric decompose` (`presets/rubric_decompose.py`) run inside the run
directory: the captions of the samples without a rubric are written to
`<run>/<benchmark>/captions.jsonl`, decomposed in the run directory
`<run>/<benchmark>/rubrics.run/` (cached, resumed: a rerun asks the LLM nothing for
unchanged captions) into `<run>/<benchmark>/rubrics.jsonl`, and each rubric is put on its
sample. A caption the LLM could not decompose leaves its sample without a rubric: the
`rubric_items` scorer records it as an input failure, counted, never scored.
"""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path

from audioeval.benchmarks.registry import resolve_benchmark
from audioeval.benchmarks.rubric_items.decompose_export import DecomposeResult
from audioeval.benchmarks.sources.loader import SampleSet, load_samples
from audioeval.benchmarks.spec import BenchmarkSpec, DecomposeSpec
from audioeval.core.sample import Sample
from audioeval.engine.evaluate import EvalRequest, default_output_dir
from audioeval.engine.run_judge import JudgeSettings, split_urls
from audioeval.presets.rubric_decompose import DecomposeConfig, decompose_async
from audioeval.store.atomic import write_jsonl_atomic
from audioeval.store.jsonl import read_jsonl
from audioeval.store.run_lock import hold_run_lock

CAPTIONS_FILE = "captions.jsonl"
RUBRICS_FILE = "rubrics.jsonl"
RUN_FOLDER = "rubrics.run"


def _caption(sample: Sample) -> str | None:
    text = sample.get("caption") or sample.get("reference")
    return str(text) if text is not None and str(text).strip() else None


def _llm(spec: DecomposeSpec) -> JudgeSettings:
    return JudgeSettings(
        urls=split_urls(spec.llm),
        model=spec.llm_model,
        api_key_env=spec.api_key_env,
        role="LLM",
    )


async def _decomposed(
    spec: BenchmarkSpec, samples: SampleSet, folder: Path, req: EvalRequest
) -> tuple[SampleSet, DecomposeResult | None]:
    """The samples, those without a rubric given one where the LLM made it."""
    decompose = spec.source.decompose
    assert decompose is not None
    missing = [s for s in samples.samples if not s.get("rubric") and _caption(s) is not None]
    if not missing:
        return samples, None
    captions = folder / CAPTIONS_FILE
    write_jsonl_atomic(captions, [{"id": s.id, "caption": _caption(s)} for s in missing])
    cfg = DecomposeConfig(
        captions=captions,
        output=folder / RUBRICS_FILE,
        llm=_llm(decompose),
        domain=decompose.domain,
        max_items=decompose.max_items,
        max_attempts=decompose.max_attempts,
        temperature=decompose.temperature,
        max_tokens=decompose.max_tokens,
        run_dir=folder / RUN_FOLDER,
        use_cache=req.use_cache,
        cache_path=req.cache_path,
        progress=req.progress,
        probe=req.probe,
        prices=req.prices,
        max_calls=req.max_calls,
        max_cost=req.max_cost,
    )
    with hold_run_lock(cfg.folder):
        result = await decompose_async(cfg)
    rubrics = {str(r["id"]): r["rubric"] for r in read_jsonl(cfg.output).records if "id" in r}
    given = [
        dataclasses.replace(s, fields={**s.fields, "rubric": rubrics[s.id]}) if s.id in rubrics else s
        for s in samples.samples
    ]
    return dataclasses.replace(samples, samples=given), result


async def with_rubrics_async(req: EvalRequest) -> tuple[EvalRequest, list[DecomposeResult]]:
    """The request with the samples of every benchmark with `source.decompose` loaded and
    given their rubrics (`PreparedInputs.samples`), and the decompositions made; unchanged
    otherwise."""
    run_dir = req.output_dir or default_output_dir(req)
    given = req.inputs.samples
    sets: dict[str, SampleSet] = {}
    results = []
    for ref in req.benchmarks:
        spec, where = resolve_benchmark(ref, task=req.task, as_task=req.as_task, language=req.language)
        if spec.source.decompose is None or spec.name in given or spec.name in sets:
            continue
        samples = load_samples(spec, where, root=req.data_root, limit=req.limit)
        sets[spec.name], result = await _decomposed(spec, samples, run_dir / spec.name, req)
        if result is not None:
            results.append(result)
    if not sets:
        return req, results
    return dataclasses.replace(req, output_dir=run_dir, prepared=req.inputs.with_samples(sets)), results


def with_rubrics(req: EvalRequest) -> tuple[EvalRequest, list[DecomposeResult]]:
    return asyncio.run(with_rubrics_async(req))


def rubric_counts(results: list[DecomposeResult]) -> str | None:
    """One line on the rubrics made before the run, for the printout."""
    if not results:
        return None
    made = sum(r.counts.get("decomposed", 0) for r in results)
    failed = sum(r.counts.get("failed", 0) for r in results)
    files = ", ".join(str(r.output) for r in results)
    return f"rubrics decomposed from captions: {made}, failed: {failed} ({files})"
