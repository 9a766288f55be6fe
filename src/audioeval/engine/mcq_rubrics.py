"""MMAR-Rubrics judging: 5 judge calls per matched item, trimmed mean, resumable.

Finished items are appended to `rubrics/results.jsonl` under the score output directory, each
with a key over everything the judge saw; a rerun reuses items whose key is unchanged and
judges again those that failed (the new line supersedes the old one).
Answers are cached by request content and call index in `rubrics/judge_cache.sqlite`, so an
interrupted item does not ask its finished calls again. Transport failures, retries,
timeouts and endpoint failover are the `ChatClient`'s.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from audioeval.audio.clip_cache import ClipCache
from audioeval.benchmarks.mcq.rubric_plan import RubricPlan, RubricTask
from audioeval.benchmarks.mcq.run import McqScoreResult, apply_rubric_outcomes
from audioeval.engine.cached_judge import CachedJudge
from audioeval.engine.chat_client import ChatClient
from audioeval.engine.endpoint_probe import check_endpoints
from audioeval.engine.progress import JudgeProgress
from audioeval.judge.reasoning_rubric import (
    PROMPT_VERSION,
    build_rubric_messages,
    item_outcome,
    parse_rubric_answer,
)
from audioeval.judge.votes import collect_votes
from audioeval.store.jsonl import JsonlAppender, read_jsonl
from audioeval.store.response_cache import ResponseCache
from audioeval.store.signature import check_or_write_signature


@dataclass
class RubricJudgeConfig:
    """The judge endpoints and every choice that moves a rubric score."""

    base_urls: list[str]
    model: str = "gpt-4o-2024-11-20"
    api_key: str | None = None
    concurrency: int = 16
    timeout: float = 120.0
    votes: int = 5
    max_attempts: int = 20
    temperature: float | None = 0.0
    seed: int | None = 42
    max_tokens: int | None = 2048
    cache_path: Path | None = None
    use_cache: bool = True
    progress: bool = True
    api_key_env: str = "OPENAI_API_KEY"  # named in the message when the endpoints refuse the key
    probe: bool = True  # check the judge endpoints once before judging (endpoint_probe.py)

    def signature(self) -> dict[str, Any]:
        return {
            "benchmark": "mmar-rubrics",
            "judge_model": self.model,
            "prompt_version": PROMPT_VERSION,
            "votes": self.votes,
            "max_attempts": self.max_attempts,
            "item_score": "trimmed mean (drop max and min)",
            "temperature": self.temperature,
            "seed": self.seed,
            "max_tokens": self.max_tokens,
        }


@dataclass
class RubricRunResult:
    outcomes: dict[str, dict[str, Any]]
    judged_now: int = 0
    reused: int = 0
    calls: int = 0
    cache_hits: int = 0
    endpoints: list[dict[str, object]] = field(default_factory=list)
    first_failure: str | None = None  # "id: reason" of the first item the judge failed


def _failure_reason(outcome: dict[str, Any]) -> str:
    attempts = outcome.get("attempts") or []
    last = next((a["error"] for a in reversed(attempts) if a.get("error")), None)
    valid = len(outcome.get("call_scores") or [])
    return f"{valid} valid judge answer(s) after {len(attempts)} call(s)" + (
        f" (last error: {last})" if last else ""
    )


def first_failure(plan: RubricPlan, outcomes: dict[str, dict[str, Any]]) -> str | None:
    """The first planned item whose judgement failed, with the last judge error."""
    for task in plan.tasks:
        outcome = outcomes.get(task.item.id)
        if outcome is not None and outcome.get("failed"):
            return f"id {task.item.id!r}: {_failure_reason(outcome)}"
    return None


async def _judge_task(
    task: RubricTask, judge: CachedJudge, cfg: RubricJudgeConfig, progress: JudgeProgress
) -> dict[str, Any]:
    messages = build_rubric_messages(
        question=task.question,
        answer=task.item.answer,
        reference=task.reference,
        rubric=task.rubric,
        thinking=task.item.thinking,
        prediction=task.item.prediction or "",
    )
    attempts: list[dict[str, Any]] = []

    async def call(index: int) -> bool:
        gen = await judge(messages, index, lambda text: parse_rubric_answer(text, task.rubric).valid)
        parsed = parse_rubric_answer(gen.text or "", task.rubric) if gen.ok else None
        valid = parsed is not None and parsed.valid
        progress.vote(valid=valid, error=not gen.ok)
        attempts.append(
            {
                "attempt": index,
                "raw": gen.text,
                "score": parsed.score if parsed else None,
                "scores": list(parsed.scores) if parsed else [],
                "error": gen.error if not gen.ok else (parsed.error if parsed else None),
                "warning": parsed.warning if parsed else None,
                "endpoint": gen.endpoint,
                "cached": gen.cached,
            }
        )
        return valid

    await collect_votes(call, votes_needed=cfg.votes, max_attempts=cfg.max_attempts)
    attempts.sort(key=lambda a: a["attempt"])
    outcome = item_outcome([a["score"] for a in attempts if a["score"] is not None], cfg.votes)
    progress.rubric_done(failed=outcome["failed"])
    return {**outcome, "attempts": attempts}


def _unmatched(task: RubricTask) -> dict[str, Any]:
    return {"call_scores": [], "failed": False, "score": 0.0, "attempts": []}


async def judge_rubrics_async(plan: RubricPlan, out_dir: Path, cfg: RubricJudgeConfig) -> RubricRunResult:
    """Score every planned item (reusing finished ones), appending each as it finishes."""
    rubric_dir = out_dir / "rubrics"
    results_path = rubric_dir / "results.jsonl"
    done = {r["id"]: r for r in read_jsonl(results_path).records if "id" in r and "key" in r}
    result = RubricRunResult({})
    todo: list[RubricTask] = []
    for task in plan.tasks:
        prior = done.get(task.item.id)
        if prior is not None and prior["key"] == task.key and not prior.get("failed"):
            result.outcomes[task.item.id] = prior
            result.reused += 1
        else:
            todo.append(task)
    urls = cfg.base_urls
    if cfg.probe and any(t.matched for t in todo):  # before anything is written
        urls = await check_endpoints(
            urls, role="judge", model=cfg.model, api_key=cfg.api_key, api_key_env=cfg.api_key_env
        )
    rubric_dir.mkdir(parents=True, exist_ok=True)
    check_or_write_signature(rubric_dir, cfg.signature())
    client = ChatClient(urls, api_key=cfg.api_key, timeout_s=cfg.timeout, concurrency=cfg.concurrency)
    cache_path = cfg.cache_path or rubric_dir / "judge_cache.sqlite"
    cache = ResponseCache(cache_path) if cfg.use_cache else None
    sampling = {"temperature": cfg.temperature, "seed": cfg.seed, "max_tokens": cfg.max_tokens}
    judge = CachedJudge(client, ClipCache(), model=cfg.model, sampling=sampling, cache=cache)
    writer = JsonlAppender(results_path)
    queue: asyncio.Queue[RubricTask] = asyncio.Queue()
    for task in todo:
        queue.put_nowait(task)

    async def worker(progress: JudgeProgress) -> None:
        while not queue.empty():
            task = queue.get_nowait()
            if task.matched:
                body = await _judge_task(task, judge, cfg, progress)
            else:
                body = _unmatched(task)
            record = {
                "id": task.item.id,
                "key": task.key,
                "matched": task.matched,
                "judged": task.matched,
                "judge_model": cfg.model,
                **body,
            }
            writer.append(record)
            result.outcomes[task.item.id] = record
            result.judged_now += 1

    try:
        with JudgeProgress(sum(t.matched for t in todo), enabled=cfg.progress) as progress:
            n_workers = max(1, min(cfg.concurrency, len(todo)))
            await asyncio.gather(*(worker(progress) for _ in range(n_workers)))
    finally:
        writer.close()
        await client.aclose()
        if cache is not None:
            cache.close()
    result.calls = client.calls
    result.cache_hits = cache.hits if cache else 0
    result.endpoints = [e.stats() for e in client.pool.endpoints]
    result.first_failure = first_failure(plan, result.outcomes)
    return result


def judge_rubrics(plan: RubricPlan, out_dir: Path, cfg: RubricJudgeConfig) -> RubricRunResult:
    return asyncio.run(judge_rubrics_async(plan, out_dir, cfg))


def score_with_rubrics(
    result: McqScoreResult,
    plan: RubricPlan,
    out_dir: Path,
    cfg: RubricJudgeConfig,
    *,
    n_resamples: int = 1000,
    seed: int = 0,
) -> RubricRunResult:
    """Judge the plan and fold the rubric scores into an `McqScoreResult` (rows, summary)."""
    run = judge_rubrics(plan, out_dir, cfg)
    info = {
        **cfg.signature(),
        "without_rubric": plan.without_rubric,
        "skipped": [e.as_record() for e in plan.skipped],
        "judged_now": run.judged_now,
        "reused": run.reused,
        "judge_calls": run.calls,
        "cache_hits": run.cache_hits,
        "results": "rubrics/results.jsonl",
    }
    apply_rubric_outcomes(
        result, [t.item.id for t in plan.tasks], run.outcomes, info, n_resamples=n_resamples, seed=seed
    )
    return run
