"""`--dry-run`: what a run will ask and roughly cost, worked out before any request and
without writing anything.

The plan reads what the run would read (benchmarks, samples, a model's predictions file, the
records already in the output folder, so a rerun plans only what is left), and counts, per
benchmark × model pair:

- model requests: one per sample still to do, for a model at an API endpoint (a baseline, a
  predictions file or a local runtime makes none);
- judge requests: what each sample's judged scorers plan for their first round (every rubric
  item × vote: the scorers' `planned_calls`, the number the engine's admission reserves);
  retries and re-asked invalid answers come on top;
- audio seconds: the durations of the input clips each request sends (read from the files'
  headers); a judge request is counted with the sample's input clips (for an audio output,
  that much again, as the output is not yet known);
- tokens, roughly: text at `CHARS_PER_TOKEN`, audio at `AUDIO_TOKENS_PER_S` in and out, each
  answer at `ROUGH_ANSWER_TOKENS` (or the run's max_tokens, when lower), each judge prompt's
  text at `ROUGH_JUDGE_PROMPT_TOKENS`.

With a price table the same `Price.cost` as the run's turns the rough usage into dollars
(unknown where a model has no price). The figures are an estimate: the run's own summaries
count what the APIs report.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from audioeval.adapters.base import ModelAdapter
from audioeval.benchmarks.resolved import ResolvedBenchmark
from audioeval.benchmarks.sources.loader import SampleSet, load_samples
from audioeval.core.errors import InputError
from audioeval.core.prices import PriceTable
from audioeval.core.record import latest_records
from audioeval.core.sample import Sample
from audioeval.core.usage import Usage
from audioeval.engine.evaluate import (
    EvalRequest,
    _check_judge,
    _check_models,
    _pending,
    _planned_calls,
    _resolve_all,
    _template_override,
    default_output_dir,
    needs_judge,
    serves,
)
from audioeval.engine.model_factory import build_adapter, build_predictions
from audioeval.engine.run_costs import priced_as
from audioeval.engine.run_layout import RUN_FILE, pair_dir
from audioeval.scoring.runtime_metric import clip_seconds
from audioeval.store.run_folder import read_pair, read_run_file, run_id_of

CHARS_PER_TOKEN = 4
"""Characters of text per token, roughly (English, BPE tokenisers)."""
AUDIO_TOKENS_PER_S = 10
"""Audio tokens per second of audio, in and out, roughly (OpenAI's audio models bill about 10
per second sent; open models range from 6 to 50)."""
ROUGH_ANSWER_TOKENS = 100
"""Tokens of one text answer, roughly (lowered to the run's max_tokens)."""
ROUGH_JUDGE_PROMPT_TOKENS = 500
"""Text tokens of one judge prompt (instructions, rubric, answer), roughly."""


@dataclass
class PairPlan:
    """What one benchmark × model pair will ask."""

    benchmark: str
    model: str
    samples: int  # samples still to do
    done: int  # samples finished before
    model_usage: Usage
    judge_usage: Usage | None = None
    model_cost: float | None = None
    judge_cost: float | None = None


@dataclass
class RunPlan:
    run_dir: Path
    pairs: list[PairPlan] = field(default_factory=list)
    prices: PriceTable | None = None

    @property
    def requests(self) -> int:
        return sum(
            (p.model_usage.calls or 0) + ((p.judge_usage.calls or 0) if p.judge_usage else 0)
            for p in self.pairs
        )


def _seconds(sample: Sample) -> float:
    return sum(clip_seconds(ref, sample.id, name) for name, ref in sample.audio.items())


def _rough(
    calls: int, text_chars: int, audio_s: float, answer_tokens: int, audio_out_s: float = 0.0
) -> Usage:
    audio_in = round(audio_s * AUDIO_TOKENS_PER_S)
    audio_out = round(audio_out_s * AUDIO_TOKENS_PER_S)
    return Usage(
        calls=calls,
        retries=0,
        input_tokens=text_chars // CHARS_PER_TOKEN + audio_in,
        input_audio_tokens=audio_in,
        output_tokens=calls * answer_tokens + audio_out,
        output_audio_tokens=audio_out,
        audio_sent_s=round(audio_s, 3),
        audio_received_s=round(audio_out_s, 3),
        wall_s=None,
    )


def _pair_plan(
    bench: ResolvedBenchmark,
    model: Any,
    adapter: ModelAdapter,
    todo: list[Sample],
    done: int,
    req: EvalRequest,
) -> PairPlan:
    from audioeval.engine.sample_pipeline import build_messages, prompt_text

    asks = priced_as(adapter) is not None
    answer = min(ROUGH_ANSWER_TOKENS, req.generation.max_tokens or ROUGH_ANSWER_TOKENS)
    audio_out = bench.task.output == "audio"
    seconds = {s.id: _seconds(s) for s in todo}
    chars = 0
    for s in todo:
        try:
            chars += len(prompt_text(build_messages(bench, s, _template_override(model, bench))))
        except InputError:
            pass  # the run records it as the sample's failure; nothing is asked
    sent = sum(seconds.values())
    model_usage = _rough(
        len(todo) if asks else 0,
        chars if asks else 0,
        sent if asks else 0.0,
        answer,
        sent if asks and audio_out else 0.0,
    )
    plan = PairPlan(bench.name, model.name, len(todo), done, model_usage)
    if not asks:
        model_usage = Usage.nothing_asked()
        plan.model_usage = model_usage
    prices = req.prices
    if prices is not None:
        plan.model_cost = prices.cost(priced_as(adapter), model_usage) if asks else 0.0
    if needs_judge(bench):
        calls = {s.id: _planned_calls(bench, s) for s in todo}
        judge_audio = sum(calls[i] * seconds[i] * (2 if audio_out else 1) for i in calls)
        n = sum(calls.values())
        judge_answer = min(
            ROUGH_ANSWER_TOKENS, (req.judge.max_tokens if req.judge else None) or ROUGH_ANSWER_TOKENS
        )
        plan.judge_usage = _rough(
            n, n * ROUGH_JUDGE_PROMPT_TOKENS * CHARS_PER_TOKEN, judge_audio, judge_answer
        )
        if prices is not None and req.judge is not None:
            plan.judge_cost = prices.cost(req.judge.model, plan.judge_usage)
    return plan


def plan_run(req: EvalRequest) -> RunPlan:
    """The plan of `req` (see the module doc): no request, no file written."""
    _check_models(req.models)
    benches = _resolve_all(req)
    _check_judge(benches, req.judge)
    sample_sets: dict[str, SampleSet] = {
        b.name: req.inputs.samples.get(b.name)
        or load_samples(b.spec, b.where, root=req.data_root, limit=req.limit)
        for b in benches
    }
    adapters: Mapping[str, ModelAdapter] = {
        m.slug: build_predictions(m)
        if m.type == "predictions"
        else build_adapter(m, config=req.generation, cache=None)
        for m in req.models
    }
    run_dir = req.output_dir or default_output_dir(req)
    run_id = run_id_of(read_run_file(run_dir)) if (run_dir / RUN_FILE).exists() else None
    plan = RunPlan(run_dir, prices=req.prices)
    for bench in benches:
        samples = sample_sets[bench.name]
        for model in req.models:
            adapter = adapters[model.slug]
            if not serves(adapter, bench.spec.task):
                continue
            folder = pair_dir(run_dir, bench.name, model.slug)
            stored = (
                read_pair(folder, run_id, expected_ids=[s.id for s in samples.samples])
                if folder.exists()
                else None
            )
            latest = latest_records(stored.records) if stored is not None else {}
            todo, done = _pending(latest, bench, samples, _template_override(model, bench))
            plan.pairs.append(_pair_plan(bench, model, adapter, todo, done, req))
    return plan
