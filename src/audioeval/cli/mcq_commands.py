"""`audioeval mcq predict`: MMAR and MMAU questions asked of a model, answers written to a
predictions file. (`mcq score` and `mcq rescore` are the family's `Preset`, built from
`benchmarks/mcq/preset.py` by `cli/preset_commands.py` into this same group.)
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path

import typer

from audioeval.cli import options as opt
from audioeval.cli.errors import friendly_errors
from audioeval.cli.failed_work import FailedWork, enforce_max_failed, parse_max_failed
from audioeval.cli.options import (
    AudioPartStyle,
    check_number,
    check_positive,
    make_console,
    parse_urls,
)
from audioeval.core.errors import InputError
from audioeval.report.escaping import console_text

mcq_app = typer.Typer(
    help="MMAR and MMAU: multiple-choice audio reasoning, scored official-exact and robust.",
    no_args_is_help=True,
)
console = make_console()


class BenchmarkName(StrEnum):
    mmar = "mmar"
    mmau = "mmau"


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
