"""The Python API: what `audioeval run`, `rescore` and `leaderboard` do, as functions that
return the typed results the commands print.

```python
import audioeval

result = audioeval.evaluate(models=["oracle", "mine=predictions:hyps.jsonl"], benchmarks=["demo-mcq"])
result.summary.scores["demo-mcq"]["oracle"]["accuracy"]        # a typed RunSummary
again = audioeval.rescore(result.run_dir, profile="ultraeval")  # no model or judge call
board = audioeval.leaderboard([result.run_dir, "runs/other"])  # the boards over several runs
```

`audioeval run` itself builds its request from the flags and a run config, then calls
`run_request`, as `evaluate` does: there is one path. Errors are `audioeval.core.errors`
exceptions (`InputError` names file, sample id and field; `EndpointUnusable` an endpoint).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from audioeval.core.settings import KEYWORD_DEFAULTS as D

if TYPE_CHECKING:
    from audioeval.analysis.leaderboard_runs import LeaderboardDoc
    from audioeval.core.json_value import JsonValue
    from audioeval.engine.evaluate import EvalRequest, EvalResult
    from audioeval.engine.model_specs import ModelConfig
    from audioeval.engine.rescore import RescoreResult


def run_request(req: EvalRequest, *, on_rubrics: Callable[[str], None] | None = None) -> EvalResult:
    """Run a built request: the rubrics of benchmarks that decompose captions first, then the
    evaluation, which writes the run directory and its summary.json. `on_rubrics` receives the
    line that says how many rubrics were made. `max_calls` and `max_cost` hold over both: the
    decomposition's requests count against the same budget as the run's."""
    from audioeval.core.settings import check_keywords
    from audioeval.engine.evaluate import evaluate as run_engine
    from audioeval.engine.run_budget import command_budget
    from audioeval.presets.rubrics_on_the_fly import rubric_counts, with_rubrics

    check_keywords({"resamples": req.resamples, "seed": req.seed, "limit": req.limit})
    with command_budget(req.max_calls, req.max_cost, req.prices):
        req, decomposed = with_rubrics(req)
        if on_rubrics is not None and rubric_counts(decomposed):
            on_rubrics(rubric_counts(decomposed))
        return run_engine(req)


def evaluate(
    models: Sequence[str | ModelConfig],
    benchmarks: Sequence[str | Path],
    *,
    output_dir: str | Path | None = D["output_dir"],
    task: str | None = None,
    language: str | None = None,
    limit: int | None = D["limit"],
    data_root: str | Path | None = D["data_root"],
    gen_kwargs: str | dict[str, JsonValue] | None = None,
    system_prompt: str | None = None,
    temperature: float | None = D["temperature"],
    max_tokens: int | None = D["max_tokens"],
    judge: str | Sequence[str] | None = D["judge"],
    judge_model: str = D["judge_model"],
    judge_concurrency: int = D["judge_concurrency"],
    judge_timeout: float = D["judge_timeout"],
    judge_api_key_env: str = D["judge_api_key_env"],
    judge_prompt: str | Path | None = D["judge_prompt"],
    profile: str | None = None,
    resamples: int = D["resamples"],
    seed: int = D["seed"],
    use_cache: bool = D["use_cache"],
    cache: str | Path | None = D["cache"],
    exclude_missing: bool = D["exclude_missing"],
    probe: bool = D["probe"],
    progress: bool = D["progress"],
    prices: str | Path | None = D["prices"],
    max_calls: int | None = D["max_calls"],
    max_cost: float | None = D["max_cost"],
) -> EvalResult:
    """Evaluate `models` on `benchmarks`, as `audioeval run` does, and return its result
    (`result.summary` is the run's summary.json, `result.run_dir` its folder).

    `models` are model specs as on the command line (`NAME@URL`, `whisper-tiny.en`, a
    baseline, `NAME=predictions:FILE`, …) or `ModelConfig`s; `benchmarks` are registered names,
    spec files or manifests (with `task`). `gen_kwargs` is `"temperature=0,max_tokens=512"` or
    a mapping (its values kept as given: `{"skip_special_tokens": False}` sends `false`; a setting
    that would change what is asked or what comes back, such as `model` or `logprobs`, is
    refused: `core/request_settings.py`); `judge` the judge's URL(s) for judged benchmarks. The
    keywords shared with `audioeval run` have its defaults and bounds, from their one
    declaration (`core/settings.py`; a value out of bounds is an `InputError` naming the
    keyword); `progress` is off in a library call. A rerun with the same arguments resumes the
    same folder. `prices` (a price file), `max_calls` and `max_cost`: docs/cost.md (a limit
    reached raises `BudgetReached` once what finished is summarised)."""
    from audioeval.core.settings import check_keywords
    from audioeval.engine.evaluate import EvalRequest
    from audioeval.engine.generation_settings import generation_of
    from audioeval.engine.model_specs import ModelConfig, parse_model_ref
    from audioeval.engine.run_judge import JudgeSettings, split_urls
    from audioeval.store.price_file import read_price_file

    check_keywords(
        {"limit": limit, "temperature": temperature, "max_tokens": max_tokens, "judge_model": judge_model,
         "judge_concurrency": judge_concurrency, "judge_timeout": judge_timeout,
         "judge_api_key_env": judge_api_key_env, "resamples": resamples, "seed": seed, "use_cache": use_cache,
         "exclude_missing": exclude_missing, "probe": probe, "progress": progress, "max_calls": max_calls,
         "max_cost": max_cost}
    )  # fmt: skip
    configs = [m if isinstance(m, ModelConfig) else parse_model_ref(str(m)) for m in models]
    settings = None
    if judge is not None:
        urls = split_urls(judge if isinstance(judge, str) else list(judge))
        settings = JudgeSettings(
            urls=urls,
            model=judge_model,
            concurrency=judge_concurrency,
            timeout_s=judge_timeout,
            api_key_env=judge_api_key_env,
        )
    req = EvalRequest(
        benchmarks=[str(b) for b in benchmarks],
        models=configs,
        output_dir=Path(output_dir) if output_dir is not None else None,
        task=task,
        language=language,
        profile=profile,
        judge_prompt=Path(judge_prompt) if judge_prompt is not None else None,
        limit=limit,
        data_root=Path(data_root) if data_root is not None else None,
        generation=generation_of(
            {}, gen_kwargs, temperature=temperature, max_tokens=max_tokens, system_prompt=system_prompt
        ),
        resamples=resamples,
        seed=seed,
        progress=progress,
        use_cache=use_cache,
        cache_path=Path(cache) if cache is not None else None,
        judge=settings,
        exclude_missing=exclude_missing,
        probe=probe,
        prices=read_price_file(Path(prices)) if prices is not None else None,
        max_calls=max_calls,
        max_cost=max_cost,
    )
    return run_request(req)


def rescore(
    run_dir: str | Path,
    *,
    profile: str | None = None,
    resamples: int | None = None,
    exclude_missing: bool | None = None,
    output: str | Path | None = None,
) -> RescoreResult:
    """Score a run directory again from its stored outputs, as `audioeval rescore` does: no
    model or judge call; `result.summary` is the rewritten summary.json. Under a `profile` (or
    with an `output`) into a new folder, `result.run_dir` (`RUN-PROFILE` by default), the run
    left as it was; called again the same way, nothing is written (`result.unchanged`)."""
    from audioeval.core.settings import check_keywords
    from audioeval.engine.rescore import rescore_run

    check_keywords({"resamples": resamples} if resamples is not None else {})  # None: the run's own
    return rescore_run(
        Path(run_dir),
        resamples=resamples,
        exclude_missing=exclude_missing,
        profile=profile,
        output=None if output is None else Path(output),
    )


def leaderboard(
    run_dirs: Sequence[str | Path],
    *,
    boards: Sequence[str | Path] = (),
    resamples: int = D["resamples"],
    seed: int = D["seed"],
    mean_of_available: bool = False,
    prefer: Sequence[str | Path] = (),
) -> LeaderboardDoc:
    """Every board over the pairs of several run directories, as `audioeval leaderboard`
    builds it (board score CIs, paired-bootstrap p-values between adjacent ranks); nothing is
    written."""
    from audioeval.analysis.leaderboard_runs import leaderboard_from_runs
    from audioeval.core.settings import check_keywords

    check_keywords({"resamples": resamples, "seed": seed})
    return leaderboard_from_runs(
        [Path(d) for d in run_dirs],
        [Path(b) for b in boards],
        resamples=resamples,
        seed=seed,
        mean_of_available=mean_of_available,
        prefer=[Path(d) for d in prefer],
    )
