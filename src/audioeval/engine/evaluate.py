"""`audioeval run`: every benchmark × model, resumable, with summaries and a leaderboard.

Benchmarks are resolved and their samples loaded first, so a bad spec fails before any
model starts. Each model's adapter starts once and serves every benchmark, with at most
`max_concurrency` requests in flight. Records are appended as samples finish (a judged
pair admits its samples while the judge has room: `run_judge.py`); a benchmark's own files
are exported from them at the end (`exports.py`). A rerun skips every sample whose latest
valid record succeeded with the same prompt, and retries the failed ones. A rerun whose
settings or inputs differ is refused (`pair_signature.py`); stored lines that are not valid
records are ignored and reported (`store/records.py`).
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import time
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from audioeval.adapters.base import GenerationConfig, ModelAdapter
from audioeval.adapters.predictions import PredictionsFile
from audioeval.benchmarks.prepared import PreparedInputs
from audioeval.benchmarks.registry import resolve_benchmark
from audioeval.benchmarks.resolved import ResolvedBenchmark, resolve, with_judge_prompt, with_profile
from audioeval.benchmarks.sources.loader import SampleSet, load_samples
from audioeval.benchmarks.spec import BenchmarkSpec
from audioeval.core.errors import BudgetReached, EndpointsUnreachable, InputError, RunConfigError, RunStopped
from audioeval.core.json_value import JsonValue
from audioeval.core.names import check_name, folder_collisions
from audioeval.core.prices import PriceTable
from audioeval.core.record import RecordJson, SampleRecord, latest_records
from audioeval.core.settings import DEFAULTS
from audioeval.core.version import __version__
from audioeval.engine.endpoint_probe import check_endpoints
from audioeval.engine.exports import ExportSettings, export_pairs
from audioeval.engine.generation_settings import check_routed_settings, pair_generation
from audioeval.engine.model_factory import build_adapter, build_predictions
from audioeval.engine.model_specs import ModelConfig
from audioeval.engine.openai_model import OpenAIChatModel
from audioeval.engine.pair_signature import (
    changed_samples,
    pair_signature,
    sample_digests,
    without_input_files,
)
from audioeval.engine.realtime_model import RealtimeModel
from audioeval.engine.run_budget import RESUME, current_budget, using
from audioeval.engine.run_costs import PairCosts, pair_costs, priced_as, run_budget
from audioeval.engine.run_judge import JudgeSettings, JudgeWork, RunJudge, SampleJudge
from audioeval.engine.run_layout import (
    CACHE_FILE,
    IDS_FILE,
    MODEL_SKIPPED_FILE,
    RECORDS_FILE,
    RUN_FILE,
    default_run_dir,
    pair_dir,
)
from audioeval.engine.run_summary import RunSummary, write_run_summary
from audioeval.engine.sample_pipeline import PairContext, build_messages, messages_digest, run_sample
from audioeval.metrics.pair_summary import summarise_records
from audioeval.metrics.summary_blocks import PairSummary
from audioeval.scoring.hook_guard import call_hook
from audioeval.scoring.judged import is_judged
from audioeval.scoring.speech_models.runtime import throughput_report, throughput_since
from audioeval.store.atomic import write_json_atomic
from audioeval.store.bounded_json import loads
from audioeval.store.jsonl import JsonlAppender
from audioeval.store.records import record_problem
from audioeval.store.response_cache import ResponseCache
from audioeval.store.run_folder import (
    PARTIAL_FILE,
    STAMP_KEY,
    PairFiles,
    RunFile,
    RunFolderError,
    new_run_id,
    pair_stamp,
    read_pair,
    read_run_file,
    run_id_of,
)
from audioeval.store.run_lock import hold_run_lock
from audioeval.store.run_summaries import FILES_DIGEST_KEY, pair_files_digest, sealed
from audioeval.store.signature import check_or_write_signature

NOTHING_PREPARED = PreparedInputs()


@dataclass
class EvalRequest:
    benchmarks: list[str]
    models: list[ModelConfig]
    output_dir: Path | None = DEFAULTS["output_dir"]
    task: str | None = None
    as_task: bool = False  # re-task registered benchmarks to `task` (the codec command)
    language: str | None = None  # an ad-hoc manifest's language (WER or CER, the normaliser)
    # Scoring profile of every benchmark's wer/cer scorers ("ultraeval"); None: each spec's own.
    profile: str | None = None
    # A prompt template file for every judged scorer (`--judge-prompt`); None: each scorer's own.
    judge_prompt: Path | None = DEFAULTS["judge_prompt"]
    limit: int | None = DEFAULTS["limit"]
    data_root: Path | None = DEFAULTS["data_root"]
    generation: GenerationConfig = field(default_factory=GenerationConfig)
    # the shared settings' declared defaults (core/settings.py)
    resamples: int = DEFAULTS["resamples"]
    seed: int = DEFAULTS["seed"]
    progress: bool = DEFAULTS["progress"]
    use_cache: bool = not DEFAULTS["no_cache"]
    console: Console | None = None
    # Benchmarks built in code, as (spec, where), run after those named in `benchmarks`.
    specs: list[tuple[BenchmarkSpec, str]] = field(default_factory=list)
    # Rate audio is resampled to before it is sent to OpenAI-compatible models (0: the
    # native rate; None: the adapter's default, 16 kHz).
    sample_rate: int | None = None
    # The judge of judged scorers (task audio_edit / MMAE); its settings join their pairs' signatures.
    judge: JudgeSettings | None = None
    # Leave samples without a usable output out of the metrics (they are counted either way).
    exclude_missing: bool = DEFAULTS["exclude_missing"]
    # Check each model and judge endpoint once before asking anything (endpoint_probe.py).
    probe: bool = not DEFAULTS["no_probe"]
    # The response cache file (default: response_cache.sqlite in the run directory).
    cache_path: Path | None = None
    # What a caller read and checked before the run (a preset's samples, whether a changed
    # sample is scored again, what the exporter is told, where one pair's exports go):
    # `benchmarks/prepared.py`; None: each benchmark's source is read, as for `audioeval run`.
    prepared: PreparedInputs | None = None
    # What requests cost (`--prices`: `core/prices.py`); None: costs are not computed.
    prices: PriceTable | None = None
    # Stop once this many requests were made, or this many dollars spent, by this command
    # (`engine/run_budget.py`; exit 7, a rerun resumes); None: no limit.
    max_calls: int | None = None
    max_cost: float | None = None

    @property
    def inputs(self) -> PreparedInputs:
        """The prepared inputs (none given: nothing prepared)."""
        return self.prepared if self.prepared is not None else NOTHING_PREPARED


@dataclass
class PairRun:
    bench: ResolvedBenchmark
    model: ModelConfig
    folder: Path
    todo: list[Any]
    done: int
    ids: list[str]
    sample_hashes: dict[str, str] = field(default_factory=dict)
    ignored: list[str] = field(default_factory=list)  # stored lines not trusted, and why
    stored: int = 0  # valid records there before this run
    records: list[SampleRecord] | None = None  # the valid records once the pair is done (read once)
    # The valid records as written, kept while the pair runs (the stored ones, then each one
    # appended): `final_records` without reading the file back. None: read it back (a line
    # was redacted or failed the read-back check, so memory may differ from the file).
    kept: list[SampleRecord] | None = None
    model_skipped: list[InputError] = field(default_factory=list)  # the model's items that answer no sample
    summary: PairSummary = field(default_factory=lambda: PairSummary())  # the pair's summary.json, once written
    stamp: str | None = None  # what each record line it appends carries (`store/run_folder.py`)
    run_id: str | None = None  # the run's id (None: a folder written before run ids)

    def final_records(self) -> list[SampleRecord]:
        """The pair's valid records, read once after its samples are done (summary, exports);
        the kept ones when every line written holds its record as kept (the same records:
        tests/test_streamed_records.py)."""
        if self.records is None:
            kept = self.kept
            self.records = kept if kept is not None else self._read_back()
            self.kept = None
        return self.records

    def _read_back(self) -> list[SampleRecord]:
        """The pair's records as the checked reader vouches for them (its lines as written)."""
        return read_pair(self.folder, self.run_id, expected_ids=self.ids).records

    def keep(self, record: SampleRecord, written: RecordJson, exact: bool) -> None:
        """Keep a record just appended (`written`: its line's object; `exact`: the line holds
        it unredacted); one that the read-back would check otherwise stops the keeping."""
        if self.kept is not None:
            if exact and record_problem(written) is None:
                self.kept.append(record)
            else:
                self.kept = None


@dataclass
class EvalResult:
    run_dir: Path
    results: list[PairSummary]  # every pair's summary, as the run's summary.json holds them
    skipped: dict[str, list[InputError]]
    asked: int
    reused: int
    calls: int = 0  # HTTP calls made to models, retries included (OpenAI-compatible models)
    cache_hits: int = 0  # answers taken from the response cache
    judge_calls: int = 0  # HTTP calls made to the judge, retries included
    # Work of the embedded metric models (ASR, DNSMOS, SIM, PESQ/STOI) in this run, by model:
    # calls, audio seconds, busy seconds, × real time.
    metric_models: dict[str, dict[str, float | int]] = field(default_factory=dict)
    ignored_lines: list[str] = field(default_factory=list)  # stored records not trusted, and why
    judge_work: JudgeWork | None = None  # what the judge did (None: no judge was needed)
    work_s: float = 0.0  # seconds spent asking the models and the judge
    exports: dict[Path, Any] = field(default_factory=dict)  # what each benchmark exporter returned
    # Items of a model's own input that answer no sample (a predictions file's unknown ids,
    # its unreadable items), by pair: reported, not samples, so not failed work.
    model_skipped: dict[str, list[InputError]] = field(default_factory=dict)
    summary: RunSummary | None = None  # what the run's summary.json holds
    # How each predictions file was read: format (named or the one it matches), answer key,
    # matching rule (as its signature records them), one line per file.
    readings: list[str] = field(default_factory=list)
    # Each model left out of some benchmarks given (it serves none of their tasks), one line
    # per model: what it serves and the benchmarks it was not run on; never silently absent.
    unpaired: list[str] = field(default_factory=list)


def _resolve_all(req: EvalRequest) -> list[ResolvedBenchmark]:
    out: list[ResolvedBenchmark] = []
    for ref in req.benchmarks:
        spec, where = resolve_benchmark(ref, task=req.task, as_task=req.as_task, language=req.language)
        out.append(_resolve_one(spec, where, req))
    out.extend(_resolve_one(spec, where, req) for spec, where in req.specs)
    if req.judge_prompt is not None and not any(needs_judge(b) for b in out):
        raise InputError("no benchmark of this run is scored by a judge", field="--judge-prompt")
    names = [b.name for b in out]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise InputError(f"benchmark(s) named twice: {', '.join(dupes)}", field="benchmark")
    return out


def _resolve_one(spec: BenchmarkSpec, where: str, req: EvalRequest) -> ResolvedBenchmark:
    return resolve(with_judge_prompt(with_profile(spec, req.profile), req.judge_prompt, where), where)


def needs_judge(bench: ResolvedBenchmark) -> bool:
    return any(is_judged(s) for s in bench.scorers)


def _check_judge(benches: list[ResolvedBenchmark], judge: JudgeSettings | None) -> None:
    judged = [b.name for b in benches if needs_judge(b)]
    if judged and judge is None:
        raise InputError(
            f"benchmark(s) {', '.join(judged)} are scored by a judge: give --judge URL[,URL] "
            "and --judge-model NAME (or `judge:` in the run config)",
            field="judge",
        )


def _check_models(models: list[ModelConfig]) -> None:
    if not models:
        raise InputError("no model given", field="model")
    for m in models:  # a model built without validation (the Python API) passes here too
        check_name(m.name, field="model")
    clashes = folder_collisions([m.name for m in models])
    if clashes:
        raise InputError(
            f"models: {'; '.join(clashes)}; give each a distinct system name (NAME=SPEC)", field="model"
        )


def _nothing_served(benches: list[ResolvedBenchmark], models: list[ModelConfig], adapters: dict) -> str:
    """No pair: what each given model serves, and what each benchmark's task needs."""
    served = "; ".join(
        f"{m.name} serves {', '.join(sorted(tasks)) if (tasks := adapters[m.slug].tasks) else 'every task'}"
        for m in models
    )
    needed = "; ".join(f"{b.name} needs task {b.spec.task}" for b in benches)
    return f"no model serves the task of any benchmark given: {served}; {needed}"


def _check_served(
    benches: list[ResolvedBenchmark], models: list[ModelConfig], adapters: Mapping[str, ModelAdapter]
) -> None:
    """Every model given serves a benchmark given: one that serves none is an error naming
    it, what it serves and what the benchmarks need, never a model silently absent from the
    board. (A model serving some of them is paired with those.)"""
    for m in models:
        adapter = adapters.get(m.slug)
        if adapter is None or any(serves(adapter, b.spec.task) for b in benches):
            continue
        tasks = sorted(adapter.tasks or ())
        needed = "; ".join(f"{b.name} needs task {b.spec.task}" for b in benches)
        how = f" ({adapter.describe()})" if isinstance(adapter, PredictionsFile) else ""
        raise InputError(
            f"model {m.name} serves no benchmark given: it serves {', '.join(tasks)}{how}; {needed}",
            field="model",
        )


def _unpaired(
    benches: list[ResolvedBenchmark], models: list[ModelConfig], adapters: Mapping[str, ModelAdapter]
) -> list[str]:
    """One line per model not run on some benchmarks given, naming them and what it serves."""
    lines = []
    for m in models:
        left = [b.name for b in benches if not serves(adapters[m.slug], b.spec.task)]
        if left:
            tasks = ", ".join(sorted(adapters[m.slug].tasks or ()))
            lines.append(f"{m.name} is not run on {', '.join(left)}: it serves {tasks} only")
    return lines


def serves(adapter: ModelAdapter, task: str) -> bool:
    """Whether the adapter takes samples of this task (`tasks` None: every task)."""
    return adapter.tasks is None or task in adapter.tasks


def _template_override(model: ModelConfig, bench: ResolvedBenchmark) -> str | None:
    return model.prompts.get(bench.name) or model.prompts.get(bench.spec.task)


StoredByFolder = dict[Path, PairFiles]


Digests = dict[int, dict[str, str]]


PendingByFolder = dict[Path, tuple[list[Any], int]]
"""Each pair's (samples to ask, samples done), worked out once per run: the endpoint check
needs it to know what is asked, the plan then takes it (a done sample's prompt is built to
compare its digest, so working it out twice built every prompt twice on a rerun)."""


def _digests(samples: SampleSet, memo: Digests) -> dict[str, str]:
    """`sample_digests` of a sample set, computed once per run (probe, then plan)."""
    if id(samples) not in memo:
        memo[id(samples)] = sample_digests(samples.samples)
    return memo[id(samples)]


def _stored(folder: Path, cache: StoredByFolder, run_id: str | None, samples: SampleSet) -> PairFiles:
    """A pair's stored records before the run, read once (endpoint check, then plan) through
    the run folder's checked reader: lines it cannot vouch for are listed and their samples
    asked again; files it cannot use (a records path that is a folder, a signature deleted or
    damaged beside records) refuse the run with the list."""
    if folder not in cache:
        found = read_pair(folder, run_id, expected_ids=[s.id for s in samples.samples])
        if found.refused:
            raise RunFolderError(found.refused, _RESTART_HINT)
        cache[folder] = found
    return cache[folder]


_RESTART_HINT = "Delete the pair's folder named to compute it again, or use a new --output_dir"


def _plan_pair(
    run_dir: Path,
    bench: ResolvedBenchmark,
    samples: SampleSet,
    model: ModelConfig,
    adapter: ModelAdapter,
    req: EvalRequest,
    cache: StoredByFolder,
    digests: Digests | None = None,
    pending: PendingByFolder | None = None,
    run_id: str | None = None,
) -> PairRun:
    folder = pair_dir(run_dir, bench.name, model.slug)
    stored = _stored(folder, cache, run_id, samples)
    folder.mkdir(parents=True, exist_ok=True)
    template = _template_override(model, bench)
    signature = pair_signature(
        bench,
        adapter,
        generation=pair_generation(bench.spec.task, bench.spec.generation, req.generation).to_record(),
        prompt_override=template,
        judge=req.judge.signature() if needs_judge(bench) and req.judge is not None else None,
        source_sha256=samples.source_sha256,
    )
    if req.inputs.rescore_changed_samples:
        signature = without_input_files(signature)
    check_or_write_signature(folder, signature)
    hashes = _digests(samples, {} if digests is None else digests)
    latest = latest_records(stored.records)
    refusal = changed_samples(list(latest.values()), hashes, folder / RECORDS_FILE)
    if refusal is not None and not req.inputs.rescore_changed_samples:
        raise refusal
    ids = [s.id for s in samples.samples]
    write_json_atomic(folder / IDS_FILE, ids)
    known = None if pending is None else pending.pop(folder, None)
    todo, done = known or _pending(
        latest, bench, samples, template, hashes if req.inputs.rescore_changed_samples else None
    )
    model_skipped = _write_model_skipped(folder, adapter, ids, samples.skipped)
    return PairRun(
        bench,
        model,
        folder,
        todo,
        done,
        ids,
        hashes,
        stored.ignored,
        len(stored.records),
        model_skipped=model_skipped,
        kept=list(stored.records),
        stamp=pair_stamp(run_id, loads(json.dumps(signature))),  # as signature.json holds it
        run_id=run_id,
    )


def _write_model_skipped(
    folder: Path, adapter: ModelAdapter, ids: list[str], skipped: list[InputError]
) -> list[InputError]:
    """The items of a model's own input that answer no sample (e.g. of a predictions file)."""
    known = set(ids) | {e.sample_id for e in skipped if e.sample_id}
    errors = adapter.input_errors(set(ids), known)
    if errors is None:  # the model reads no input of its own
        return []
    write_json_atomic(folder / MODEL_SKIPPED_FILE, [e.as_record() for e in errors])
    return errors


def _pending(
    latest: dict[str, SampleRecord],
    bench: ResolvedBenchmark,
    samples: SampleSet,
    template: str | None,
    hashes: dict[str, str] | None = None,
) -> tuple[list[Any], int]:
    """(samples still to ask, samples finished) of one pair, from its latest records; with
    `hashes`, a record of other sample contents is not finished work."""
    todo, done = [], 0
    for sample in samples.samples:
        rec = latest.get(sample.id)
        if hashes is not None and rec is not None and rec.sample_sha256 != hashes.get(sample.id):
            rec = None
        if rec is not None and rec.ok:
            try:
                digest = messages_digest(build_messages(bench, sample, template))
            except InputError:
                digest = None
            if digest == rec.prompt_hash:
                done += 1
                continue
        todo.append(sample)
    return todo, done


async def _run_pair(
    pair: PairRun,
    adapter: ModelAdapter,
    sem: asyncio.Semaphore,
    req: EvalRequest,
    progress: Progress,
    judge: RunJudge | None = None,
) -> None:
    if not pair.todo:
        return
    # The description is read as Rich markup: names are escaped so `[/]` prints as written.
    bar = progress.add_task(escape(f"{pair.bench.name} · {pair.model.name}"), total=len(pair.todo))
    ctx = PairContext(
        pair.bench,
        adapter,
        sem,
        pair_generation(pair.bench.spec.task, pair.bench.spec.generation, req.generation),
        _template_override(pair.model, pair.bench),
        pair.folder / "audio",
        judge.generate if judge is not None and needs_judge(pair.bench) else None,
        pair.sample_hashes,
    )
    writer = JsonlAppender(pair.folder / RECORDS_FILE)

    async def one(sample: Any, sample_ctx: PairContext) -> None:
        try:
            record = await run_sample(sample_ctx, sample)
        except BudgetReached:
            return  # no request may start: the sample is not recorded, a rerun asks it
        if isinstance(sample_ctx.judge, SampleJudge):
            await sample_ctx.judge.settled()  # calls still in flight when its judging was cut short
            record.judge_usage = sample_ctx.judge.usage
        if judge is not None and judge.crash is not None:
            raise judge.crash  # a bug in the judge client stops the run; nothing is recorded
        record.time = round(time.time(), 3)
        written = record.to_json()
        if pair.stamp is not None:
            written[STAMP_KEY] = pair.stamp
        pair.keep(record, written, writer.append(written))
        if req.progress:  # a disabled bar still takes Rich's lock on every advance
            progress.advance(bar)

    try:
        if judge is not None and ctx.judge is not None:
            await _admit_judged(pair.todo, ctx, judge, one)
        else:
            await _in_workers(pair.todo, max(1, min(adapter.max_concurrency * 2, len(pair.todo))), ctx, one)
    finally:
        writer.close()


SampleJob = Callable[[Any, PairContext], Awaitable[None]]


async def _in_workers(samples: list[Any], workers: int, ctx: PairContext, one: SampleJob) -> None:
    queue: asyncio.Queue[Any] = asyncio.Queue()
    for sample in samples:
        queue.put_nowait(sample)

    async def worker() -> None:
        while not queue.empty():
            await one(queue.get_nowait(), ctx)

    tasks = [asyncio.create_task(worker()) for _ in range(workers)]
    try:
        await asyncio.gather(*tasks)
    finally:  # one worker raised (the run stops): the others stop too, nothing left running
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def _planned_calls(bench: ResolvedBenchmark, sample: Any) -> int:
    """Judge calls a sample is expected to make (what it reserves of the judge's load)."""
    total = 0
    for scorer in bench.scorers:
        if is_judged(scorer):
            total += call_hook(scorer, "planned_calls", sample)
    return max(1, total)


async def _admit_judged(samples: list[Any], ctx: PairContext, judge: RunJudge, one: SampleJob) -> None:
    """Start each sample while the judge's load is below its admission limit (`run_judge.py`);
    the first sample that fails with an exception stops the admission and the pair."""
    live: set[asyncio.Task[None]] = set()
    failures: list[BaseException] = []

    def finished(task: asyncio.Task[None]) -> None:
        live.discard(task)
        if not task.cancelled() and task.exception() is not None and not failures:
            failures.append(task.exception())  # type: ignore[arg-type]
            judge.wake()

    async def judged(sample: Any, sample_judge: SampleJudge) -> None:
        try:
            await one(sample, replace(ctx, judge=sample_judge))
        finally:
            sample_judge.release()

    try:
        for sample in samples:
            while not judge.has_room() and not failures:
                await judge.room_changed()
            if failures or judge.crash is not None:
                break
            task = asyncio.create_task(judged(sample, judge.for_sample(_planned_calls(ctx.bench, sample))))
            live.add(task)
            task.add_done_callback(finished)
        pending = set(live)
        while pending and not failures:
            _, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_EXCEPTION)
        if failures or judge.crash is not None:
            raise failures[0] if failures else judge.crash  # type: ignore[misc]
    finally:
        for task in list(live):
            task.cancel()


async def evaluate_async(req: EvalRequest) -> EvalResult:
    _check_models(req.models)
    benches = _resolve_all(req)
    _check_judge(benches, req.judge)
    sample_sets = {
        b.name: req.inputs.samples.get(b.name)
        or load_samples(b.spec, b.where, root=req.data_root, limit=req.limit)
        for b in benches
    }
    read_now = {m.slug: build_predictions(m) for m in req.models if m.type == "predictions"}
    _check_served(benches, req.models, read_now)  # files produced elsewhere: before anything is written
    for predictions in read_now.values():  # outputs without ids find their samples
        for b in benches:
            if serves(predictions, b.spec.task):
                predictions.match(b.name, sample_sets[b.name].samples)
    run_dir = req.output_dir or default_output_dir(req)
    run_dir.mkdir(parents=True, exist_ok=True)
    written = (run_dir / RUN_FILE).exists() or (run_dir / PARTIAL_FILE).exists()
    existing = read_run_file(run_dir) if written else None  # the checked reader (refuses an unfinished rescore)
    run_id = run_id_of(existing) if existing is not None else new_run_id()  # None: an earlier folder
    cache = ResponseCache(req.cache_path or run_dir / CACHE_FILE) if req.use_cache else None
    adapters = {
        m.slug: read_now.get(m.slug) or build_adapter(m, config=req.generation, cache=cache) for m in req.models
    }
    _check_served(benches, req.models, adapters)
    if req.sample_rate is not None:
        for adapter in adapters.values():
            if isinstance(adapter, OpenAIChatModel):
                adapter.sample_rate = req.sample_rate
    check_routed_settings(
        (
            (b.name, b.spec.task, adapters[m.slug], b.spec.generation)
            for b in benches
            for m in req.models
            if serves(adapters[m.slug], b.spec.task)
        ),
        req.generation,
    )
    started: list[ModelAdapter] = []
    judge: RunJudge | None = None
    work_s = 0.0
    metric_before = throughput_report()
    judge_settings = req.judge
    stored: StoredByFolder = {}
    digests: Digests = {}
    pending: PendingByFolder = {}
    stopped: RunStopped | None = None
    budget = run_budget(req.max_calls, req.max_cost, req.prices, adapters, req.judge)  # checks the prices
    # a command that runs the engine more than once (rubrics decomposed first) holds one budget
    budget = current_budget() or budget
    try:
        if req.probe:  # before anything is written: a corrected command may reuse the folder
            _write_run_file(run_dir, benches, req, adapters, existing, run_id, write=False)  # another run's folder?
            judge_settings = await _check_endpoints(
                run_dir, benches, sample_sets, req, adapters, stored, digests, pending, run_id
            )
        _write_run_file(run_dir, benches, req, adapters, existing, run_id)
        pairs = [
            _plan_pair(
                run_dir, b, sample_sets[b.name], m, adapters[m.slug], req, stored, digests, pending, run_id
            )
            for b in benches
            for m in req.models
            if serves(adapters[m.slug], b.spec.task)
        ]
        if not pairs:
            raise InputError(_nothing_served(benches, req.models, adapters), field="model")
        for name, ss in sample_sets.items():
            write_json_atomic(run_dir / name / "skipped.json", [e.as_record() for e in ss.skipped])
        needed = {p.model.slug for p in pairs if p.todo}
        for slug in needed:
            await adapters[slug].start()
            started.append(adapters[slug])
        if judge_settings is not None and any(needs_judge(p.bench) and p.todo for p in pairs):
            judge = RunJudge(judge_settings, cache)
        sems = {slug: asyncio.Semaphore(a.max_concurrency) for slug, a in adapters.items()}
        progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=req.console,
            disable=not req.progress,
        )
        gc.freeze()  # the loaded samples stay: the collector need not walk them while judging
        started_s = time.perf_counter()
        with progress, using(budget):
            try:
                await _gather_pairs(
                    _run_pair(p, adapters[p.model.slug], sems[p.model.slug], req, progress, judge)
                    for p in pairs
                )
            except EndpointsUnreachable as exc:  # summarise what finished, then stop (exit 3)
                stopped = exc
        if stopped is None and budget is not None and budget.reached is not None:
            stopped = BudgetReached(f"{budget.reached}; {RESUME}")  # summarise, then stop (exit 7)
        work_s = time.perf_counter() - started_s
    finally:
        gc.unfreeze()
        for adapter in started:
            await adapter.aclose()
        if judge is not None:
            await judge.aclose()
        if cache is not None:
            cache.close()
    served = {slug: priced_as(a) for slug, a in adapters.items()}
    costs = pair_costs(req.prices, served, req.judge.model if req.judge is not None else None)
    results = summarise_pairs(run_dir, pairs, req.resamples, req.seed, exclude_missing=req.exclude_missing, costs=costs)
    hits = cache.hits if cache is not None else 0
    work = judge.work() if judge is not None else None
    exports = export_pairs(run_dir, pairs, _export_settings(req, hits, work))
    if stopped is not None:
        raise stopped
    metric_models = throughput_since(metric_before)
    run_summary = write_run_summary(run_dir, results, metric_models=metric_models)  # the one writer of summary.json
    asked = sum(len(p.todo) for p in pairs)
    reused = sum(p.done for p in pairs)
    calls = sum(a.calls for a in adapters.values() if isinstance(a, OpenAIChatModel | RealtimeModel))
    return EvalResult(
        run_dir,
        results,
        {n: s.skipped for n, s in sample_sets.items()},
        asked,
        reused,
        calls,
        hits,
        judge_calls=judge.calls if judge is not None else 0,
        metric_models=metric_models,
        ignored_lines=[line for p in pairs for line in p.ignored],
        judge_work=work,
        work_s=work_s,
        exports=exports,
        model_skipped={f"{p.bench.name} · {p.model.name}": p.model_skipped for p in pairs if p.model_skipped},
        summary=run_summary,
        readings=[a.describe() for a in adapters.values() if isinstance(a, PredictionsFile)],
        unpaired=_unpaired(benches, req.models, adapters),
    )


async def _gather_pairs(jobs: Iterable[Coroutine[Any, Any, None]]) -> None:
    """Run every pair; the first exception cancels the others and is raised once they stopped."""
    tasks = [asyncio.create_task(job) for job in jobs]
    try:
        await asyncio.gather(*tasks)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def _export_settings(req: EvalRequest, cache_hits: int, work: JudgeWork | None) -> ExportSettings:
    info: dict[str, JsonValue] = {
        "audioeval_version": __version__,
        "judge_calls": work.calls if work is not None else 0,
        "cache_hits": cache_hits,
        "endpoints": work.endpoints if work is not None else [],
        "pid": os.getpid(),
        **req.inputs.export_info,
    }
    return ExportSettings(
        req.resamples,
        req.seed,
        req.exclude_missing,
        req.judge.model if req.judge is not None else None,
        req.inputs.exports_dir,
        run_info=info,
    )


async def _check_endpoints(
    run_dir: Path,
    benches: list[ResolvedBenchmark],
    sample_sets: dict[str, SampleSet],
    req: EvalRequest,
    adapters: dict[str, ModelAdapter],
    stored: StoredByFolder,
    digests: Digests | None = None,
    pending: PendingByFolder | None = None,
    run_id: str | None = None,
) -> JudgeSettings | None:
    """Check the endpoints of the OpenAI-compatible models and of the judge that have samples
    left to do (a finished run checks nothing); each keeps its usable ones. Returns the judge
    settings with the judge's usable endpoints."""
    asked: set[str] = set()
    judged = False
    for bench in benches:
        for model in req.models:
            adapter = adapters[model.slug]
            if not serves(adapter, bench.spec.task):
                continue
            folder = pair_dir(run_dir, bench.name, model.slug)
            samples = sample_sets[bench.name]
            latest = latest_records(_stored(folder, stored, run_id, samples).records)
            hashes = _digests(samples, {} if digests is None else digests) if req.inputs.rescore_changed_samples else None
            todo, done = _pending(latest, bench, samples, _template_override(model, bench), hashes)
            if pending is not None:
                pending[folder] = (todo, done)
            if todo:
                asked.add(model.slug)
                judged = judged or needs_judge(bench)
    for slug in sorted(asked):
        adapter = adapters[slug]
        if isinstance(adapter, OpenAIChatModel | RealtimeModel):
            await adapter.check_endpoints()
    judge = req.judge
    if judge is None or not judged:
        return judge
    urls = await check_endpoints(
        judge.urls,
        role=judge.role,
        model=judge.model,
        api_key=judge.key(),
        api_key_env=judge.api_key_env,
    )
    return judge.model_copy(update={"urls": urls})


def summarise_pairs(
    run_dir: Path,
    pairs: list[PairRun],
    resamples: int,
    seed: int,
    *,
    exclude_missing: bool = False,
    costs: PairCosts | None = None,
) -> list[PairSummary]:
    """Write each pair's `summary.json`; return them (the run's summary.json is built from them)."""
    results = []
    for pair in pairs:
        s = summarise_records(
            pair.bench.summary_plan(),
            pair.final_records(),
            expected_ids=pair.ids,
            resamples=resamples,
            seed=seed,
            exclude_failed_outputs=exclude_missing,
        )
        if costs is not None:
            s["cost"] = costs(pair, pair.final_records())
        where = {"model": pair.model.name, "folder": str(pair.folder.relative_to(run_dir))}
        s = PairSummary(**where, **pair.bench.summary_header(), **s)  # type: ignore[typeddict-item]
        s[FILES_DIGEST_KEY] = pair_files_digest(pair.folder)  # type: ignore[literal-required]
        write_json_atomic(pair.folder / "summary.json", sealed(s))
        pair.summary = s
        results.append(s)
    return results


def _write_run_file(
    run_dir: Path,
    benches: list[ResolvedBenchmark],
    req: EvalRequest,
    adapters: dict[str, ModelAdapter],
    existing: RunFile | None,
    run_id: str | None,
    *,
    write: bool = True,
) -> None:
    """Refuse a folder holding a run of other benchmarks or models (`existing`: its run.json,
    read through the checked reader); write run.json (`write`) with the run's id."""
    path = run_dir / RUN_FILE
    data: RunFile = {"run_id": run_id} if run_id is not None else {}
    data |= {
        "audioeval": __version__,
        "benchmarks": [
            {"name": b.name, "where": b.where, "spec": b.spec.model_dump(mode="json")} for b in benches
        ],
        "models": [
            {"config": m.model_dump(mode="json"), "signature": adapters[m.slug].signature()}
            for m in req.models
        ],
        "generation": req.generation.to_record(),
        "limit": req.limit,
        "data_root": str(req.data_root) if req.data_root else None,
        "resamples": req.resamples,
        "seed": req.seed,
        "exclude_missing": req.exclude_missing,
    }
    if req.judge is not None:
        data["judge"] = req.judge.model_dump(mode="json")
    if req.prices is not None:
        data["prices"] = req.prices.to_record()  # `rescore` prices with it again
    if req.inputs.exports_dir is not None:
        data["exports_dir"] = os.path.relpath(req.inputs.exports_dir, run_dir)
    if existing is not None:
        # Endpoints, concurrency and timeouts may change between runs; what each benchmark ×
        # model pair was scored with is checked against its own signature.json.
        before = _names(existing)
        now = _names(data)
        if before != now:
            raise RunConfigError(
                f"{path} belongs to a run of benchmarks {sorted(before[0])} and models {sorted(before[1])}, "
                f"not {sorted(now[0])} and {sorted(now[1])}; use another output directory"
            )
    if write:
        write_json_atomic(path, data)


def _names(run: RunFile) -> tuple[set[str], set[str]]:
    benches = {str(b.get("name")) for b in run.get("benchmarks", [])}
    models = {str((m.get("config") or {}).get("name")) for m in run.get("models", [])}
    return benches, models


def default_output_dir(req: EvalRequest) -> Path:
    """`runs/<benchmarks>-<models>-<hash>` (`run_layout.default_run_dir`), the hash taken over
    every setting of the request that moves a number: the models' configurations (endpoints,
    keys and concurrency left out), sampling, limit, profile, judge, judge prompt, language,
    task, sample rate and the missing-output policy."""
    models = [
        m.model_dump(exclude={"urls", "api_key_env", "concurrency", "timeout_s", "workers"})
        for m in req.models
    ]
    judge = (
        req.judge.model_dump(exclude={"urls", "api_key_env", "concurrency", "timeout_s"})
        if req.judge
        else None
    )
    settings = {
        "models": models,
        "generation": req.generation.to_record(),
        "limit": req.limit,
        "profile": req.profile,
        "judge": judge,
        "judge_prompt": str(req.judge_prompt) if req.judge_prompt else None,
        "language": req.language,
        "task": req.task,
        "as_task": req.as_task,
        "sample_rate": req.sample_rate,
        "exclude_missing": req.exclude_missing,
        "specs": [where for _, where in req.specs],
    }
    return default_run_dir(req.benchmarks, [m.name for m in req.models], settings)


def evaluate(req: EvalRequest) -> EvalResult:
    run_dir = req.output_dir or default_output_dir(req)
    with hold_run_lock(run_dir):
        return asyncio.run(evaluate_async(replace(req, output_dir=run_dir)))
