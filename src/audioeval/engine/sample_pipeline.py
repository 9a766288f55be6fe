"""One sample through one model: render the prompt, generate, post-process, score.

The record appended to `records.jsonl` holds the raw output (or its error), the processed
answer, every scorer's values and sufficient statistics, and the taxonomy keys, so that
rescoring and re-aggregating never call the model again. A failed call or a sample that
cannot be scored is recorded with its error and counted as failed, never scored from a guess;
so is a sample on which a metric library fails (PESQ on silence, librosa on odd audio): only
missing packages or models, which every sample would hit alike, stop the run.
When the failure is the system's (the model failed or returned nothing, or its output audio
cannot be read), the record says so (`output_failed`) and holds `failure_scores`: what the
sample counts for in the headline (`scoring/failed_output.py`: a full deletion for WER, wrong
for accuracy, every rubric 0 for MMAE), unless the run excludes failed outputs.

Judged scorers (`scoring/judged.py`, e.g. the MMAE rubric judge) are awaited with the
engine's judge `generate` callable; every judge answer is stored in the record (the score's
`detail`, or `judge` when the judge failed), and rescoring re-aggregates those answers
without calling the judge.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from audioeval.adapters.base import GenerationConfig, ModelAdapter, ModelRequest
from audioeval.benchmarks.resolved import ResolvedBenchmark
from audioeval.core.errors import AudioError, AudioevalError, InputError
from audioeval.core.messages import AudioPart, AudioRef, Message, TextPart
from audioeval.core.model_output import ModelOutput
from audioeval.core.sample import Sample
from audioeval.prompts.templates import render
from audioeval.scoring.base import Prediction, SampleScore
from audioeval.scoring.failed_output import failed_output_scores
from audioeval.scoring.judged import JudgeFailed, JudgeGenerate, is_judged

JUDGED_FIELD = "_judged"
"""Sample field holding the stored judge answers by scorer, set only by `sample_from_record`."""


def messages_digest(messages: tuple[Message, ...]) -> str:
    """A short hash of what the model is asked (text and audio references)."""
    parts = []
    for m in messages:
        for p in m.parts:
            if isinstance(p, TextPart):
                parts.append([m.role, "text", p.text])
            elif isinstance(p, AudioPart):
                parts.append([m.role, "audio", p.audio.path, p.audio.start, p.audio.end])
    return hashlib.sha256(json.dumps(parts, ensure_ascii=False).encode()).hexdigest()[:16]


def build_messages(
    bench: ResolvedBenchmark, sample: Sample, template_name: str | None
) -> tuple[Message, ...]:
    name = sample.get("prompt_template") or template_name
    template = bench.template_for(name)
    variables: dict[str, Any] = {k: v for k, v in {**bench.spec.variables, **sample.fields}.items()}
    # The input clip; a TTS / voice-conversion sample has none, and its prompt voice goes instead.
    audio = sample.audio.get("audio") or sample.audio.get("reference_voice")
    return tuple(render(template, variables, audio, sample_id=sample.id))


def sample_record(sample: Sample) -> dict[str, Any]:
    """What rescoring needs of a sample, stored in its record (no data source needed later)."""
    audio = {k: [a.path, a.start, a.end] for k, a in sample.audio.items()}
    return {"fields": dict(sample.fields), "audio": audio, "source": sample.source}


def sample_from_record(rec: dict[str, Any]) -> Sample:
    stored = rec.get("sample") or {}
    audio = {k: AudioRef(v[0], v[1], v[2]) for k, v in (stored.get("audio") or {}).items()}
    fields = dict(stored.get("fields") or {})
    scores = rec.get("scores") or {}
    judged = {
        name: scores[name].get("detail") or {}
        for name in rec.get("judged_by") or ()
        if isinstance(scores.get(name), dict)
    }
    judged.update(rec.get("judge") or {})
    if judged:  # what judged scorers re-aggregate instead of asking the judge again
        fields[JUDGED_FIELD] = judged
    return Sample(str(rec["id"]), audio, fields, rec.get("taxonomy") or {}, stored.get("source", ""))


def _prediction(
    bench: ResolvedBenchmark, sample: Sample, output: ModelOutput
) -> tuple[Prediction, dict[str, Any]]:
    raw = output.text
    if raw is not None:
        processed = bench.chain(raw, sample)
        text, outcome, detail = processed.text, processed.outcome, processed.detail
    else:
        text, outcome, detail = None, "ok", None
    prediction = Prediction(text=text, raw=raw, audio_path=output.audio_path, outcome=outcome)
    return prediction, {"text": text, "outcome": outcome, "detail": detail}


OUTPUT_FIELDS = ("output", "output.audio_path")


def _about_output(exc: InputError, output: ModelOutput) -> bool:
    """Whether a scoring error is the output's fault: no text or audio, or audio unreadable."""
    if exc.field in OUTPUT_FIELDS:
        return True
    path = output.audio_path
    return (
        isinstance(exc, AudioError)
        and bool(path and exc.file)
        and (os.path.abspath(str(exc.file)) == os.path.abspath(str(path)))
    )


def _about_input(exc: InputError, sample: Sample) -> bool:
    """Whether a model's error is about one of the sample's own input clips (NaN, unreadable)."""
    if not exc.file:
        return False
    where = os.path.abspath(str(exc.file))
    return any(os.path.abspath(a.path) == where for a in sample.audio.values())


def failed_output_fields(bench: ResolvedBenchmark, sample: Sample) -> dict[str, Any]:
    """What a record of a sample without a usable output adds: the flag and its counted scores."""
    return {
        "output_failed": True,
        "failure_scores": failed_output_scores(bench.scorers, sample, bench.task.output),
    }


def _cannot_score(
    bench: ResolvedBenchmark, scorer_name: str, sample: Sample, exc: InputError, output: ModelOutput
) -> dict[str, Any]:
    err = InputError(exc.message, file=exc.file or sample.source, sample_id=sample.id, field=exc.field)
    out = {"error": f"cannot score ({scorer_name}): {err.describe()}", "error_detail": err.as_record()}
    return {**out, **failed_output_fields(bench, sample)} if _about_output(exc, output) else out


def _judge_failed(scorer_name: str, exc: JudgeFailed) -> dict[str, Any]:
    return {"error": exc.message, "judge": {scorer_name: exc.detail}}


def _cannot_compute(scorer_name: str, sample: Sample, exc: Exception) -> dict[str, Any]:
    """A metric library failing on this sample's audio (PESQ, librosa, onnxruntime, …)."""
    where = InputError(f"{type(exc).__name__}: {exc}", file=sample.source or None, sample_id=sample.id)
    return {"error": f"cannot score ({scorer_name}): {where.describe()}"}


def _scorer_failure(
    bench: ResolvedBenchmark, scorer_name: str, sample: Sample, exc: Exception, output: ModelOutput
) -> dict[str, Any] | None:
    """The record of a sample whose scorer raised `exc`: that sample fails, the run goes on.
    None for errors of set-up (a missing package or model), which stop the run."""
    if isinstance(exc, JudgeFailed):
        return _judge_failed(scorer_name, exc)
    if isinstance(exc, InputError):
        return _cannot_score(bench, scorer_name, sample, exc, output)
    if isinstance(exc, AudioevalError):
        return None
    return _cannot_compute(scorer_name, sample, exc)


def _score_entry(result: SampleScore) -> dict[str, Any]:
    return {"values": result.values, "stats": result.stats, "detail": result.detail}


def score_output(bench: ResolvedBenchmark, sample: Sample, output: ModelOutput) -> dict[str, Any]:
    """`processed` and `scores` of a successful output; an `error` when it cannot be scored.

    A judged scorer is not asked again here: it re-aggregates the judge answers stored in
    the record (`sample_from_record`), or the sample cannot be scored without a judge.
    """
    prediction, processed = _prediction(bench, sample, output)
    stored = sample.fields.get(JUDGED_FIELD) or {}
    scores: dict[str, Any] = {}
    for scorer in bench.scorers:
        try:
            if is_judged(scorer):
                if scorer.name not in stored:
                    raise InputError(
                        "no stored judge answers; `audioeval run` with --judge judges it", field="scorers"
                    )
                result = scorer.rescore(prediction, sample, stored[scorer.name])  # type: ignore[attr-defined]
            else:
                result = scorer.score(prediction, sample)
        except Exception as exc:
            failure = _scorer_failure(bench, scorer.name, sample, exc, output)
            if failure is None:
                raise
            return failure
        scores[scorer.name] = _score_entry(result)
    return {"processed": processed, "scores": scores}


async def score_output_async(
    bench: ResolvedBenchmark, sample: Sample, output: ModelOutput, judge: JudgeGenerate | None
) -> dict[str, Any]:
    """As `score_output`, with judged scorers asking the judge (`judge` None: they cannot)."""
    if not any(is_judged(s) for s in bench.scorers):
        return await asyncio.to_thread(score_output, bench, sample, output)
    prediction, processed = await asyncio.to_thread(_prediction, bench, sample, output)
    scores: dict[str, Any] = {}
    for scorer in bench.scorers:
        try:
            if is_judged(scorer):
                if judge is None:
                    raise InputError("no judge configured (--judge URL --judge-model NAME)", field="scorers")
                result = await scorer.score_async(prediction, sample, judge)  # type: ignore[attr-defined]
            else:
                result = await asyncio.to_thread(scorer.score, prediction, sample)
        except Exception as exc:
            failure = _scorer_failure(bench, scorer.name, sample, exc, output)
            if failure is None:
                raise
            return failure
        scores[scorer.name] = _score_entry(result)
    return {"processed": processed, "scores": scores}


@dataclass
class PairContext:
    """What every sample of one benchmark × model pair shares."""

    bench: ResolvedBenchmark
    adapter: ModelAdapter
    semaphore: asyncio.Semaphore
    config: GenerationConfig
    template_name: str | None
    audio_dir: Path
    judge: JudgeGenerate | None = None  # the judge generate() of judged scorers
    sample_hashes: Mapping[str, str] = field(default_factory=dict)  # content hash of each sample


async def run_sample(ctx: PairContext, sample: Sample) -> dict[str, Any]:
    """The record of one sample (always returns; errors are recorded, not raised)."""
    record: dict[str, Any] = {
        "id": sample.id,
        "taxonomy": dict(sample.taxonomy),
        "sample": sample_record(sample),
        "sample_sha256": ctx.sample_hashes.get(sample.id),
    }
    try:
        messages = build_messages(ctx.bench, sample, ctx.template_name)
    except AudioevalError as exc:
        return {**record, "error": f"prompt: {exc}", "output": None}
    record["prompt_hash"] = messages_digest(messages)
    record["prompt"] = "\n".join(p.text for m in messages for p in m.parts if isinstance(p, TextPart))
    audio_out = None
    if ctx.bench.task.output == "audio":
        ctx.audio_dir.mkdir(parents=True, exist_ok=True)
        audio_out = str(ctx.audio_dir / f"{hashlib.sha256(sample.id.encode()).hexdigest()[:16]}.wav")
    request = ModelRequest(sample, messages, ctx.bench.spec.task, ctx.config, audio_out)
    async with ctx.semaphore:
        try:
            output = await ctx.adapter.generate(request)
        except InputError as exc:
            if _about_input(exc, sample):  # the benchmark's clip is unreadable: not the model's failure
                where = InputError(exc.message, file=exc.file, sample_id=sample.id, field=exc.field)
                return {**record, "error": f"input: {exc}", "error_detail": where.as_record(), "output": None}
            output = ModelOutput(error=str(exc))
        except AudioevalError as exc:
            output = ModelOutput(error=str(exc))
        except Exception as exc:  # a library failing on this one sample: its failure, not the run's
            output = ModelOutput(error=f"{type(exc).__name__}: {exc}")
    record["output"] = output.to_record()
    if not output.ok:
        failed = failed_output_fields(ctx.bench, sample)
        if output.error_detail is not None:
            failed["error_detail"] = output.error_detail
        return {**record, "error": output.error or "the model returned nothing", **failed}
    judged = [s.name for s in ctx.bench.scorers if is_judged(s)]
    if judged:
        record["judged_by"] = judged  # their stored answers are what rescoring re-aggregates
    scored = await score_output_async(ctx.bench, sample, output, ctx.judge)
    return {**record, **scored, "error": scored.get("error")}
