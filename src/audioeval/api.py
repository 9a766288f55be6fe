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
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from audioeval.engine.evaluate import EvalRequest, EvalResult
    from audioeval.engine.model_specs import ModelConfig
    from audioeval.engine.rescore import RescoreResult


def run_request(req: EvalRequest, *, on_rubrics: Callable[[str], None] | None = None) -> EvalResult:
    """Run a built request: the rubrics of benchmarks that decompose captions first, then the
    evaluation, which writes the run directory and its summary.json. `on_rubrics` receives the
    line that says how many rubrics were made."""
    from audioeval.core.bounds import MAX_COUNT, MAX_RESAMPLES, MAX_SEED, check_settings
    from audioeval.engine.evaluate import evaluate as run_engine
    from audioeval.presets.rubrics_on_the_fly import rubric_counts, with_rubrics

    check_settings(
        resamples=(req.resamples, MAX_RESAMPLES), seed=(req.seed, MAX_SEED), limit=(req.limit, MAX_COUNT)
    )
    req, decomposed = with_rubrics(req)
    if on_rubrics is not None and rubric_counts(decomposed):
        on_rubrics(rubric_counts(decomposed))
    return run_engine(req)


def evaluate(
    models: Sequence[str | ModelConfig],
    benchmarks: Sequence[str | Path],
    *,
    output_dir: str | Path | None = None,
    task: str | None = None,
    language: str | None = None,
    limit: int | None = None,
    data_root: str | Path | None = None,
    gen_kwargs: str | dict[str, Any] | None = None,
    system_prompt: str | None = None,
    judge: str | Sequence[str] | None = None,
    judge_model: str | None = None,
    judge_prompt: str | Path | None = None,
    profile: str | None = None,
    resamples: int = 1000,
    seed: int = 0,
    use_cache: bool = True,
    exclude_missing: bool = False,
    probe: bool = True,
    progress: bool = False,
) -> EvalResult:
    """Evaluate `models` on `benchmarks`, as `audioeval run` does, and return its result
    (`result.summary` is the run's summary.json, `result.run_dir` its folder).

    `models` are model specs as on the command line (`NAME@URL`, `whisper-tiny.en`, a
    baseline, `NAME=predictions:FILE`, …) or `ModelConfig`s; `benchmarks` are registered names,
    spec files or manifests (with `task`). `gen_kwargs` is `"temperature=0,max_tokens=512"` or
    a mapping (its values kept as given: `{"skip_special_tokens": False}` sends `false`; a setting
    that would change what is asked or what comes back, such as `model` or `logprobs`, is
    refused: `core/request_settings.py`); `judge` the judge's URL(s) for judged benchmarks. A rerun with the same
    arguments resumes the same folder."""
    from audioeval.engine.evaluate import EvalRequest
    from audioeval.engine.generation_settings import generation_of
    from audioeval.engine.model_specs import ModelConfig, parse_model_ref
    from audioeval.engine.run_judge import JudgeSettings, split_urls

    configs = [m if isinstance(m, ModelConfig) else parse_model_ref(str(m)) for m in models]
    settings = None
    if judge is not None:
        urls = split_urls(judge if isinstance(judge, str) else list(judge))
        settings = JudgeSettings(urls=urls, **({"model": judge_model} if judge_model else {}))
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
        generation=generation_of({}, gen_kwargs, system_prompt=system_prompt),
        resamples=resamples,
        seed=seed,
        progress=progress,
        use_cache=use_cache,
        judge=settings,
        exclude_missing=exclude_missing,
        probe=probe,
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
    from audioeval.core.bounds import MAX_RESAMPLES, check_settings
    from audioeval.engine.rescore import rescore_run

    check_settings(resamples=(resamples, MAX_RESAMPLES))
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
    resamples: int = 1000,
    seed: int = 0,
    mean_of_available: bool = False,
) -> dict[str, Any]:
    """Every board over the pairs of several run directories, as `audioeval leaderboard`
    builds it (board score CIs, paired-bootstrap p-values between adjacent ranks); nothing is
    written."""
    from audioeval.analysis.leaderboard_runs import leaderboard_from_runs
    from audioeval.core.bounds import MAX_RESAMPLES, MAX_SEED, check_settings

    check_settings(resamples=(resamples, MAX_RESAMPLES), seed=(seed, MAX_SEED))
    return leaderboard_from_runs(
        [Path(d) for d in run_dirs],
        [Path(b) for b in boards],
        resamples=resamples,
        seed=seed,
        mean_of_available=mean_of_available,
    )
