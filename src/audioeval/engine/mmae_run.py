"""Scoring an MMAE predictions file: plan, judge every missing rubric, aggregate, write.

Resume: `results.jsonl` in the output directory holds one line per finished rubric; a rerun
reads it back and judges only what is missing: rubrics never judged and rubrics that failed
(their new line supersedes the old one; the old one stays for the record). Judge answers are also kept in a SQLite
response cache keyed by request content, so a rubric interrupted between votes does not ask
its finished votes again.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from audioeval import __version__
from audioeval.audio.clip_cache import ClipCache
from audioeval.benchmarks.mmae.aggregate import per_sample_row, public_row, taxonomy
from audioeval.benchmarks.mmae.loading import load_metadata, load_predictions
from audioeval.benchmarks.mmae.plan import MmaePlan, MmaeWorkItem, make_plan
from audioeval.benchmarks.mmae.records import is_instruction_following
from audioeval.core.errors import AudioError, InputError
from audioeval.core.messages import AudioRef
from audioeval.engine.cached_judge import CachedJudge
from audioeval.engine.chat_client import ChatClient
from audioeval.engine.endpoint_probe import check_endpoints
from audioeval.engine.progress import JudgeProgress
from audioeval.judge.audio_refs import find_mentions
from audioeval.judge.mcq_prompt import PROMPT_VERSION, attachments, build_judge_messages
from audioeval.judge.rubric_votes import RubricVoting
from audioeval.store.atomic import write_json_atomic
from audioeval.store.jsonl import JsonlAppender, read_jsonl
from audioeval.store.response_cache import ResponseCache
from audioeval.store.signature import check_or_write_signature

RESULTS_FILE = "results.jsonl"


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


@dataclass
class MmaeRunResult:
    output_dir: Path
    taxonomy: dict[str, Any]
    per_sample: list[dict[str, Any]]
    skipped: list[InputError]
    judged_now: int
    reused: int
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


def _done_results(path: Path) -> dict[tuple[str, int], dict[str, Any]]:
    """The latest line of each rubric (a rerun appends a new line for a failed rubric)."""
    report = read_jsonl(path)
    return {(r["id"], int(r["rubric_index"])): r for r in report.records if "id" in r and "rubric_index" in r}


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
                self.skipped.append(exc)
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

        async def attempt(a: int) -> None:
            self._add_load(1)
            try:
                options = voting.options_for(a)
                messages = build_judge_messages(rubric.question, options, clips)
                gen = await self.judge(messages, a, voting.accepts(options))
            finally:
                self._add_load(-1)
            rec = voting.record(a, options, gen)
            self.progress.vote(valid=rec.valid, error=not gen.ok)

        while not voting.done:
            await asyncio.gather(*(attempt(a) for a in voting.next_attempts()))
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
    plan: MmaePlan,
    done: dict[tuple[str, int], dict[str, Any]],
    skipped: list[InputError],
    unreadable: list[InputError],
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Rows of the planned samples whose audio could be read; `skipped` holds every input
    error, counted once per item."""
    skipped_ids = {e.sample_id for e in unreadable}
    n_skipped = len({e.sample_id if e.sample_id else f"#{i}" for i, e in enumerate(skipped)})
    rows = []
    for item in plan.items:
        if item.sample.id in skipped_ids:
            continue
        results = {
            i: done[(item.sample.id, i)]
            for i in range(len(item.sample.rubrics))
            if (item.sample.id, i) in done
        }
        rows.append(per_sample_row(item.sample, results))
    tax = taxonomy(rows, n_skipped=n_skipped, n_resamples=cfg.n_resamples, seed=cfg.seed)
    return rows, tax


def write_outputs(
    output_dir: Path,
    rows: list[dict[str, Any]],
    tax: dict[str, Any],
    skipped: list[InputError],
    extra: dict[str, Any],
) -> None:
    write_json_atomic(output_dir / "per_sample.json", [public_row(r) for r in rows])
    write_json_atomic(output_dir / "taxonomy.json", {**tax, "run": extra})
    write_json_atomic(output_dir / "skipped.json", [e.as_record() for e in skipped])


async def run_mmae_async(cfg: MmaeRunConfig) -> MmaeRunResult:
    audio_root = cfg.audio_root or cfg.predictions.parent
    samples, meta_errors = load_metadata(cfg.metadata)
    preds, pred_errors = load_predictions(cfg.predictions)
    plan = make_plan(
        samples,
        preds,
        audio_root=audio_root,
        metadata_file=str(cfg.metadata),
        predictions_file=str(cfg.predictions),
        rejected_ids=frozenset(e.sample_id for e in meta_errors if e.sample_id),
    )
    results_path = cfg.output_dir / RESULTS_FILE
    done = {k: _summary(r) for k, r in _done_results(results_path).items()}
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
    check_or_write_signature(cfg.output_dir, cfg.signature())
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
    rows, tax = _aggregate(cfg, plan, done, skipped, runner.skipped)
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
    return MmaeRunResult(
        cfg.output_dir,
        tax,
        [public_row(r) for r in rows],
        skipped,
        runner.judged_now,
        reused,
        calls=client.calls,
        judging_s=judging_s,
        cache_hits=cache.hits if cache else 0,
        decodes=clips.decodes,
        encodes=clips.encodes,
        endpoints=extra["endpoints"],
        first_failure=_first_failure(plan, done, skipped),
    )


def run_mmae(cfg: MmaeRunConfig) -> MmaeRunResult:
    return asyncio.run(run_mmae_async(cfg))


def rescore_mmae(
    output_dir: Path, metadata: Path, *, n_resamples: int = 1000, seed: int = 0, reparse: bool = False
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Recompute per-sample and taxonomy files from `results.jsonl`, with no judge call.

    With `reparse`, every stored raw answer is parsed again (e.g. after a parser change).
    """
    from audioeval.judge.rubric_votes import rescore_attempts
    from audioeval.store.signature import read_signature

    sig = read_signature(output_dir)
    samples, _ = load_metadata(metadata)
    done = _done_results(output_dir / RESULTS_FILE)
    if reparse:
        for rec in done.values():
            rec.update(rescore_attempts(rec.get("attempts", []), int(sig.get("votes_needed", 3))))
    rows = []
    for sid, sample in samples.items():
        results = {i: done[(sid, i)] for i in range(len(sample.rubrics)) if (sid, i) in done}
        if results:
            rows.append(per_sample_row(sample, results))
    skipped_file = output_dir / "skipped.json"
    skipped = json.loads(skipped_file.read_text(encoding="utf-8")) if skipped_file.exists() else []
    n_skipped = len({s.get("id") or f"#{i}" for i, s in enumerate(skipped)})
    tax = taxonomy(rows, n_skipped=n_skipped, n_resamples=n_resamples, seed=seed)
    write_json_atomic(output_dir / "per_sample.json", [public_row(r) for r in rows])
    write_json_atomic(output_dir / "taxonomy.json", {**tax, "run": {"rescored": True, "reparsed": reparse}})
    return [public_row(r) for r in rows], tax
