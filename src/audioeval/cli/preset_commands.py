"""The one mechanism that turns every benchmark's presets and tools (`benchmarks/preset.py`)
into `audioeval` commands.

For each loaded benchmark (`benchmarks/plugins.load_benchmarks`), a `Preset` with command
`(group, name)` becomes `audioeval GROUP NAME` (one name: a top-level `audioeval NAME`) with
its own options plus the shared options it exposes (`SHARED`: one flag, help and check each, the same on every preset), and
`audioeval GROUP rescore OUTPUT_DIR` (scored again from stored outputs; unless `Preset.rescore`
is False); a `PresetTool`
becomes `audioeval GROUP NAME` with its options. Every command accepts the underscore form of
its flags and its hidden aliases (`options.aliased`). After a run: the benchmark's console
table (`Benchmark.console_table`), the judge reliability, the preset's notes, the engine's
call counts, then `--max-failed`.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from audioeval.benchmarks.contract import Benchmark
from audioeval.benchmarks.preset import REQUIRED, Preset, PresetOption, PresetTool
from audioeval.cli import options as opt
from audioeval.cli.errors import friendly_errors, report_skipped
from audioeval.cli.failed_work import MAX_FAILED_HELP, FailedWork, enforce_max_failed, parse_max_failed
from audioeval.cli.options import check_number, check_positive, make_console, parse_urls
from audioeval.cli.resume_notes import report_failed_outputs, report_ignored_lines
from audioeval.core.errors import InputError
from audioeval.report.escaping import console_text
from audioeval.store.run_lock import check_output_file

console = make_console()


# Shared option value name -> (group, type, flags, typer settings, generic default).
SHARED: dict[str, tuple[str, Any, tuple[str, ...], dict[str, Any], Any]] = {
    "judge": ("judge", str, ("--judge",), {"help": "Comma-separated OpenAI-compatible judge endpoints."}, REQUIRED),
    "judge_model": ("judge", str, ("--judge-model",), {"help": "Served judge model name."}, REQUIRED),
    "judge_concurrency": ("judge", int, ("--judge-concurrency",), {"min": 1, "help": "Judge requests in flight, over all endpoints."}, 16),
    "judge_timeout": ("judge", float, ("--judge-timeout",), {"min": 0.001, "help": "Seconds per judge request, retries of transport errors included."}, 300.0),
    "judge_api_key_env": ("judge", str, ("--judge-api-key-env",), {"help": "Environment variable holding the endpoints' API key, if they need one."}, "OPENAI_API_KEY"),
    "audio_part": ("judge", opt.AudioPartStyle, ("--audio-part",), {"help": "audio_url (vLLM data URI) or input_audio (OpenAI)."}, opt.AudioPartStyle.audio_url),
    "judge_sample_rate": ("judge", int, ("--judge-sample-rate",), {"help": "Resample clips sent to the judge (0 keeps the native rate)."}, 16000),
    "judge_temperature": ("judge", float | None, ("--judge-temperature",), {"help": "Judge sampling temperature (default: the server's)."}, None),
    "judge_max_tokens": ("judge", int | None, ("--judge-max-tokens",), {"help": "Judge max_tokens."}, None),
    "judge_prompt": ("judge", Path | None, ("--judge-prompt",), {"help": opt.JUDGE_PROMPT_HELP}, None),
    "output_dir": ("run", Path, ("--output-dir", "-o"), {"help": "The run directory; rerun to resume."}, REQUIRED),
    "seed": ("run", int, ("--seed",), {"help": "Seed of the per-vote option shuffles and bootstrap."}, 0),
    "cache": ("run", Path | None, ("--cache",), {"help": "Judge response cache file, keyed by request content only: share one across output folders and runs to ask nothing twice (default: OUTPUT_DIR/judge_cache.sqlite)."}, None),
    "no_cache": ("run", bool, ("--no-cache",), {"help": "Do not read or write the response cache."}, False),
    "resamples": ("run", int, ("--resamples",), {"min": 10, "help": "Bootstrap resamples for confidence intervals."}, 1000),
    "progress": ("run", bool, ("--progress/--no-progress",), {"help": "Show the progress bar."}, True),
    "exclude_missing": ("run", bool, ("--exclude-missing",), {"help": "Leave samples without a usable output (no prediction, output missing or unreadable) out of the means, instead of scoring them 0; they are still counted."}, False),
    "max_failed": ("run", str, ("--max-failed",), {"help": MAX_FAILED_HELP}, "0"),
    "no_probe": ("run", bool, ("--no-probe",), {"help": opt.NO_PROBE_HELP}, False),
    "model": ("model", str, ("--model", "-m"), {"help": "The model under test: NAME@URL[,URL] (served model name at OpenAI-compatible endpoints)."}, REQUIRED),
    "base_urls": ("model", str | None, ("--base-urls",), {"hidden": True, "help": "The endpoints, with a served name in --model."}, None),
    "concurrency": ("model", int, ("--concurrency",), {"min": 1, "help": "Requests in flight, over all endpoints."}, 8),
    "timeout": ("model", float, ("--timeout",), {"min": 0.001, "help": "Seconds per request, retries included."}, 300.0),
    "api_key_env": ("model", str, ("--api-key-env",), {"help": "Environment variable holding the endpoints' API key."}, "OPENAI_API_KEY"),
    "temperature": ("model", float | None, ("--temperature",), {"help": "Sampling temperature (default: the server's)."}, None),
    "max_tokens": ("model", int | None, ("--max-tokens",), {"help": "max_tokens of each answer (default: the server's)."}, None),
    "sample_rate": ("model", int, ("--sample-rate",), {"help": "Resample audio before sending (0 keeps the native rate)."}, 16000),
    "model_audio_part": ("model", opt.AudioPartStyle, ("--audio-part",), {"help": "audio_url (vLLM data URI) or input_audio (OpenAI)."}, opt.AudioPartStyle.audio_url),
}  # fmt: skip


def model_and_urls(model: str, base_urls: str | None) -> tuple[str, list[str]]:
    """`--model NAME@URL[,URL]`, or a served name with the older `--base_urls URL[,URL]`."""
    name, at, urls = model.partition("@")
    if at and base_urls is None:
        return name, parse_urls(urls.replace("+", ","), "--model")
    if base_urls is not None and not at:
        return model, parse_urls(base_urls, "--base_urls")
    raise InputError(
        "give the endpoints in --model NAME@URL[,URL] (or a served name with --base_urls)", field="--model"
    )


def _shared(name: str, preset: Preset | None = None) -> tuple[str, Any, Any]:
    """A shared option as (name, annotation, default), with the preset's help and default."""
    _, kind, decls, settings, default = SHARED[name]
    if preset is not None:
        settings = {**settings, "help": preset.helps.get(name, settings["help"])}
        default = preset.defaults.get(name, default)
    return name, Annotated[kind, typer.Option(*decls, **settings)], default


def _own(option: PresetOption) -> tuple[Any, Any]:
    """A preset option -> (annotation, default) of its typer parameter."""
    kind: Any = option.type
    if option.choices:
        kind = StrEnum(f"{option.name.title()}Choice", {c: c for c in option.choices})  # type: ignore[misc]
    if option.optional:
        kind = kind | None
    extra: dict[str, Any] = {"help": option.help}
    if option.minimum is not None:
        extra["min"] = option.minimum
    if option.argument:
        return Annotated[kind, typer.Argument(metavar=option.flag, **extra)], option.default
    decls = [option.flag if option.off_flag is None else f"{option.flag}/{option.off_flag}"]
    if option.short:
        decls.append(option.short)
    return Annotated[kind, typer.Option(*decls, **extra)], option.default


def _command(func: Callable[..., None], params: list[tuple[str, Any, Any]]) -> Callable[..., None]:
    """`func(**values)` with a typer signature of (name, annotation, default) parameters."""

    def command(**values: Any) -> None:
        func(**{k: (v.value if isinstance(v, StrEnum) else v) for k, v in values.items()})

    ordered = sorted(params, key=lambda p: p[2] is not REQUIRED)  # required ones first
    command.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [
            inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=a,
                              default=inspect.Parameter.empty if d is REQUIRED else d)
            for n, a, d in ordered
        ]
    )  # fmt: skip
    command.__annotations__ = {n: a for n, a, _ in params}
    return command


def _print_figures(bench: Benchmark, figures: Mapping[str, Any]) -> None:
    from audioeval.report.reliability_table import print_reliability

    shown = bench.console_table(figures) if bench.console_table is not None else None
    for item in shown if isinstance(shown, list) else [shown] if shown is not None else []:
        console.print(item)
    print_reliability(figures.get("reliability"), console=console)


def _checks(values: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(values)
    if out.get("judge") is not None:  # None: a preset whose judge is optional, not asked for
        out["judge"] = parse_urls(out["judge"], "--judge")
        check_positive("--judge-timeout", out.get("judge_timeout"))
        check_number("--judge-temperature", out.get("judge_temperature"))
        check_number("--judge-sample-rate", out.get("judge_sample_rate"))
        check_positive("--judge-max-tokens", out.get("judge_max_tokens"))
    if "model" in out and "base_urls" in out:  # the model group
        out["model"], out["model_urls"] = model_and_urls(out["model"], out.pop("base_urls"))
        check_positive("--timeout", out.get("timeout"))
        check_number("--temperature", out.get("temperature"))
        check_positive("--max-tokens", out.get("max_tokens"))
        check_number("--sample-rate", out.get("sample_rate"))
    if out.get("cache") is not None and out.get("no_cache"):
        raise InputError("give --cache or --no-cache, not both", field="--cache")
    if out.get("cache") is not None:
        check_output_file(out["cache"], "the judge response cache (--cache)")
    return out


def score_command(bench: Benchmark, preset: Preset) -> Callable[..., None]:
    """The typer command of a preset run."""

    def run(**given: Any) -> None:
        from audioeval.presets.preset_run import run_preset

        with friendly_errors():
            failure_limit = parse_max_failed(given["max_failed"])
            values = _checks(given)
            done = run_preset(preset, values)
        out, engine = done.outcome, done.engine
        report_ignored_lines(engine.ignored_lines)
        for line in engine.readings:
            console.print(console_text(line), highlight=False)
        report_skipped(out.skipped)
        _print_figures(bench, out.figures)
        report_failed_outputs(out.failed_outputs, excluded=bool(values.get("exclude_missing")))
        for note in out.notes:
            console.print(note)
        asked = (
            f"asked now {engine.asked}, reused {engine.reused}, {engine.calls} model call(s)"
            if preset.uses("model")
            else f"{engine.judge_calls} judge call(s)"
        )
        console.print(f"{asked}, {engine.cache_hits} cache hit(s). Results: {console_text(done.output_dir)}")
        enforce_max_failed(
            FailedWork(out.unit, out.total, out.failed, out.scored, out.first_failure, out.no_retry),
            failure_limit,
        )

    params = [(o.name, *_own(o)) for o in preset.options]
    params += [_shared(name, preset) for name in SHARED if preset.exposes(name)]
    command = _command(run, params)
    command.__doc__ = preset.help
    return command


def rescore_command(bench: Benchmark, preset: Preset) -> Callable[..., None]:
    """`GROUP rescore OUTPUT_DIR`: the preset's folder scored again, no model or judge call."""

    def rescore(**given: Any) -> None:
        from audioeval.presets.preset_run import rescore_preset

        folder = given.pop("output_dir")
        given.pop("reparse", None)  # every stored raw answer is parsed again by any rescore
        with friendly_errors():
            out = rescore_preset(preset, folder, given, list(bench.exporters.values()))
        console.print(f"{preset.title or preset.command[0]} (rescored): no model or judge call.")
        _print_figures(bench, out.figures)

    params: list[tuple[str, Any, Any]] = [
        ("output_dir", Annotated[Path, typer.Argument(help=f"A finished or partial `{' '.join(preset.command)}` output directory.")], REQUIRED),
    ]  # fmt: skip
    source = next((o for o in preset.options if o.name == preset.source_option), None)
    if source is not None:
        params.append((source.name, *_own(source)))
    params += [
        ("reparse", Annotated[bool, typer.Option("--reparse", help="Parse every stored raw answer again (every rescore does).")], False),
        ("resamples", Annotated[int | None, typer.Option("--resamples", min=10, help="Bootstrap resamples (default: the run's own).")], None),
        ("exclude_missing", Annotated[bool | None, typer.Option("--exclude-missing/--count-missing", help="Leave samples without a usable output out of the means, or count them (default: as the run did).")], None),
    ]  # fmt: skip
    command = _command(rescore, params)
    command.__doc__ = "Recompute the benchmark's files from the stored outputs, with no model or judge call."
    return command


def tool_command(tool: PresetTool) -> Callable[..., None]:
    def run(**values: Any) -> None:
        with friendly_errors():
            lines, skipped = tool.run(values)
        report_skipped(skipped)
        for line in lines:
            console.print(line, markup=False, highlight=False)

    command = _command(run, [(o.name, *_own(o)) for o in tool.options])
    command.__doc__ = tool.help
    return command


def add_preset_commands(
    app: typer.Typer, benchmarks: Mapping[str, Benchmark], existing: Mapping[str, typer.Typer] | None = None
) -> None:
    """Every benchmark's presets and tools as commands of `app`, one sub-app per group; a group
    in `existing` (already added to `app`, with commands of its own) takes them in."""
    groups: dict[str, typer.Typer] = dict(existing or {})

    def group(name: str, bench: Benchmark) -> typer.Typer:
        if name not in groups:
            groups[name] = typer.Typer(help=bench.description, no_args_is_help=True)
            app.add_typer(groups[name], name=name)
        return groups[name]

    for bench in benchmarks.values():
        for preset in bench.presets:
            if len(preset.command) == 1:  # a top-level command; `audioeval rescore` reads its folder
                app.command(preset.command[0], cls=opt.aliased(dict(preset.aliases)))(
                    score_command(bench, preset)
                )
                continue
            sub = group(preset.command[0], bench)
            sub.command(preset.command[1], cls=opt.aliased(dict(preset.aliases)))(
                score_command(bench, preset)
            )
            if preset.rescore:
                rescore = rescore_command(bench, preset)
                sub.command("rescore", cls=opt.aliased({"--bootstrap": "--resamples"}))(rescore)
        for tool in bench.tools:
            sub = group(tool.command[0], bench)
            sub.command(tool.command[1], cls=opt.aliased(dict(tool.aliases)))(tool_command(tool))
