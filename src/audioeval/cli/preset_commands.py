"""The one mechanism that turns every benchmark's presets and tools (`benchmarks/preset.py`)
into `audioeval` commands.

For each loaded benchmark (`benchmarks/plugins.load_benchmarks`), a `Preset` with command
`(group, name)` becomes `audioeval GROUP NAME` (one name: a top-level `audioeval NAME`) with
its own options plus the shared settings it exposes (generated from their one declaration,
`core/settings.py`: one flag, bound and help each, the same on every command), and
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
from audioeval.cli import setting_options
from audioeval.cli.errors import friendly_errors, report_skipped
from audioeval.cli.failed_work import FailedWork, enforce_max_failed, parse_max_failed
from audioeval.cli.options import make_console, parse_urls
from audioeval.cli.resume_notes import report_failed_outputs, report_ignored_lines
from audioeval.cli.run_commands import show_usage
from audioeval.core.errors import InputError
from audioeval.core.settings import SETTINGS, setting_of_flag
from audioeval.report.escaping import console_text
from audioeval.store.run_lock import check_output_file

console = make_console()


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


def _shared(name: str, preset: Preset) -> tuple[str, Any, Any]:
    """A shared setting as (name, annotation, default), generated from its declaration
    (`core/settings.py`), with the preset's default and help wording."""
    return name, *setting_options.parameter(
        name, default=preset.defaults.get(name, setting_options.SAME), help=preset.helps.get(name)
    )


def _own(option: PresetOption) -> tuple[Any, Any]:
    """A preset option -> (annotation, default) of its typer parameter; one with the flag of a
    shared setting (a tool's `--output-dir`) is that setting, with the option's default and help
    (one meaning per flag)."""
    if not option.argument and setting_of_flag(option.flag) is not None:
        name = setting_of_flag(option.flag).name  # type: ignore[union-attr]
        return setting_options.parameter(name, default=option.default, help=option.help or None)
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


def _checks(values: Mapping[str, Any], preset: Preset | None = None) -> dict[str, Any]:
    """The values as the runner reads them: endpoint lists parsed (the preset's offline judge
    kept by name), the cache flags checked (each number was checked against its declared bounds
    as it was parsed: `cli/number_flags.py`)."""
    out = dict(values)
    offline = preset.offline_judge if preset is not None else None
    if out.get("judge") is not None and not (isinstance(out["judge"], str) and out["judge"].strip() == offline):
        out["judge"] = parse_urls(out["judge"], "--judge")
    if "model" in out and "base_urls" in out:  # the model group
        out["model"], out["model_urls"] = model_and_urls(out["model"], out.pop("base_urls"))
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
            values = _checks(given, preset)
            if values.get("dry_run"):
                from audioeval.cli.run_commands import print_plan
                from audioeval.presets.preset_run import plan_preset

                print_plan(plan_preset(preset, values))
                return
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
        show_usage(engine.results)
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
    params += [_shared(s.name, preset) for s in SETTINGS if preset.exposes(s.name)]
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
        ("resamples", *setting_options.parameter("resamples", default=None, help="Bootstrap resamples (default: the run's own).")),
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
