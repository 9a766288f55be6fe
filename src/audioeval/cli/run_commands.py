"""`audioeval run | rescore | list | validate`: the one-command evaluation."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from audioeval.cli import options as opt
from audioeval.cli import setting_options as S
from audioeval.cli.errors import err_console, friendly_errors, report_skipped
from audioeval.cli.failed_work import FailedWork, enforce_max_failed, parse_max_failed
from audioeval.cli.options import make_console
from audioeval.cli.resume_notes import missing_predictions, report_ignored_lines, report_unusable_lines
from audioeval.core.errors import InputError
from audioeval.report.escaping import console_text, failure_text

if TYPE_CHECKING:
    from audioeval.engine.evaluate import EvalResult
    from audioeval.engine.run_summary import RunSummary
    from audioeval.metrics.summary_blocks import PairSummary

console = make_console()


def _split(values: list[str] | None) -> list[str]:
    out: list[str] = []
    for value in values or []:
        out += [v.strip() for v in value.split(",") if v.strip()]
    return out


def _models(values: list[str] | None) -> list[str]:
    """Model refs; a comma separates refs unless it sits inside a URL list (`a@u1+u2`)."""
    return _split(values)


def show_summary(summary: RunSummary | None, run_dir: Path) -> None:
    """Print the leaderboard of each task family (and user board) the run has, the reliability
    of each judged pair's judge, and write leaderboard.md (from the summary the engine wrote)."""
    from audioeval.report.leaderboard_table import board_table, write_leaderboard
    from audioeval.report.reliability_table import print_reliability

    if summary is None:
        return
    write_leaderboard(run_dir, summary.to_json())
    for board in summary.boards.values():
        console.print(board_table(board))
    for res in summary.results:
        where = f"{res.get('benchmark')} · {res.get('model')}"
        print_reliability(res.get("reliability"), console=console, where=where)


def show_usage(results: list) -> None:
    """What each pair's model and judge used (and cost, with --prices), from the summaries."""
    from audioeval.report.usage_table import usage_table

    table = usage_table(results, priced=any(r.get("cost") is not None for r in results))
    if table is not None:
        console.print(table)


def show_plan(req) -> None:  # type: ignore[no-untyped-def]
    """`--dry-run`: the plan of the run, printed; nothing asked, nothing written."""
    from audioeval.engine.run_plan import plan_run

    print_plan(plan_run(req))


def print_plan(plan) -> None:  # type: ignore[no-untyped-def]
    """A run's plan (`engine/run_plan.py`): the table, then its requests and rough cost."""
    from audioeval.report.usage_table import plan_table

    console.print(plan_table(plan))
    total = ""
    if plan.prices is not None:
        from audioeval.core.prices import sum_costs
        from audioeval.report.usage_table import dollars_text

        costs = [c for p in plan.pairs for c in (p.model_cost, p.judge_cost if p.judge_usage else 0.0)]
        total = f", roughly {dollars_text(sum_costs(costs))}"
    console.print(
        f"dry run: {plan.requests:,} request(s){total}; nothing was asked or written "
        f"(run directory: {console_text(plan.run_dir)}).",
        highlight=False,
    )


def show_metric_models(work: dict) -> None:
    """The embedded metric models' work in this command, if any ran."""
    from audioeval.report.metric_models_table import metric_models_lines

    lines = metric_models_lines(work)
    if lines:
        console.print("metric models (this command):", highlight=False)
        for line in lines:
            console.print(f"  {line}", highlight=False)


def warn_failed(results: list[PairSummary], no_retry: list[str] | None = None) -> None:
    """How many samples failed, with the first failure of each benchmark × model that had any;
    `no_retry`: why a rerun cannot help (a predictions file without some answers)."""
    failed = sum(r.get("failed", 0) for r in results)
    if not failed:
        return
    retry = "" if no_retry else " rerun the same command to retry them."
    no_output = sum((r.get("failed_outputs") or {}).get("n", 0) for r in results)
    excluded = any((r.get("failed_outputs") or {}).get("in_headline") == "excluded" for r in results)
    how = "left out of the metrics (--exclude-missing)" if excluded else "counted in the metrics as wrong"
    without = f" {no_output} of them without a usable output from the model: {how}." if no_output else ""
    err_console.print(
        f"[yellow]{failed} sample(s) failed (recorded);{retry}{without}[/yellow]",
    )
    for r in results:
        first = r.get("first_failure")
        if first:
            where = f"{r['benchmark']} · {r['model']}: {r['failed']} failed, first {first['id']}"
            err_console.print(f"  {failure_text(where)}: {failure_text(first['error'])}", highlight=False)
    for line in no_retry or []:
        err_console.print(f"  {failure_text(line)}", highlight=False)


def failed_samples(result: EvalResult, no_retry: list[str] | None = None) -> FailedWork:
    """Samples of every benchmark × model that failed or have no record, and unreadable rows."""
    skipped = [e for errors in result.skipped.values() for e in errors]
    pairs = result.results
    first = next(
        (
            f"{r['benchmark']} · {r['model']}, id {f['id']!r}: {f['error']}"
            for r in pairs
            if (f := r.get("first_failure"))
        ),
        skipped[0].describe() if skipped else None,
    )
    return FailedWork(
        "sample",
        sum(int(r.get("n", 0)) for r in pairs) + len(skipped),
        sum(int(r.get("failed", 0)) + int(r.get("missing", 0)) for r in pairs) + len(skipped),
        sum(int(r.get("scored", 0)) for r in pairs),
        first,
        no_retry or None,
    )


def _with_executor(models: list, executor: str, address, actors, gpus) -> list:  # type: ignore[no-untyped-def]
    """`--executor` applied to the runtime models; a note names the models it leaves as they are."""
    from audioeval.engine.model_specs import with_executor

    out, untouched = with_executor(models, executor, address=address, actors=actors, gpus_per_actor=gpus)
    if untouched:
        console.print(
            f"--executor {executor} applies to runtime models only; {', '.join(untouched)} run(s) as before.",
            highlight=False,
        )
    return out


_JUDGE_FLAGS = {"model": "judge_model", "concurrency": "judge_concurrency", "timeout_s": "judge_timeout",
                "api_key_env": "judge_api_key_env"}  # fmt: skip
"""JudgeSettings field -> the run flag's value name."""


def given_flags(ctx: typer.Context) -> set[str]:
    """The value names of the options given on the command line (not left at their default)."""
    from typer._click.core import ParameterSource

    return {n for n in ctx.params if ctx.get_parameter_source(n) not in (None, ParameterSource.DEFAULT)}


def _judge_settings(urls: str | None, given: dict, loaded):  # type: ignore[no-untyped-def]
    """The judge of the flags, over the run config's `judge:` (flags win); None when neither.
    `given`: the judge settings given as flags."""
    from audioeval.engine.run_judge import JudgeSettings, split_urls

    if urls is None and loaded is None:
        if given:
            raise typer.BadParameter(
                "--judge-model, --judge-concurrency, --judge-timeout and --judge-api-key-env need "
                "--judge URL",
                param_hint="--judge",
            )
        return None
    data = loaded.model_dump() if loaded is not None else {}
    if urls is not None:
        data["urls"] = split_urls(urls)
    return JudgeSettings.model_validate({**data, **given})


PROFILE_HELP = (
    "Scoring conventions of the profiled scorers (wer/cer, bleu, accuracy, mcq_match): audioeval (ours, "
    "the default), ultraeval (UltraEval-Audio's) or audiobench (AudioBench's); docs/fidelity.md. "
    "Default: each spec's `profile`."
)


def run(
    ctx: typer.Context,
    config: Path | None = typer.Argument(None, help="A run config (YAML) instead of, or beside, the flags."),
    model: list[str] | None = typer.Option(
        None,
        "--model",
        "-m",
        help="NAME@URL (OpenAI-compatible), whisper-tiny.en, a baseline (constant:TEXT, random-choice, "
        "longest-choice, first-choice, echo, oracle) or replay:FOLDER. Repeat or comma-separate.",
    ),
    benchmark: list[str] | None = typer.Option(
        None,
        "--benchmark",
        "-b",
        help="Registered names (audioeval list benchmarks), spec files (.yaml) or manifests "
        "(.jsonl/.csv/.json, with --task). Repeat or comma-separate.",
    ),
    task: str | None = typer.Option(
        None, "--task", help="Task of ad-hoc manifests: asr, ast, classification, …"
    ),
    language: str | None = typer.Option(
        None,
        "--language",
        help="Language of ad-hoc manifests (default en): zh, ja, ko, yue score ASR by CER; picks the normaliser.",
    ),
    output_dir: Path | None = S.option(
        "output_dir", help="Run directory (default runs/<models>-<benchmarks>-<hash of the settings>); rerun to resume."
    ),
    limit: int | None = S.option("limit"),
    data_root: Path | None = S.option("data_root"),
    gen_kwargs: str | None = typer.Option(None, "--gen-kwargs", help=opt.GEN_KWARGS_HELP),
    system_prompt: str | None = typer.Option(
        None, "--system-prompt", help="A system message sent first in every request to the models."
    ),
    temperature: float | None = S.option("temperature"),
    max_tokens: int | None = S.option("max_tokens"),
    timeout: float = S.option("timeout"),
    concurrency: int = S.option("concurrency"),
    api_key_env: str = S.option("api_key_env"),
    seed: int = S.option("seed"),
    resamples: int = S.option("resamples"),
    cache: Path | None = S.option("cache"),
    no_cache: bool = S.option("no_cache"),
    progress: bool = S.option("progress"),
    judge: str | None = S.option("judge"),
    judge_model: str = S.option("judge_model"),
    judge_concurrency: int = S.option("judge_concurrency"),
    judge_timeout: float = S.option("judge_timeout"),
    judge_api_key_env: str = S.option("judge_api_key_env"),
    judge_prompt: Path | None = S.option("judge_prompt"),
    exclude_missing: bool = S.option("exclude_missing"),
    profile: str | None = typer.Option(None, "--profile", help=PROFILE_HELP),
    predictions_format: str | None = typer.Option(
        None,
        "--predictions-format",
        help="Format of the predictions:FILE models' files (audioeval list models names them); "
        "default: the one format each file matches.",
    ),
    prediction_key: str | None = typer.Option(
        None,
        "--prediction-key",
        help="Key holding the answer in the predictions:FILE models' files, where their format "
        "has several candidate keys (a file holding several is refused without it).",
    ),
    max_failed: str = S.option("max_failed"),
    prices: Path | None = S.option("prices"),
    max_calls: int | None = S.option("max_calls"),
    max_cost: float | None = S.option("max_cost"),
    dry_run: bool = S.option("dry_run"),
    no_probe: bool = S.option("no_probe"),
    executor: opt.Executor = "local",
    ray_address: opt.RayAddress = None,
    ray_actors: opt.RayActors = None,
    ray_gpus_per_actor: opt.RayGpus = None,
) -> None:
    """Evaluate models on benchmarks: plan, infer, post-process, score, summarise, rank.

    Re-running the same command resumes: finished samples are not asked again, failed ones are.
    A flag given wins over the run config; one not given leaves the config's value.
    """
    from audioeval.api import run_request
    from audioeval.engine.evaluate import EvalRequest
    from audioeval.engine.generation_settings import generation_of, with_endpoint_settings
    from audioeval.engine.model_specs import parse_model_ref, with_predictions_settings
    from audioeval.engine.run_config import load_run_config
    from audioeval.store.price_file import read_price_file
    from audioeval.store.run_lock import check_output_file

    given = given_flags(ctx)
    with friendly_errors():
        if cache is not None and no_cache:
            raise InputError("give --cache or --no-cache, not both", field="--cache")
        if cache is not None:
            check_output_file(cache, "the response cache (--cache)")
        failure_limit = parse_max_failed(max_failed)
        loaded = load_run_config(config) if config else None
        benches = _split(benchmark) or (loaded.benchmarks if loaded else [])
        models = [parse_model_ref(m) for m in _models(model)] or (loaded.models if loaded else [])
        if not benches:
            raise typer.BadParameter(
                "no benchmark given (--benchmark or a config file)", param_hint="--benchmark"
            )
        if not models:
            raise typer.BadParameter("no model given (--model or a config file)", param_hint="--model")
        models = with_predictions_settings(models, predictions_format, prediction_key)
        models = _with_executor(models, executor, ray_address, ray_actors, ray_gpus_per_actor)
        models = with_endpoint_settings(  # given flags win over each model's own settings
            models,
            timeout_s=timeout if "timeout" in given else None,
            concurrency=concurrency if "concurrency" in given else None,
            api_key_env=api_key_env if "api_key_env" in given else None,
        )
        generation = generation_of(
            loaded.generation if loaded else {},
            gen_kwargs,
            temperature=temperature,
            max_tokens=max_tokens,
            system_prompt=system_prompt,
        )
        req = EvalRequest(
            benchmarks=benches,
            models=models,
            output_dir=output_dir or (loaded.output_dir if loaded else None),
            task=task or (loaded.task if loaded else None),
            language=language,
            profile=profile or (loaded.profile if loaded else None),
            judge_prompt=judge_prompt,
            limit=limit or (loaded.limit if loaded else None),
            data_root=data_root or (loaded.data_root if loaded else None),
            generation=generation,
            resamples=loaded.resamples if loaded and "resamples" not in given else resamples,
            seed=seed,
            progress=progress,
            use_cache=not no_cache,
            cache_path=cache,
            console=console,
            judge=_judge_settings(
                judge,
                {k: v for k, v in {"model": judge_model, "concurrency": judge_concurrency,
                 "timeout_s": judge_timeout, "api_key_env": judge_api_key_env}.items()
                 if _JUDGE_FLAGS[k] in given},
                loaded.judge if loaded else None,
            ),
            exclude_missing=exclude_missing or (loaded.exclude_missing if loaded else False),
            probe=not no_probe,
            prices=read_price_file(prices) if prices is not None else None,
            max_calls=max_calls,
            max_cost=max_cost,
        )
        if dry_run:
            show_plan(req)
            return
        # the Python API's path (`audioeval.api.run_request`): rubrics of `source.decompose`
        # benchmarks first, then the engine, which writes the run's summary.json
        result = run_request(req, on_rubrics=lambda line: console.print(line, highlight=False))
    report_ignored_lines(result.ignored_lines)
    for line in [*result.readings, *result.unpaired]:
        console.print(console_text(line), highlight=False)
    for errors in [*result.skipped.values(), *result.model_skipped.values()]:
        report_skipped(errors)
    show_summary(result.summary, result.run_dir)
    show_metric_models(result.metric_models)
    show_usage(result.results)
    no_retry = missing_predictions(result.run_dir, result.results, models)
    warn_failed(result.results, no_retry)
    judged = f" {result.judge_calls} judge call(s)." if result.judge_calls else ""
    console.print(
        f"asked {result.asked}, reused {result.reused} finished sample(s).{judged} "
        f"Run directory: {console_text(result.run_dir)}",
        highlight=False,
    )
    enforce_max_failed(failed_samples(result, no_retry), failure_limit)


def rescore(
    run_dir: Path = typer.Argument(
        ..., help="An output folder of `audioeval run`, `codec`, `mmae score`, `mcq score` or `judge-eval`."
    ),
    resamples: int | None = S.option("resamples", default=None, help="Bootstrap resamples (default: the run's own)."),
    exclude_missing: bool | None = typer.Option(
        None,
        "--exclude-missing/--count-missing",
        help="Leave samples without a usable output out of the metrics, or count them "
        "(default: as the run did).",
    ),
    profile: str | None = typer.Option(
        None,
        "--profile",
        help="Score the stored outputs under this profile (audioeval or ultraeval) into a new run "
        "folder, RUN_DIR-PROFILE unless --output names one; RUN_DIR is left as it was, and the same "
        "command again changes nothing (default: as the run did, in RUN_DIR).",
    ),
    output: Path | None = typer.Option(
        None,
        "--output",
        "-o",
        help="Write the rescored run into this new folder, leaving RUN_DIR as it was.",
    ),
    max_failed: str = S.option("max_failed"),
) -> None:
    """Recompute post-processing, scores, summaries and the leaderboard; no model or judge calls."""
    from audioeval.engine.rescore import rescore_run

    with friendly_errors():
        failure_limit = parse_max_failed(max_failed)
        result = rescore_run(
            run_dir, resamples=resamples, exclude_missing=exclude_missing, profile=profile, output=output
        )
    if result.run_dir is not None and result.run_dir != run_dir:
        done = "already holds this rescore; nothing written" if result.unchanged else "written"
        console.print(f"{console_text(result.run_dir)}: {done} ({console_text(run_dir)} left as it was)")
        run_dir = result.run_dir
    report_unusable_lines(result.ignored)
    owned = [r for r in result.exports.values() if _show_export(r)]
    if owned:  # an `mcq score` or `judge-eval` folder: its figures are the export's
        console.print(f"rescored; no model or judge call. Results: {console_text(run_dir)}")
        if result.ignored:
            enforce_max_failed(rescored_work(result.results, result.ignored, result.unlisted), failure_limit)
        return
    show_summary(result.summary, run_dir)
    show_metric_models(result.metric_models)
    console.print(
        f"rescored {result.rescored} sample(s); {result.changed} changed; no judge call, no model call. "
        f"Run directory: {console_text(run_dir)}"
    )
    if result.ignored:  # lines it could not use: missing work, counted with the failures as `run` does
        enforce_max_failed(rescored_work(result.results, result.ignored, result.unlisted), failure_limit)


def rescored_work(results: list[PairSummary], ignored: list[str], unlisted: int) -> FailedWork:
    """A rescore's samples: failed, missing (a stored line it could not use counts so), scored."""
    first = next((f"{r['benchmark']} · {r['model']}, id {f['id']!r}: {f['error']}"
                  for r in results if (f := r.get("first_failure"))), None)  # fmt: skip
    return FailedWork(
        "sample",
        sum(int(r.get("n", 0)) for r in results) + unlisted,
        sum(int(r.get("failed", 0)) + int(r.get("missing", 0)) for r in results) + unlisted,
        sum(int(r.get("scored", 0)) for r in results),
        ignored[0] if ignored else first,
    )


def _show_export(result: object) -> bool:
    """Print the figures of an export that owns its run's summary.json (`mcq score`,
    `judge-eval`); False for any other."""
    from audioeval.benchmarks.anyaudio_bench.export import JudgeEvalResult
    from audioeval.benchmarks.mcq.export import McqScoreResult

    if isinstance(result, McqScoreResult):
        from audioeval.report.mcq_table import print_mcq_summary

        print_mcq_summary(result.summary, result.bench, console=console, official_style=False)
        return True
    if isinstance(result, JudgeEvalResult):
        from audioeval.report.judge_eval_table import print_judge_eval_summary

        print_judge_eval_summary(result.summary, console=console)
        return True
    return False


def list_(
    kind: str = typer.Argument(
        "benchmarks", help="benchmarks | models | metrics | prompts | tasks | steps | scorers"
    ),
) -> None:
    """List what is registered."""
    from audioeval.cli.listing import LISTINGS

    with friendly_errors():
        console.print(LISTINGS.get(kind)())


def validate(
    spec: list[Path] | None = typer.Argument(None, help="Spec files to check (default: every shipped spec)."),
    load: bool = typer.Option(False, "--load", help="Also load each benchmark's samples (needs its data)."),
) -> None:
    """Check that every benchmark spec (and template, scorer, metric it names) resolves."""
    from audioeval.cli.listing import validate_specs

    problems = validate_specs([str(p) for p in spec or []], load=load, console=console)
    if problems:
        raise typer.Exit(1)


def codec(
    codecs: str = typer.Option(
        ...,
        "--codec",
        help="Comma-separated codecs: built-in (opus:6k, opus:12k, opus:24k, codec2:3200, mulaw, …) or "
        "codec runtimes (a runtime spec file such as my-encodec.yaml, or a built-in runtime name) whose "
        "spec lists task codec and produces audio.",
    ),
    benchmark: list[str] | None = typer.Option(
        None,
        "--benchmark",
        "-b",
        help="Speech benchmarks with transcripts (registered names, specs, or a manifest with audio + text).",
    ),
    output_dir: Path | None = S.option("output_dir"),
    limit: int | None = S.option("limit"),
    data_root: Path | None = S.option("data_root"),
    resamples: int = S.option("resamples"),
    progress: bool = S.option("progress"),
    max_failed: str = S.option("max_failed"),
    executor: opt.Executor = "local",
    ray_address: opt.RayAddress = None,
    ray_actors: opt.RayActors = None,
    ray_gpus_per_actor: opt.RayGpus = None,
) -> None:
    """Evaluate codecs: semantics (ASR-WER), timbre (SIM), acoustics (DNSMOS), PESQ-WB and STOI.

    Each codec round-trips every clip (audio -> codes -> audio); `summary.json` holds, per codec,
    wer, sim, dnsmos_ovrl, dnsmos_p808, pesq and stoi, and the codec leaderboard.

    Neural codecs run as isolated runtimes with a worker and weights you provide (docs/runtimes.md).
    """
    from audioeval.adapters.base import GenerationConfig
    from audioeval.adapters.codecs.registry import is_runtime_ref, load_codec_runtime, parse_codec_spec
    from audioeval.engine.evaluate import EvalRequest, evaluate
    from audioeval.engine.model_specs import parse_model_ref

    with friendly_errors():
        failure_limit = parse_max_failed(max_failed)
        benches = _split(benchmark)
        if not benches:
            raise typer.BadParameter("no benchmark given", param_hint="--benchmark")
        refs = _split([codecs])
        if not refs:
            raise typer.BadParameter("no codec given", param_hint="--codec")
        for ref in refs:  # every entry is checked before anything runs
            if is_runtime_ref(ref):
                load_codec_runtime(ref)  # a runtime must serve task codec and produce audio
            else:
                parse_codec_spec(ref)  # unknown, neural or badly parameterised codecs fail here
        models = [parse_model_ref(ref) for ref in refs]
        bad = [m.name for m in models if m.type not in ("codec", "runtime")]
        if bad:
            raise typer.BadParameter(f"not a codec: {', '.join(bad)}", param_hint="--codec")
        models = _with_executor(models, executor, ray_address, ray_actors, ray_gpus_per_actor)
        req = EvalRequest(
            benchmarks=benches,
            models=models,
            output_dir=output_dir,
            task="codec",
            as_task=True,
            limit=limit,
            data_root=data_root,
            generation=GenerationConfig(),
            resamples=resamples,
            progress=progress,
            console=console,
        )
        result = evaluate(req)  # the engine writes summary.json, with the per-codec view (`codecs`)
    for errors in result.skipped.values():
        report_skipped(errors)
    show_summary(result.summary, result.run_dir)
    show_metric_models(result.metric_models)
    warn_failed(result.results)
    console.print(f"Run directory: {console_text(result.run_dir)}", highlight=False)
    enforce_max_failed(failed_samples(result), failure_limit)
