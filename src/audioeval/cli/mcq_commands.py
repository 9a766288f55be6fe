"""`audioeval mcq score | predict`: MMAR and MMAU multiple-choice reasoning.

Rubric judging (MMAR-Rubrics) is the `--rubrics` flag of `score`, so one summary holds the
accuracies and the rubric scores of the same predictions.
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path

import typer

from audioeval.cli import options as opt
from audioeval.cli.errors import friendly_errors, report_skipped
from audioeval.cli.failed_work import MAX_FAILED_HELP, FailedWork, enforce_max_failed, parse_max_failed
from audioeval.cli.options import (
    AudioPartStyle,
    check_number,
    check_positive,
    check_votes,
    make_console,
    parse_urls,
)
from audioeval.core.errors import InputError
from audioeval.report.escaping import console_text
from audioeval.store.run_lock import check_output_file, hold_run_lock

mcq_app = typer.Typer(
    help="MMAR and MMAU: multiple-choice audio reasoning, scored official-exact and robust.",
    no_args_is_help=True,
)
console = make_console()


class BenchmarkName(StrEnum):
    mmar = "mmar"
    mmau = "mmau"


MCQ_SCORE_ALIASES = {
    "--bootstrap": "--resamples",
    "--judge-base-urls": "--judge",
    "--judge-cache": "--cache",
}


@mcq_app.command("score", cls=opt.aliased(MCQ_SCORE_ALIASES))
def score(
    benchmark: BenchmarkName = typer.Option(..., "--benchmark", help="mmar or mmau."),
    predictions: Path = typer.Option(
        ...,
        "--predictions",
        help=("The benchmark's metadata (JSON list or JSONL) with the model's answer added to each item."),
    ),
    output_dir: Path | None = typer.Option(
        None,
        "--output-dir",
        "-o",
        help=("Where mcq_summary.json, per_item.jsonl and disagreements.jsonl go (default outputs/<benchmark>)."),
    ),
    prediction_key: str | None = typer.Option(
        None,
        "--prediction-key",
        help=(
            "Key holding the answer (default: answer_prediction or model_prediction for "
            "MMAR; model_output or model_prediction for MMAU)."
        ),
    ),
    bootstrap: int = typer.Option(
        1000,
        "--resamples",
        min=10,
        help="Bootstrap resamples for the 95% confidence intervals.",
    ),
    seed: int = typer.Option(0, "--seed", help="Bootstrap seed."),
    official_print: bool = typer.Option(
        True,
        "--official-print/--no-official-print",
        help="Also print the official scripts' lines.",
    ),
    rubrics: bool = typer.Option(
        False,
        "--rubrics",
        help=("MMAR only: judge the reasoning of matched answers against each item's rubric (MMAR-Rubrics)."),
    ),
    rubric_meta: Path | None = typer.Option(
        None,
        "--rubric-meta",
        help="MMAR-meta.jsonl supplying rubric, thinking and question by id.",
    ),
    judge_base_urls: str | None = typer.Option(
        None,
        "--judge",
        help="Comma-separated OpenAI-compatible judge endpoints (with --rubrics).",
    ),
    judge_model: opt.JudgeModel = "gpt-4o-2024-11-20",
    judge_api_key_env: str = typer.Option(
        "OPENAI_API_KEY",
        "--judge-api-key-env",
        help="Environment variable holding the judge endpoints' API key.",
    ),
    judge_concurrency: opt.JudgeConcurrency = 16,
    judge_timeout: float = typer.Option(
        120.0,
        "--judge-timeout",
        min=0.001,
        help="Seconds per judge call, retries of transport errors included.",
    ),
    judge_votes: int = typer.Option(
        5,
        "--judge-votes",
        min=1,
        help="Valid judge calls per item; the item score drops the highest and lowest.",
    ),
    judge_max_attempts: int = typer.Option(
        20,
        "--judge-max-attempts",
        min=1,
        help="Judge calls per item at most, failed parses included.",
    ),
    judge_temperature: float = typer.Option(0.0, "--judge-temperature"),
    judge_seed: int = typer.Option(42, "--judge-seed"),
    no_cache: opt.NoJudgeCache = False,
    judge_cache: Path | None = typer.Option(
        None,
        "--cache",
        help="With --rubrics: the judge response cache file, keyed by request content only: share one "
        "across output folders and runs to ask nothing twice (default: in OUTPUT_DIR).",
    ),
    progress: opt.Progress = True,
    max_failed: str = typer.Option("0", "--max-failed", help=MAX_FAILED_HELP + " Counts failed judgements."),
    no_probe: opt.NoProbe = False,
    judge_prompt: opt.JudgePrompt = None,
) -> None:
    """Score predictions both ways (official token match and robust choice reading)."""
    from audioeval.benchmarks.mcq.definitions import get_benchmark
    from audioeval.engine.run_judge import JudgeSettings
    from audioeval.presets.mcq_score import McqScoreConfig, RubricSettings, score_predictions
    from audioeval.report.mcq_table import print_mcq_summary

    out = output_dir or Path("outputs") / benchmark.value
    with friendly_errors(), hold_run_lock(out):
        failure_limit = parse_max_failed(max_failed)
        if judge_cache is not None:
            if not rubrics or no_cache:
                raise InputError("--cache needs --rubrics, and not --no-cache", field="--cache")
            check_output_file(judge_cache, "the judge response cache (--cache)")
        if judge_prompt is not None and not rubrics:
            raise InputError("--judge-prompt needs --rubrics", field="--judge-prompt")
        settings = None
        if rubrics:
            judge_urls = parse_urls(judge_base_urls, "--judge")
            check_votes("--judge-votes", judge_votes, "--judge-max-attempts", judge_max_attempts)
            check_positive("--judge-timeout", judge_timeout)
            check_number("--judge-temperature", judge_temperature)
            judge = JudgeSettings(
                urls=judge_urls,
                model=judge_model,
                concurrency=judge_concurrency,
                timeout_s=judge_timeout,
                api_key_env=judge_api_key_env,
                temperature=judge_temperature,
                max_tokens=RUBRIC_MAX_TOKENS,
                seed=judge_seed,
            )
            settings = RubricSettings(judge, judge_votes, judge_max_attempts, rubric_meta, judge_prompt)
        bench = get_benchmark(benchmark.value)
        if rubrics and not bench.rubrics:
            raise InputError(f"--rubrics applies to MMAR only, not {bench.name}")
        cfg = McqScoreConfig(
            bench,
            predictions,
            out,
            prediction_key=prediction_key,
            n_resamples=bootstrap,
            seed=seed,
            rubrics=settings,
            use_cache=not no_cache,
            progress=progress,
            probe=not no_probe,
            cache_path=judge_cache,
        )
        run = score_predictions(cfg)
        report_skipped(run.skipped)
    result = run.result
    print_mcq_summary(result.summary, bench, console=console, official_style=official_print)
    console.print(f"Results: {console_text(out)}")
    enforce_max_failed(_failed_judgements(result.summary, result.first_failure), failure_limit)


RUBRIC_MAX_TOKENS = 2048


def _failed_judgements(summary: dict, first_failure: str | None) -> FailedWork:
    """Items the rubric judge failed (an unparseable model answer is an outcome, not a failure)."""
    scored = int(summary["counts"]["scored"])
    judged = summary.get("rubrics")
    if not judged:
        return FailedWork("item", int(summary["counts"]["items"]), 0, scored)
    return FailedWork(
        "rubric-judged item", int(judged["eligible"]), int(judged["failed"]), scored, first_failure
    )


@mcq_app.command("predict", cls=opt.aliased({"--out": "--output", "--run-dir": "--output-dir"}))
def predict(
    benchmark: BenchmarkName = typer.Option(..., "--benchmark", help="mmar or mmau."),
    audio_root: Path = typer.Option(
        ...,
        "--audio-root",
        help="Folder the metadata's audio paths are relative to.",
    ),
    base_urls: str | None = typer.Option(None, "--base-urls", hidden=True),
    model: str = typer.Option(
        ...,
        "--model",
        "-m",
        help="The model under test: NAME@URL[,URL] (served model name at OpenAI-compatible endpoints).",
    ),
    out: Path = typer.Option(
        ...,
        "--output",
        help="Predictions file to write (.jsonl or .json), read by `mcq score`.",
    ),
    metadata: Path | None = typer.Option(
        None,
        "--metadata",
        help=("Benchmark metadata (default: AUDIO_ROOT/MMAR-meta.jsonl or AUDIO_ROOT/mmau-test-mini.json)."),
    ),
    template: str = typer.Option(
        "mcq_choices",
        "--template",
        help="Prompt template: a shipped name (mcq_choices, mcq_letters) or a YAML file.",
    ),
    run_dir: Path | None = typer.Option(
        None,
        "--output-dir",
        "-o",
        help=(
            "The `audioeval run` folder: records, cache and signatures (default: OUTPUT.run/); rerun to "
            "resume."
        ),
    ),
    concurrency: int = typer.Option(
        8, "--concurrency", min=1, help="Requests in flight, over all endpoints."
    ),
    timeout: float = typer.Option(
        300.0,
        "--timeout",
        min=0.001,
        help="Seconds per request, retries included.",
    ),
    temperature: float | None = typer.Option(None, "--temperature"),
    max_tokens: int | None = typer.Option(None, "--max-tokens"),
    audio_part: opt.AudioPart = AudioPartStyle.audio_url,
    sample_rate: int = typer.Option(
        16000,
        "--sample-rate",
        help="Resample audio before sending (0 keeps the native rate).",
    ),
    api_key_env: str = typer.Option(
        "OPENAI_API_KEY", "--api-key-env", help="Environment variable holding the endpoints' API key."
    ),
    no_cache: opt.NoCache = False,
    progress: opt.Progress = True,
    max_failed: opt.MaxFailedFlag = "0",
    no_probe: opt.NoProbe = False,
) -> None:
    """Ask a model every question with its audio (on the `audioeval run` engine) and write
    the predictions file."""
    from audioeval.benchmarks.mcq.definitions import get_benchmark
    from audioeval.presets.mcq_predict import McqPredictConfig
    from audioeval.presets.mcq_predict import predict as run_predict

    with friendly_errors():
        model, urls = _model_and_urls(model, base_urls)
        check_positive("--timeout", timeout)
        check_number("--temperature", temperature)
        check_positive("--max-tokens", max_tokens)
        check_number("--sample-rate", sample_rate)
        failure_limit = parse_max_failed(max_failed)
        bench = get_benchmark(benchmark.value)
        cfg = McqPredictConfig(
            bench=bench,
            metadata=metadata or audio_root / bench.metadata_file,
            audio_root=audio_root,
            base_urls=urls,
            model=model,
            out=out,
            run_dir=run_dir,
            template=template,
            api_key_env=api_key_env,
            concurrency=concurrency,
            timeout=timeout,
            temperature=temperature,
            max_tokens=max_tokens,
            audio_part=audio_part.value,
            sample_rate=sample_rate,
            use_cache=not no_cache,
            progress=progress,
            probe=not no_probe,
        )
        res = run_predict(cfg)
    console.print(
        f"{res.answered}/{res.items} answered ({res.failed} without an answer: see "
        f"{console_text(res.records)}); asked now {res.asked_now}, reused {res.reused}, "
        f"calls {res.calls}, cache hits {res.cache_hits}. Predictions: {console_text(res.out)}"
    )
    enforce_max_failed(
        FailedWork("item", res.items, res.failed, res.answered, res.first_failure), failure_limit
    )


def _model_and_urls(model: str, base_urls: str | None) -> tuple[str, list[str]]:
    """`--model NAME@URL[,URL]`, or a served name with the older `--base_urls URL[,URL]`."""
    name, at, urls = model.partition("@")
    if at and base_urls is None:
        return name, parse_urls(urls.replace("+", ","), "--model")
    if base_urls is not None and not at:
        return model, parse_urls(base_urls, "--base_urls")
    raise InputError("give the endpoints in --model NAME@URL[,URL] (or a served name with --base_urls)", field="--model")
