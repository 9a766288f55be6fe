"""`mcq predict`: ask a model every MMAR / MMAU question with its audio; write predictions.

Each question is rendered from a YAML prompt template with its choices and audio into an
OpenAI-compatible chat request. Every raw answer (or error) is appended to
`raw_outputs.jsonl` in the run directory; a rerun with the same settings reuses successful
answers whose prompt is unchanged and asks only the rest. The predictions file is the
metadata with the answer added under the benchmark's key (think blocks moved to
`thinking_prediction` for MMAR); items whose call failed get no prediction.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from audioeval.audio.clip_cache import ClipCache
from audioeval.benchmarks.mcq.definitions import McqBenchmark
from audioeval.benchmarks.mcq.loading import load_mcq_file
from audioeval.benchmarks.mcq.predictions_out import PromptJob, plan_prompts, write_predictions
from audioeval.core.errors import AudioError
from audioeval.engine.cached_judge import CachedJudge
from audioeval.engine.chat_client import ChatClient
from audioeval.prompts.templates import load_template
from audioeval.store.jsonl import JsonlAppender, read_jsonl
from audioeval.store.response_cache import ResponseCache
from audioeval.store.signature import check_or_write_signature


@dataclass
class McqPredictConfig:
    bench: McqBenchmark
    metadata: Path
    audio_root: Path
    base_urls: list[str]
    model: str
    out: Path
    run_dir: Path | None = None
    template: str = "mcq_choices"
    api_key: str | None = None
    concurrency: int = 8
    timeout: float = 300.0
    temperature: float | None = None
    max_tokens: int | None = None
    audio_part: str = "audio_url"
    sample_rate: int = 16000
    use_cache: bool = True
    progress: bool = True

    @property
    def folder(self) -> Path:
        return self.run_dir or self.out.parent / f"{self.out.name}.run"


@dataclass
class McqPredictResult:
    out: Path
    run_dir: Path
    items: int
    answered: int
    failed: int
    asked_now: int
    reused: int
    calls: int
    cache_hits: int


async def _ask(job: PromptJob, judge: CachedJudge, clips: ClipCache) -> dict[str, Any]:
    record: dict[str, Any] = {"id": job.item.id, "prompt_hash": job.prompt_hash}
    try:
        await asyncio.to_thread(clips.get, job.audio, sample_id=job.item.id, field="audio")
    except AudioError as exc:
        return {**record, "raw": None, "error": exc.describe()}
    gen = await judge(job.messages, 0)
    return {
        **record,
        "raw": gen.text,
        "error": gen.error,
        "endpoint": gen.endpoint,
        "latency_s": gen.latency_s,
        "cached": gen.cached,
    }


async def predict_async(cfg: McqPredictConfig) -> McqPredictResult:
    template = load_template(cfg.template)
    file = load_mcq_file(cfg.metadata, cfg.bench, require_predictions=False)
    jobs = plan_prompts(file.items, cfg.bench, template, cfg.audio_root, str(cfg.metadata))
    folder = cfg.folder
    folder.mkdir(parents=True, exist_ok=True)
    check_or_write_signature(
        folder,
        {
            "benchmark": cfg.bench.name,
            "model": cfg.model,
            "template": template.name,
            "template_digest": template.digest,
            "audio_part": cfg.audio_part,
            "sample_rate": cfg.sample_rate,
            "temperature": cfg.temperature,
            "max_tokens": cfg.max_tokens,
        },
    )
    raw_path = folder / "raw_outputs.jsonl"
    answers: dict[str, dict[str, Any]] = {}
    for rec in read_jsonl(raw_path).records:
        if rec.get("raw") is not None and rec.get("id") is not None:
            answers[rec["id"]] = rec
    todo = [j for j in jobs if answers.get(j.item.id, {}).get("prompt_hash") != j.prompt_hash]
    reused = len(jobs) - len(todo)
    clips = ClipCache(target_rate=cfg.sample_rate)
    client = ChatClient(
        cfg.base_urls, api_key=cfg.api_key, timeout_s=cfg.timeout, concurrency=cfg.concurrency
    )
    cache = ResponseCache(folder / "response_cache.sqlite") if cfg.use_cache else None
    judge = CachedJudge(
        client,
        clips,
        model=cfg.model,
        style=cfg.audio_part,  # type: ignore[arg-type]
        sampling={"temperature": cfg.temperature, "max_tokens": cfg.max_tokens},
        cache=cache,
    )
    writer = JsonlAppender(raw_path)
    queue: asyncio.Queue[PromptJob] = asyncio.Queue()
    for job in todo:
        queue.put_nowait(job)
    progress = Progress(
        TextColumn("[bold]asking"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        disable=not cfg.progress,
    )
    bar = progress.add_task("ask", total=len(todo))

    async def worker() -> None:
        while not queue.empty():
            job = queue.get_nowait()
            rec = await _ask(job, judge, clips)
            writer.append(rec)
            if rec["raw"] is not None:
                answers[job.item.id] = rec
            progress.advance(bar)

    try:
        with progress:
            n_workers = max(1, min(cfg.concurrency, len(todo)))
            await asyncio.gather(*(worker() for _ in range(n_workers)))
    finally:
        writer.close()
        await client.aclose()
        if cache is not None:
            cache.close()
    current = {
        j.item.id: answers[j.item.id]["raw"]
        for j in jobs
        if answers.get(j.item.id, {}).get("prompt_hash") == j.prompt_hash
    }
    jsonl = _is_jsonl_out(cfg.out, file.jsonl)
    write_predictions(cfg.out, file.items, cfg.bench, current, jsonl=jsonl)
    return McqPredictResult(
        cfg.out,
        folder,
        len(jobs),
        len(current),
        len(jobs) - len(current),
        len(todo),
        reused,
        client.calls,
        cache.hits if cache else 0,
    )


def _is_jsonl_out(out: Path, source_jsonl: bool) -> bool:
    if out.suffix.lower() == ".jsonl":
        return True
    return False if out.suffix.lower() == ".json" else source_jsonl


def predict(cfg: McqPredictConfig) -> McqPredictResult:
    return asyncio.run(predict_async(cfg))
