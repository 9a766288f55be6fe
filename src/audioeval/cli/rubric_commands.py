"""`audioeval rubric decompose`: captions -> atomic yes/no rubric items, by a text LLM."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path

import typer

from audioeval.cli import options as opt
from audioeval.cli.errors import friendly_errors
from audioeval.cli.failed_work import MAX_FAILED_HELP, FailedWork, enforce_max_failed, parse_max_failed
from audioeval.cli.options import check_number, check_positive, make_console, parse_urls
from audioeval.core.errors import InputError
from audioeval.report.escaping import console_text
from audioeval.store.run_lock import check_output_file

rubric_app = typer.Typer(
    help="Dynamic rubrics (AnyAudio-Judge style): captions decomposed into atomic yes/no items.",
    no_args_is_help=True,
)
console = make_console()


class Domain(StrEnum):
    auto = "auto"
    speech = "speech"
    sound = "sound"
    music = "music"
    mix = "mix"


DECOMPOSE_ALIASES = {  # the older --llm* spellings
    "--llm": "--judge",
    "--llm-model": "--judge-model",
    "--llm-api-key-env": "--judge-api-key-env",
    "--llm-concurrency": "--judge-concurrency",
    "--llm-timeout": "--judge-timeout",
    "--llm-temperature": "--judge-temperature",
    "--llm-max-tokens": "--judge-max-tokens",
    "--llm-seed": "--judge-seed",
    "--max-attempts": "--judge-max-attempts",
    "--judge-cache": "--cache",
}


@rubric_app.command("decompose", cls=opt.aliased(DECOMPOSE_ALIASES))
def decompose(
    captions: Path = typer.Option(
        ..., "--captions", help="JSONL (or a JSON list) of {id, caption, domain?}; ids unique."
    ),
    llm: str = typer.Option(
        ...,
        "--judge",
        help="Comma-separated OpenAI-compatible endpoints of the text LLM (http://host:port/v1).",
    ),
    llm_model: str = typer.Option(..., "--judge-model", help="Served model name, e.g. Qwen3-30B-A3B-Instruct."),
    output: Path = typer.Option(
        ...,
        "--output",
        help="The rubrics file to write: one JSON line per decomposed caption, in input order.",
    ),
    domain: Domain = typer.Option(
        Domain.mix,
        "--domain",
        help="The prompt of captions without a domain of their own (default mix, as the official "
        "decomposer); auto (ours) lets the LLM name it.",
    ),
    output_dir: Path | None = typer.Option(
        None,
        "--output-dir",
        "-o",
        help=(
            "The run directory: records, LLM answers, cache, decompose_summary.json (failed "
            "captions with the reason). Default: OUTPUT.run/ beside the rubrics file. Rerun to "
            "resume; `audioeval rescore` on it rewrites the rubrics file with no LLM call."
        ),
    ),
    max_items: int | None = typer.Option(
        None, "--max-items", min=1, help="Items kept per caption at most (ours; default: no cap, as the official)."
    ),
    dedupe: bool = typer.Option(
        False, "--dedupe", help="Drop repeated questions (ours; the official keeps them)."
    ),
    max_attempts: int = typer.Option(
        3,
        "--judge-max-attempts",
        min=1,
        help="Calls per step (decomposition, cleaning) until a usable answer; then the caption fails.",
    ),
    api_key_env: str = typer.Option(
        "OPENAI_API_KEY", "--judge-api-key-env", help="Environment variable holding the endpoints' API key."
    ),
    concurrency: int = typer.Option(16, "--judge-concurrency", min=1, help="LLM requests in flight."),
    timeout: float = typer.Option(
        300.0, "--judge-timeout", min=0.001, help="Seconds per LLM call, retries of transport errors included."
    ),
    temperature: float | None = typer.Option(
        None,
        "--judge-temperature",
        help="Decomposition temperature (default 0, greedy, as the official; the cleaning pass "
        "always samples at 0.2 with 1024 tokens, as the official).",
    ),
    max_tokens: int | None = typer.Option(
        None,
        "--judge-max-tokens",
        min=1,
        help="Decomposition tokens at most (default: the official budget: speech 2048, sound and "
        "music 4096, mix and auto 6000).",
    ),
    seed: int | None = typer.Option(None, "--judge-seed", help="Sampling seed sent with every request."),
    no_cache: opt.NoCache = False,
    judge_cache: Path | None = typer.Option(
        None,
        "--cache",
        help="LLM response cache file, keyed by request content only: share one across run "
        "directories and runs to ask nothing twice (default: in the run directory).",
    ),
    progress: opt.Progress = True,
    max_failed: str = typer.Option("0", "--max-failed", help=MAX_FAILED_HELP + " Counts failed captions."),
    no_probe: opt.NoProbe = False,
    judge_prompt: opt.JudgePrompt = None,
) -> None:
    """Decompose each caption into atomic yes/no items {dimension, question, basis} ("yes" =
    the audio matches the caption), in the caption's language: one request for the items,
    read as the AnyAudio-Judge decomposer reads it, one cleaning pass (keep/remove per item);
    when nothing survives, the caption itself is the single item (fallback). Cached and
    resumable."""
    from audioeval.engine.run_judge import JudgeSettings
    from audioeval.presets.rubric_decompose import DecomposeConfig
    from audioeval.presets.rubric_decompose import decompose as run_decompose

    with friendly_errors():
        urls = parse_urls(llm, "--judge")
        check_positive("--judge-timeout", timeout)
        if temperature is not None:
            check_number("--judge-temperature", temperature)
        failure_limit = parse_max_failed(max_failed)
        if judge_cache is not None:
            if no_cache:
                raise InputError("give --cache or --no-cache, not both", field="--cache")
            check_output_file(judge_cache, "the LLM response cache (--cache)")
        settings = JudgeSettings(
            urls=urls,
            model=llm_model,
            concurrency=concurrency,
            timeout_s=timeout,
            api_key_env=api_key_env,
            seed=seed,
            role="LLM",
        )
        cfg = DecomposeConfig(
            captions,
            output,
            settings,
            domain=domain.value,
            max_items=max_items,
            max_attempts=max_attempts,
            dedupe=dedupe,
            temperature=temperature,
            max_tokens=max_tokens,
            run_dir=output_dir,
            use_cache=not no_cache,
            progress=progress,
            probe=not no_probe,
            cache_path=judge_cache,
            prompt=judge_prompt,
        )
        result = run_decompose(cfg)
    counts, s = result.counts, result.summary
    console.print(
        f"{counts['decomposed']}/{counts['captions']} caption(s) decomposed ({counts['fallback']} by "
        f"fallback, {counts.get('unparsed', 0)} unparsed, {counts['failed']} failed), "
        f"{counts['items']} item(s); decomposed now "
        f"{s.get('decomposed_now', 0)}, reused {s.get('reused', 0)}, LLM calls {s.get('llm_calls', 0)}, "
        f"cache hits {s.get('cache_hits', 0)}.",
        highlight=False,
    )
    console.print(
        f"Rubrics: {console_text(result.output)}  Summary: {console_text(result.summary_path)}",
        highlight=False,
    )
    enforce_max_failed(
        FailedWork(
            "caption", counts["captions"], counts["failed"], counts["decomposed"], result.first_failure
        ),
        failure_limit,
    )
