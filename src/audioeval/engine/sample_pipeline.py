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
engine's judge `generate` callable; every judge answer is stored in the record's `judge`
(by scorer, whether the judgement succeeded or failed), and rescoring re-aggregates those
answers without calling the judge. The same path hands other scorers the detail of their
earlier score (`Scorer.rescore`, `scoring/scorer_hooks.py`): an ASR scorer reuses its stored
transcript, and any other scorer scores again.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import json
import math
import operator
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from audioeval.adapters.base import GenerationConfig, ModelAdapter, ModelRequest
from audioeval.audio.decode import require_readable_file
from audioeval.benchmarks.resolved import ResolvedBenchmark
from audioeval.core.errors import (
    AudioError,
    AudioevalError,
    BudgetReached,
    InputError,
    NotScorable,
    RunStopped,
)
from audioeval.core.json_value import JsonValue
from audioeval.core.messages import AudioPart, Message, TextPart
from audioeval.core.model_output import ModelOutput
from audioeval.core.record import Answer, FailureKind, SampleRecord
from audioeval.core.sample import Sample
from audioeval.engine.output_gate import gate_output
from audioeval.prompts.templates import RenderedTexts, render
from audioeval.scoring.base import Prediction, Score, Scorer
from audioeval.scoring.failed_output import failed_output_scores
from audioeval.scoring.hook_guard import (
    ScorerHookError,
    hook_error,
    means_are_numbers,
    score_problem,
    scorer_origin,
)
from audioeval.scoring.judged import JudgeFailed, JudgeGenerate, is_judged


def messages_digest(messages: tuple[Message, ...]) -> str:
    """A short hash of what the model is asked (text and audio references)."""
    parts = []
    for m in messages:
        for p in m.parts:
            if isinstance(p, TextPart):
                parts.append([m.role, "text", p.text])
            elif isinstance(p, AudioPart):
                parts.append([m.role, "audio", p.audio.path, p.audio.start, p.audio.end])
    return _digest(parts)


def _digest(parts: list[list[Any]]) -> str:
    return hashlib.sha256(json.dumps(parts, ensure_ascii=False).encode()).hexdigest()[:16]


def prompt_text(messages: tuple[Message, ...]) -> str:
    """The text parts of what the model is asked, one after another (a record's `prompt`)."""
    return "\n".join(p.text for m in messages for p in m.parts if isinstance(p, TextPart))


def prompt_facts(messages: tuple[Message, ...]) -> tuple[str, str]:
    """(`messages_digest`, `prompt_text`) of what the model is asked. Text-only messages are
    worked out once per distinct prompt: both are made of the messages' roles and texts alone,
    by which they are looked up (many samples share a prompt); messages with audio are not
    (clips starting at 0.0 and at -0.0 are equal, yet their digests differ)."""
    pairs: list[Any] = []
    for m in messages:
        for p in m.parts:
            if not isinstance(p, TextPart):
                return messages_digest(messages), prompt_text(messages)
            pairs += (m.role, p.text)
    try:
        return _text_prompt_facts(tuple(pairs))
    except TypeError:  # a text that is not a string
        return messages_digest(messages), prompt_text(messages)


@functools.lru_cache(maxsize=1024)
def _text_prompt_facts(pairs: tuple[str, ...]) -> tuple[str, str]:
    """`prompt_facts` of text-only messages, from their (role, text) of each part in turn."""
    roles, texts = pairs[::2], pairs[1::2]
    parts = [[role, "text", text] for role, text in zip(roles, texts, strict=True)]
    return _digest(parts), "\n".join(texts)


def build_messages(
    bench: ResolvedBenchmark,
    sample: Sample,
    template_name: str | None,
    memo: RenderedTexts | None = None,
) -> tuple[Message, ...]:
    """What the model is asked of `sample`; with `memo` (the pair's), each distinct prompt
    text is rendered once (`prompts/templates.RenderedTexts`: the same texts)."""
    name = sample.get("prompt_template") or template_name
    template = bench.template_for(name)
    variables: dict[str, JsonValue] = {**bench.spec.variables, **sample.fields}
    # The input clip; a TTS / voice-conversion sample has none, and its prompt voice goes instead.
    audio = sample.audio.get("audio") or sample.audio.get("reference_voice")
    return tuple(render(template, variables, audio, sample_id=sample.id, memo=memo))


def _prediction(bench: ResolvedBenchmark, sample: Sample, output: ModelOutput) -> tuple[Prediction, Answer]:
    raw = output.text
    if raw is None:
        answer = Answer(None)
    elif not bench.chain.steps:  # what a chain of no step gives: the text, ok
        answer = Answer(raw)
    else:
        processed = bench.chain(raw, sample)
        answer = Answer(processed.text, processed.outcome, processed.detail)
    prediction = Prediction(text=answer.text, raw=raw, audio_path=output.audio_path, outcome=answer.outcome)
    return prediction, answer


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


def mark_failed_output(bench: ResolvedBenchmark, rec: SampleRecord) -> SampleRecord:
    """A sample without a usable output: the flag, and what it counts for in the headline. A
    scorer whose `failed_output_score` hook raised or gave a wrong value (a NaN, a string
    statistic) gives it nothing: the sample stays counted, out of that scorer's means, and its
    error names the scorer, its package and the hook."""
    rec.output_failed = True
    errors: list[ScorerHookError] = []
    rec.failure_scores = failed_output_scores(bench.scorers, rec.sample, bench.task.output, errors)
    if errors:
        hooks = "; ".join(e.message for e in errors)
        rec.error = f"{rec.error}; {hooks}" if rec.error else hooks
    return rec


def record_unusable_output(
    bench: ResolvedBenchmark, rec: SampleRecord, output: ModelOutput, error: str | None = None
) -> SampleRecord:
    """`rec` as a failed output: the model call failed (`model`), or the output gate refused
    its answer (`no output`, `bad output`: `engine/output_gate.py`)."""
    kind = FailureKind(output.fault.value) if output.fault is not None else FailureKind.MODEL
    rec.failed(error or output.error or "the model returned nothing", kind, output.error_detail)
    return mark_failed_output(bench, rec)


def _record_failure(
    bench: ResolvedBenchmark,
    rec: SampleRecord,
    scorer_name: str,
    exc: Exception,
    output: ModelOutput,
    scorer: Scorer | None = None,
    hook: str = "score",
) -> bool:
    """Record that scorer `scorer_name` raised `exc` on this sample (in its `hook`): the
    sample fails, the run goes on. False for errors of set-up (a missing package or model),
    which stop the run."""
    sample = rec.sample
    if isinstance(exc, JudgeFailed):
        scored = {k: v for k, v in (rec.scores or {}).items() if k != scorer_name}
        part = exc.partial
        scorer = next((s for s in bench.scorers if s.name == scorer_name), None)
        if part is not None and scorer is not None and score_problem(scorer, part) is None:
            scored[scorer_name] = Score(part.values, part.stats)  # the benchmark scores what was judged
        rec.failed(exc.message, FailureKind.JUDGE)
        rec.judge[scorer_name] = exc.detail
        # the scorers that did score keep their scores: the metrics they feed count the sample
        # (`metrics/pair_summary.py`, partly scored), the failed judgement is counted apart
        rec.scores = scored or None
    elif isinstance(exc, InputError):
        err = InputError(exc.message, file=exc.file or sample.source, sample_id=sample.id, field=exc.field)
        rec.failed(
            f"cannot score ({scorer_name}): {err.describe()}", FailureKind.CANNOT_SCORE, err.as_record()
        )
        if _about_output(exc, output):
            mark_failed_output(bench, rec)
    elif isinstance(exc, BudgetReached):
        # the run stops (--max-calls, --max-cost) while the sample is being judged: recorded, so
        # that what its requests used is counted; a rerun judges it again, the answers
        # received coming from the response cache
        rec.failed(f"judge: not finished: {exc}", FailureKind.JUDGE)
    elif isinstance(exc, AudioevalError):
        return False
    else:  # a metric library failing on this sample's audio (PESQ, librosa, onnxruntime, …)
        why = f"{type(exc).__name__}: {exc}"
        if scorer is not None and scorer_origin(scorer) != "audioeval":  # a plugin's scorer: name it
            why = hook_error(scorer, hook, f"raised {why}").message
        where = InputError(why, file=sample.source or None, sample_id=sample.id)
        rec.failed(f"cannot score ({scorer_name}): {where.describe()}", FailureKind.CANNOT_SCORE)
    return True


def _left_out(bench: ResolvedBenchmark, rec: SampleRecord, scorer: Scorer, exc: NotScorable) -> bool:
    """Whether `scorer` leaves this sample out of its own metrics only (kept in the record as a
    score with no value nor statistic, and why), the sample's other scorers scoring it: not
    when the scorer feeds the pair's headline, or is its only scorer, or no scorer declares the
    headline (the sample then fails)."""
    feeders = bench.summary_plan().feeds.get(bench.headline, ())
    if len(bench.scorers) == 1 or not feeders or scorer.name in feeders:
        return False
    assert rec.scores is not None
    rec.scores[scorer.name] = Score({}, {}, {"not_scored": exc.message})
    return True


def _plainly_finite(*blocks: Mapping[str, JsonValue]) -> bool:
    """Whether every value of the blocks is an int, a bool, None, a string or a finite float:
    then `non_finite_field` finds nothing in them, and need not walk them (the common score)."""
    for numbers in blocks:
        for value in numbers.values():
            kind = type(value)
            if kind is float:
                if not math.isfinite(value):
                    return False
            elif not (kind is int or kind is bool or kind is str or value is None):
                return False
    return True


_LIGHT = operator.attrgetter("light")  # `Scorer.light`


def _keep(
    rec: SampleRecord, scorer: Scorer, result: Score, judged: bool | None = None, hook: str = "score"
) -> bool:
    """A scorer's result in the record; a judged scorer's detail (its judge answers) in `judge`
    (`judged`: whether the scorer is judged, when the caller knows).
    False, and the sample failed (`cannot score`, naming the scorer and the field), when the
    result is not a Score or one of its values or statistics is NaN or ±inf: such a number is
    never stored as a score nor averaged."""
    assert rec.scores is not None
    if judged is None:
        judged = is_judged(scorer)
    bad = None
    if not (
        type(result) is Score
        and type(result.values) is dict
        and type(result.stats) is dict
        and _plainly_finite(result.values, result.stats)
        and means_are_numbers(scorer, result.stats)
    ):  # anything but the common plain score: the hook guard's check, naming the hook
        bad = score_problem(scorer, result)
        if bad is not None:
            bad = hook_error(scorer, hook, bad).message
    if bad is not None:
        where = InputError(
            bad, file=rec.sample.source or None, sample_id=rec.sample.id, field=f"scores.{scorer.name}"
        )
        rec.failed(
            f"cannot score ({scorer.name}): {where.describe()}", FailureKind.CANNOT_SCORE, where.as_record()
        )
        if judged and isinstance(result, Score):
            rec.judge[scorer.name] = result.detail
        return False
    if judged:
        rec.judge[scorer.name] = result.detail
        result = Score(result.values, result.stats)
    rec.scores[scorer.name] = result
    return True


def _stored(
    scorer: Scorer, rec: SampleRecord, earlier: Mapping[str, Score] | None, judged: bool
) -> Mapping[str, JsonValue] | None:
    """What an earlier scoring of the sample left `scorer` to score again from: a judged
    scorer's (`judged`) judge answers (`rec.judge`), or the detail of its earlier score
    (`earlier`), which `Scorer.rescore` may reuse; None when nothing is stored."""
    if judged:
        return rec.judge.get(scorer.name)
    if earlier is not None and scorer.name in earlier:
        return earlier[scorer.name].detail
    return None


def score_output(
    bench: ResolvedBenchmark,
    rec: SampleRecord,
    output: ModelOutput,
    earlier: Mapping[str, Score] | None = None,
) -> SampleRecord:
    """`rec` with the processed answer and scores of a successful output, or its failure.

    A judged scorer is not asked again here: it re-aggregates the judge answers stored in
    the record (`rec.judge`), or the sample cannot be scored without a judge. A scorer that
    rescores from its detail is handed that of its score in `earlier` (the record's scores
    before rescoring), and reuses what it kept there while still valid.
    """
    prediction, rec.processed = _prediction(bench, rec.sample, output)
    rec.scores = {}
    for scorer in bench.scorers:
        judged = is_judged(scorer)
        try:
            stored = _stored(scorer, rec, earlier, judged)
            hook = "rescore" if stored is not None else "score"
            if stored is not None:
                result = scorer.rescore(prediction, rec.sample, stored)
            elif judged:
                raise InputError(
                    "no stored judge answers; `audioeval run` with --judge judges it", field="scorers"
                )
            else:
                result = scorer.score(prediction, rec.sample)
        except NotScorable as exc:
            if _left_out(bench, rec, scorer, exc):
                continue
            _record_failure(bench, rec, scorer.name, exc, output)
            return rec
        except Exception as exc:
            if not _record_failure(bench, rec, scorer.name, exc, output, scorer, hook):
                raise
            return rec
        if not _keep(rec, scorer, result, judged, hook):
            return rec
    return rec


async def score_output_async(
    bench: ResolvedBenchmark, rec: SampleRecord, output: ModelOutput, judge: JudgeGenerate | None
) -> SampleRecord:
    """As `score_output`, with judged scorers asking the judge (`judge` None: they cannot)."""
    if not any(map(is_judged, bench.scorers)):
        if all(map(_LIGHT, bench.scorers)):  # microseconds of text work: a thread hop costs more
            return score_output(bench, rec, output)
        return await asyncio.to_thread(score_output, bench, rec, output)
    prediction, rec.processed = await asyncio.to_thread(_prediction, bench, rec.sample, output)
    rec.scores = {}
    for scorer in bench.scorers:
        judged = is_judged(scorer)
        hook = "score_async" if judged else "score"
        try:
            if judged:
                if judge is None:
                    raise InputError("no judge configured (--judge URL --judge-model NAME)", field="scorers")
                result = await scorer.score_async(prediction, rec.sample, judge)
            else:
                result = await asyncio.to_thread(scorer.score, prediction, rec.sample)
        except NotScorable as exc:
            if _left_out(bench, rec, scorer, exc):
                continue
            _record_failure(bench, rec, scorer.name, exc, output)
            return rec
        except Exception as exc:
            if not _record_failure(bench, rec, scorer.name, exc, output, scorer, hook):
                raise
            return rec
        if not _keep(rec, scorer, result, judged, hook):
            return rec
    return rec


def gate_adapter_output(
    adapter: ModelAdapter | None,
    bench: ResolvedBenchmark,
    sample: Sample,
    output: ModelOutput,
    *,
    blank_is_an_answer: bool = False,
) -> ModelOutput:
    """`output` through the output gate (`engine/output_gate.py`) for the benchmark's task;
    `adapter` None: a stored output (rescoring), named by its endpoint. An adapter declares an
    empty text its answer with `blank_is_an_answer` (the `constant` baseline)."""
    name = adapter.name if adapter is not None else output.endpoint or "the stored output"
    blank_ok = blank_is_an_answer or (adapter is not None and adapter.blank_is_an_answer)
    return gate_output(output, bench.task.output, source=name, sample_id=sample.id, blank_is_an_answer=blank_ok)


def _require_readable_inputs(sample: Sample) -> None:
    """AudioError naming the file, the sample and the field of the first unreadable input clip."""
    for name, ref in sample.audio.items():
        require_readable_file(ref.path, sample_id=sample.id, field=name)


def _reads_inputs(ctx: PairContext) -> bool:
    """Whether the engine checks a sample's input clips before asking: not when the loader
    checked them itself, nor for a model that never reads them (a predictions file, a replay:
    its answers are stored, so a text-only copy of a benchmark, clips absent, is scored)."""
    if ctx.bench.loader_checks_inputs:
        return False
    return ctx.adapter.reads_input_audio


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
    prompts: RenderedTexts = field(default_factory=RenderedTexts)  # the pair's rendered prompt texts


async def run_sample(ctx: PairContext, sample: Sample) -> SampleRecord:
    """The record of one sample (always returns; errors are recorded, not raised)."""
    rec = SampleRecord(sample.id, sample, ctx.sample_hashes.get(sample.id))
    try:
        messages = build_messages(ctx.bench, sample, ctx.template_name, ctx.prompts)
    except AudioevalError as exc:
        return rec.failed(f"prompt: {exc}", FailureKind.PROMPT)
    rec.prompt_hash, rec.prompt = prompt_facts(messages)
    audio_out = None
    if ctx.bench.task.output == "audio":
        ctx.audio_dir.mkdir(parents=True, exist_ok=True)
        audio_out = str(ctx.audio_dir / f"{hashlib.sha256(sample.id.encode()).hexdigest()[:16]}.wav")
    try:  # an unreadable input clip fails its sample before any model (a baseline too) is asked
        if sample.audio and _reads_inputs(ctx):
            await asyncio.to_thread(_require_readable_inputs, sample)
    except AudioError as exc:
        return rec.failed(f"input: {exc}", FailureKind.INPUT, exc.as_record())
    spec = ctx.bench.spec
    request = ModelRequest(
        sample, messages, spec.task, ctx.config, audio_out, {"language": spec.language, **spec.variables}
    )
    async with ctx.semaphore:
        try:
            output = await ctx.adapter.generate(request)
        except InputError as exc:
            if _about_input(exc, sample):  # the benchmark's clip is unreadable: not the model's failure
                where = InputError(exc.message, file=exc.file, sample_id=sample.id, field=exc.field)
                return rec.failed(f"input: {exc}", FailureKind.INPUT, where.as_record())
            output = ModelOutput(error=str(exc))
        except RunStopped:
            raise  # the run stops and keeps what finished; not this sample's failure
        except AudioevalError as exc:
            output = ModelOutput(error=str(exc))
        except Exception as exc:  # a library failing on this one sample: its failure, not the run's
            output = ModelOutput(error=f"{type(exc).__name__}: {exc}")
    if audio_out is None or output.error is not None:
        output = gate_adapter_output(ctx.adapter, ctx.bench, sample, output)
    else:  # the output file's header (and a float file's samples) is read: off the event loop
        output = await asyncio.to_thread(gate_adapter_output, ctx.adapter, ctx.bench, sample, output)
    rec.output = output
    if not output.ok:
        return record_unusable_output(ctx.bench, rec, output)
    return await score_output_async(ctx.bench, rec, output, ctx.judge)
