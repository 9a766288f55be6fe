"""`audioeval judge-eval`: how good is an audio judge? Its rubric scores against the labels of
a judge benchmark (AnyAudio-Judge-Bench layout), per subset, with confidence intervals."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path

import typer

from audioeval.cli import options as opt
from audioeval.cli.errors import friendly_errors, report_skipped
from audioeval.cli.failed_work import MAX_FAILED_HELP, FailedWork, enforce_max_failed, parse_max_failed
from audioeval.cli.options import AudioPartStyle, check_number, make_console, parse_urls
from audioeval.core.errors import InputError
from audioeval.report.escaping import console_text
from audioeval.store.run_lock import check_output_file, hold_run_lock

console = make_console()


class JudgeMode(StrEnum):
    per_item = "per_item"
    all_at_once = "all_at_once"


JUDGE_EVAL_ALIASES = {
    "--bench": "--benchmark",
    "--judge-cache": "--cache",
    "--max-attempts": "--judge-max-attempts",
}


def judge_eval(
    bench: str = typer.Option(
        ...,
        "--benchmark",
        "-b",
        help="The judge benchmark: a JSONL file (audio paths relative to it), a save_to_disk folder, a "
        "parquet file or folder, or a hub name such as AnyAudio-Judge-Bench/en (read from "
        "$AUDIOEVAL_DATA/AnyAudio-Judge-Bench/en when there, else through the datasets library).",
    ),
    config: str | None = typer.Option(
        None, "--config", help="Configuration (en or zh) of a hub name or folder."
    ),
    judge: str = typer.Option(..., "--judge", help="OpenAI-compatible judge endpoint(s) URL[,URL]."),
    judge_model: opt.JudgeModel = ...,
    judge_concurrency: opt.JudgeConcurrency = 16,
    judge_timeout: float = typer.Option(
        300.0, "--judge-timeout", help="Seconds per judge request, retries included."
    ),
    judge_api_key_env: str = typer.Option(
        "OPENAI_API_KEY",
        "--judge-api-key-env",
        help="Environment variable holding the judge endpoints' API key.",
    ),
    audio_part: opt.AudioPart = AudioPartStyle.audio_url,
    output_dir: Path = typer.Option(
        Path("outputs/judge-eval"), "--output-dir", "-o", help="Where results go; rerun to resume."
    ),
    threshold: float | None = typer.Option(
        None, "--threshold", help="A row is judged a match when its score is at or above this (default: 0.8 with "
        "--mode all_at_once, as the official generate mode; 0.5 with per_item, ours: the official "
        "logits mode computes no accuracy)."
    ),
    tune_on: str | None = typer.Option(
        None,
        "--tune-on",
        help="A dev split (same layouts as --benchmark): the threshold that maximises its accuracy.",
    ),
    mode: JudgeMode = typer.Option(
        JudgeMode.per_item,
        "--mode",
        help="per_item: one request per rubric item, P(yes) from logprobs; all_at_once: one request "
        "per row listing every item (yes/no answers).",
    ),
    samples: int = typer.Option(
        5, "--samples", min=1, help="Sampled answers per item when the judge sends no logprobs."
    ),
    max_attempts: int = typer.Option(
        3, "--judge-max-attempts", min=1, help="Attempts per request whose answer is unusable."
    ),
    limit: int | None = typer.Option(None, "--limit", min=1, help="Judge only the first N rows."),
    resamples: int = typer.Option(1000, "--resamples", min=0, help="Bootstrap resamples of the CIs."),
    seed: int = typer.Option(0, "--seed"),
    data_root: Path | None = typer.Option(None, "--data-root", help="Where local copies of benchmarks live."),
    no_cache: opt.NoJudgeCache = False,
    judge_cache: Path | None = typer.Option(
        None,
        "--cache",
        help="Judge response cache file, keyed by request content only: share one across output "
        "folders and runs to ask nothing twice (default: in OUTPUT_DIR).",
    ),
    progress: opt.Progress = True,
    max_failed: str = typer.Option(
        "0", "--max-failed", help=MAX_FAILED_HELP + " Counts rows the judge failed."
    ),
    no_probe: opt.NoProbe = False,
    judge_prompt: opt.JudgePrompt = None,
) -> None:
    """Score a judge against labelled rows: accuracy, balanced accuracy and AUROC per subset."""
    from audioeval.engine.run_judge import JudgeSettings
    from audioeval.presets.judge_eval import JudgeEvalConfig, run_judge_eval
    from audioeval.report.judge_eval_table import print_judge_eval_summary

    with friendly_errors(), hold_run_lock(output_dir):
        failure_limit = parse_max_failed(max_failed)
        check_number("--threshold", threshold)
        check_number("--judge-timeout", judge_timeout, inclusive=False)
        if judge_cache is not None:
            if no_cache:
                raise InputError("give --cache or --no-cache, not both", field="--cache")
            check_output_file(judge_cache, "the judge response cache (--cache)")
        settings = JudgeSettings(
            urls=parse_urls(judge, "--judge"),
            model=judge_model,
            concurrency=judge_concurrency,
            timeout_s=judge_timeout,
            api_key_env=judge_api_key_env,
            audio_part=audio_part.value,
            temperature=0.0,
        )
        cfg = JudgeEvalConfig(
            bench,
            settings,
            output_dir,
            config=config,
            threshold=threshold,
            tune_on=tune_on,
            mode=mode.value,  # type: ignore[arg-type]
            samples=samples,
            max_attempts=max_attempts,
            limit=limit,
            n_resamples=resamples,
            seed=seed,
            use_cache=not no_cache,
            progress=progress,
            probe=not no_probe,
            data_root=data_root,
            cache_path=judge_cache,
            prompt=judge_prompt,
        )
        run = run_judge_eval(cfg)
        report_skipped(run.skipped)
    summary = run.result.summary
    print_judge_eval_summary(summary, console=console)
    console.print(f"judged {run.asked} row(s) in this run. Results: {console_text(output_dir)}")
    judged = int(summary["n"]) - int(summary["unscored"]["n"])
    skipped = len(run.skipped)  # malformed rows count as failed work (judge_eval_summary.json: `skipped`)
    if skipped:
        console.print(f"skipped {skipped} malformed row(s) (ids in judge_eval_summary.json, `skipped`)")
    first = run.result.first_failure or (run.skipped[0].describe() if run.skipped else None)
    work = FailedWork(
        "row", judged + skipped, int(summary["failed"]["n"]) + skipped, int(summary["n_scored"]), first
    )
    enforce_max_failed(work, failure_limit)
