"""Scoring an MMAE predictions file: plan, judge every missing rubric, aggregate, write.

Resume: `results.jsonl` in the output directory holds one line per finished rubric; a rerun
reads it back (each line checked: `benchmarks/mmae/stored_results.py`) and judges only what is
missing: rubrics never judged, rubrics that failed (their new line supersedes the old one; the
old one stays for the record) and rubrics whose line was not valid. The signature holds content
hashes of the predictions, the metadata and every clip read, so a folder is never resumed with
another system's outputs. Judge answers are also kept in a SQLite
response cache keyed by request content, so a rubric interrupted between votes does not ask
its finished votes again.
"""

from __future__ import annotations

import asyncio
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from audioeval import __version__
from audioeval.audio.clip_cache import ClipCache
from audioeval.benchmarks.mmae.aggregate import public_row, taxonomy
from audioeval.benchmarks.mmae.loading import load_metadata, load_predictions
from audioeval.benchmarks.mmae.plan import MmaePlan, MmaeWorkItem, make_plan
from audioeval.benchmarks.mmae.records import MmaeSample, is_instruction_following
from audioeval.benchmarks.mmae.stored_results import read_results
from audioeval.core.errors import AudioError, InputError
from audioeval.core.messages import AudioRef
from audioeval.engine.cached_judge import CachedJudge
from audioeval.engine.chat_client import ChatClient
from audioeval.engine.endpoint_probe import check_endpoints
from audioeval.engine.mmae_outputs import (
    RESULTS_FILE,
    rescore_mmae,
    sample_rows,
    write_failed_outputs,
    write_outputs,
)
from audioeval.engine.progress import JudgeProgress
from audioeval.judge.audio_refs import find_mentions
from audioeval.judge.mcq_prompt import PROMPT_VERSION, attachments, build_judge_messages
from audioeval.judge.rubric_votes import RubricVoting
from audioeval.judge.votes import collect_votes
from audioeval.store.file_digest import audio_digest, file_sha256
from audioeval.store.jsonl import JsonlAppender
from audioeval.store.response_cache import ResponseCache
from audioeval.store.run_lock import hold_run_lock
from audioeval.store.signature import check_or_write_signature

__all__ = ["RESULTS_FILE", "MmaeRunConfig", "MmaeRunResult", "rescore_mmae", "run_mmae", "run_mmae_async"]


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

    def signature(self) -> dict[str, Any]:
        """Every choice that moves a number; endpoints, concurrency and timeouts do not."""
        return {
            "benchmark": "mmae",
            "judge_model": self.model,
            "prompt_version": PROMPT_VERSION,
            "votes_needed": self.retries,
            "max_attempts": self.max_attempts,
            "majority": "strict majority of valid votes",
            "option_shuffle_seed": self.seed,
            "audio_policy": "slice-clips" if self.slice_clips else "full-clips",
            "audio_part": self.audio_part,
            "judge_sample_rate": self.sample_rate,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "aggregation": "macro over samples; empty axis excluded",
            "metadata": str(self.metadata.resolve()),
        }

    def input_hashes(self, plan: MmaePlan) -> dict[str, Any]:
        """Content hashes of what is judged: predictions, metadata and each clip read."""
        root = self.audio_root or self.predictions.parent
        return {
            "predictions_sha256": file_sha256(self.predictions),
            "metadata_sha256": file_sha256(self.metadata),
            "audio_root": str(root.resolve()),
            "audio_sha256": audio_digest(plan.clip_paths(), root),
        }


@dataclass
class MmaeRunResult:
    output_dir: Path
    taxonomy: dict[str, Any]
    per_sample: list[dict[str, Any]]
    skipped: list[InputError]
    judged_now: int
    reused: int
    failed_outputs: list[InputError] = field(default_factory=list)
    ignored_lines: list[str] = field(default_factory=list)  # stored results not trusted, and why
    calls: int = 0
    judging_s: float = 0.0
    cache_hits: int = 0
    decodes: int = 0
    encodes: int = 0
    endpoints: list[dict[str, object]] = field(default_factory=list)
    first_failure: str | None = None  # the first skipped sample's or failed rubric's reason


def _scored(record: dict[str, Any] | None) -> bool:
    return record is not None and not record.get("failed")


def _summary(record: dict[str, Any]) -> dict[str, Any]:
    """What planning and aggregation read of a result line; the full line is on disk."""
    return {"score": record.get("score"), "failed": record.get("failed"), "failure": record.get("failure")}


def _first_failure(
    plan: MmaePlan, done: dict[tuple[str, int], dict[str, Any]], skipped: list[InputError]
) -> str | None:
    """The reason of the first skipped sample, else of the first failed rubric in plan order."""
    if skipped:
        return skipped[0].describe()
    for item in plan.items:
        for i in range(len(item.sample.rubrics)):
            rec = done.get((item.sample.id, i))
            if rec is not None and rec.get("failed"):
                return f"id {item.sample.id!r}, rubric {i}: {rec.get('failure') or 'failed'}"
    return None


class _Runner:
    def __init__(
        self,
        cfg: MmaeRunConfig,
        plan: MmaePlan,
        done: dict[tuple[str, int], dict[str, Any]],
        writer: JsonlAppender,
        judge: CachedJudge,
        progress: JudgeProgress,
    ) -> None:
        self.cfg = cfg
        self.plan = plan
        self.done = done
        self.writer = writer
        self.judge = judge
        self.progress = progress
        self.clips = judge.clips
        self.skipped: list[InputError] = []
        self.failed_outputs: list[InputError] = []  # edited audio that could not be decoded
        self.judged_now = 0
        self._load = 0  # attempts outstanding, plus those reserved by samples being prepared
        self._room = asyncio.Event()
        self._failure: BaseException | None = None
        self._live: set[asyncio.Task[None]] = set()  # samples being judged

    def _pending(self, item: MmaeWorkItem) -> list[int]:
        """Rubrics without a scored result: never judged, or failed in an earlier run."""
        return [i for i in range(len(item.sample.rubrics)) if not _scored(self.done.get((item.sample.id, i)))]

    async def run(self) -> None:
        """Judge every pending rubric, admitting samples while few attempts are outstanding.

        All the attempts of a sample are launched at once and queue for the client's
        concurrency slots; a new sample is started (its clips encoded, its attempts queued)
        whenever fewer than two slots' worth of attempts are outstanding. So the slots never
        wait for work, while the number of live attempts, encoded clips and coroutines stays
        proportional to the concurrency rather than to the number of samples.
        """
        target = 2 * max(1, self.cfg.concurrency)
        try:
            for item in self.plan.items:
                pending = self._pending(item)
                if not pending:
                    continue
                while self._load >= target and self._failure is None:
                    self._room.clear()
                    await self._room.wait()
                if self._failure is not None:
                    break
                reserved = len(pending) * max(1, self.cfg.retries)
                self._add_load(reserved)
                task = asyncio.create_task(self._sample(item, pending, reserved))
                self._live.add(task)
                task.add_done_callback(self._sample_done)
            if self._failure is None:
                await asyncio.gather(*self._live)
            if self._failure is not None:
                raise self._failure
        finally:
            for t in self._live:
                t.cancel()

    def _sample_done(self, task: asyncio.Task[None]) -> None:
        self._live.discard(task)
        if not task.cancelled() and task.exception() is not None and self._failure is None:
            self._failure = task.exception()
            self._room.set()  # stop admitting new samples

    def _add_load(self, n: int) -> None:
        self._load += n
        if n < 0:
            self._room.set()

    async def _sample(self, item: MmaeWorkItem, pending: list[int], reserved: int) -> None:
        try:
            clips_per_rubric = [
                attachments(
                    find_mentions(item.sample.rubrics[i].question),
                    item.resolve,
                    slice_clips=self.cfg.slice_clips,
                )
                for i in pending
            ]
            refs = {ref for clips in clips_per_rubric for _, ref in clips}
            try:
                await asyncio.to_thread(self._encode_all, item.sample.id, refs)
            except AudioError as exc:
                output = item.clips.get("output")
                (self.failed_outputs if output is not None and exc.file == output else self.skipped).append(
                    AudioError(exc.message, file=exc.file, sample_id=item.sample.id, field=exc.field)
                )
                for _ in pending:
                    self.progress.rubric_done(failed=False)
                return
        finally:
            self._add_load(-reserved)  # from here on, the live attempts count themselves
        await asyncio.gather(
            *(self._rubric(item, i, clips) for i, clips in zip(pending, clips_per_rubric, strict=True))
        )

    def _encode_all(self, sample_id: str, refs: set[AudioRef]) -> None:
        for ref in sorted(refs, key=lambda r: (r.path, r.start or 0.0, r.end or 0.0)):
            self.clips.get(ref, sample_id=sample_id, field=f"audio {ref.path}")

    async def _rubric(self, item: MmaeWorkItem, index: int, clips: list[tuple[str, AudioRef]]) -> None:
        rubric = item.sample.rubrics[index]
        voting = RubricVoting(
            rubric,
            item.sample.id,
            index,
            seed=self.cfg.seed,
            votes_needed=self.cfg.retries,
            max_attempts=self.cfg.max_attempts,
        )

        async def attempt(a: int) -> bool:
            self._add_load(1)
            try:
                options = voting.options_for(a)
                messages = build_judge_messages(rubric.question, options, clips)
                gen = await self.judge(messages, a, voting.accepts(options))
            finally:
                self._add_load(-1)
            rec = voting.record(a, options, gen)
            self.progress.vote(valid=rec.valid, error=not gen.ok)
            return rec.valid

        await collect_votes(attempt, votes_needed=self.cfg.retries, max_attempts=self.cfg.max_attempts)
        outcome = voting.outcome()
        record = {
            "id": item.sample.id,
            "rubric_index": index,
            "category": rubric.category,
            "axis": "IF" if is_instruction_following(rubric.category) else "CR",
            "question": rubric.question,
            "right_choice": rubric.right_choice,
            "judge_model": self.cfg.model,
            **outcome,
        }
        self.writer.append(record)
        self.done[(item.sample.id, index)] = _summary(record)
        self.judged_now += 1
        self.progress.rubric_done(failed=outcome["failed"])


def _aggregate(
    cfg: MmaeRunConfig,
    samples: dict[str, MmaeSample],
    done: dict[tuple[str, int], dict[str, Any]],
    skipped: list[InputError],
    failed_outputs: list[InputError],
    unjudged: list[InputError],
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Rows of every sample judged or without a usable output; `skipped` holds every input
    error, counted once per item; the samples of `unjudged` (input audio missing or
    unreadable) have no row."""
    n_skipped = len({e.sample_id if e.sample_id else f"#{i}" for i, e in enumerate(skipped)})
    leave_out = {e.sample_id for e in unjudged if e.sample_id}
    rows = sample_rows(samples, done, failed_outputs, leave_out=leave_out)
    tax = taxonomy(
        rows,
        n_skipped=n_skipped,
        n_resamples=cfg.n_resamples,
        seed=cfg.seed,
        exclude_failed_outputs=cfg.exclude_missing,
    )
    return rows, tax


async def run_mmae_async(cfg: MmaeRunConfig) -> MmaeRunResult:
    audio_root = cfg.audio_root or cfg.predictions.parent
    samples, meta_errors = load_metadata(cfg.metadata)
    preds, pred_errors = load_predictions(cfg.predictions)
    unread = {e.sample_id: e for e in pred_errors if e.sample_id in samples and e.sample_id not in preds}
    plan = make_plan(
        samples,
        preds,
        audio_root=audio_root,
        metadata_file=str(cfg.metadata),
        predictions_file=str(cfg.predictions),
        rejected_ids=frozenset(e.sample_id for e in meta_errors if e.sample_id),
        prediction_errors=unread,
    )
    pred_errors = [e for e in pred_errors if e.sample_id not in unread]
    inputs = await asyncio.to_thread(cfg.input_hashes, plan)
    results_path = cfg.output_dir / RESULTS_FILE
    stored = read_results(results_path, samples)
    done = {k: _summary(r) for k, r in stored.done.items()}
    reused = sum(
        1 for it in plan.items for i in range(len(it.sample.rubrics)) if _scored(done.get((it.sample.id, i)))
    )
    total_todo = sum(len(it.sample.rubrics) for it in plan.items) - reused

    urls = cfg.base_urls
    if cfg.probe and total_todo > 0:  # before anything is written: a corrected command may reuse the folder
        urls = await check_endpoints(
            urls, role="judge", model=cfg.model, api_key=cfg.api_key, api_key_env=cfg.api_key_env
        )
    cfg.output_dir.mkdir(parents=True, exist_ok=True)
    check_or_write_signature(cfg.output_dir, {**cfg.signature(), **inputs})
    clips = ClipCache(target_rate=cfg.sample_rate)
    cache = ResponseCache(cfg.cache_path or cfg.output_dir / "judge_cache.sqlite") if cfg.use_cache else None
    sampling = {"temperature": cfg.temperature, "max_tokens": cfg.max_tokens}
    client = ChatClient(urls, api_key=cfg.api_key, timeout_s=cfg.timeout, concurrency=cfg.concurrency)
    judge = CachedJudge(
        client,
        clips,
        model=cfg.model,
        style=cfg.audio_part,  # type: ignore[arg-type]
        sampling=sampling,
        cache=cache,
    )
    writer = JsonlAppender(results_path)
    try:
        with JudgeProgress(total_todo, enabled=cfg.progress) as progress:
            runner = _Runner(cfg, plan, done, writer, judge, progress)
            started = time.perf_counter()
            await runner.run()
            judging_s = time.perf_counter() - started
    finally:
        writer.close()
        await client.aclose()
        if cache is not None:
            cache.close()
    skipped = meta_errors + pred_errors + plan.skipped + runner.skipped
    failed_outputs = plan.failed_outputs + runner.failed_outputs
    rows, tax = _aggregate(cfg, samples, done, skipped, failed_outputs, plan.skipped + runner.skipped)
    extra = {
        "audioeval_version": __version__,
        "judged_now": runner.judged_now,
        "reused": reused,
        "judge_calls": client.calls,
        "cache_hits": cache.hits if cache else 0,
        "endpoints": [e.stats() for e in client.pool.endpoints],
        "pid": os.getpid(),
    }
    write_outputs(cfg.output_dir, rows, tax, skipped, extra)
    write_failed_outputs(cfg.output_dir, failed_outputs)
    return MmaeRunResult(
        cfg.output_dir,
        tax,
        [public_row(r) for r in rows],
        skipped,
        runner.judged_now,
        reused,
        failed_outputs=failed_outputs,
        ignored_lines=stored.ignored,
        calls=client.calls,
        judging_s=judging_s,
        cache_hits=cache.hits if cache else 0,
        decodes=clips.decodes,
        encodes=clips.encodes,
        endpoints=extra["endpoints"],
        first_failure=_first_failure(plan, done, skipped),
    )


def run_mmae(cfg: MmaeRunConfig) -> MmaeRunResult:
    with hold_run_lock(cfg.output_dir):
        return asyncio.run(run_mmae_async(cfg))
