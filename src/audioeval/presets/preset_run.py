"""The one runner of every data preset (`benchmarks/preset.py`): its values -> one run of the
engine into its output folder, then the benchmark's own figures read back.

`preset_values` fills what was not given: the shared settings' declared defaults
(`SHARED_DEFAULTS`, from `core/settings.py`), then the preset's own defaults for them, then its
options' defaults, and types them (`PresetValues`: the shared settings as the attributes of a
`SharedValues`, the preset's own options by name). `run_preset` asks the
preset for its plan (a bad value is refused before anything is written), holds the folder,
lets the preset check its inputs, runs the engine with the run judge (the shared `judge`
options) and the response cache (default `OUTPUT_DIR/judge_cache.sqlite`), the benchmark's
exports at the folder's top; the preset's `outcome` is given what the exporter returned
(`PresetValues.exported`). `rescore_preset` scores a preset's folder again from its stored
outputs (no model or judge call), refusing a source file (`Preset.source_option`) other than
the one it was scored with.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Collection, Mapping
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from audioeval.adapters.base import GenerationConfig
from audioeval.benchmarks.plugins import load_benchmarks
from audioeval.benchmarks.prepared import PreparedInputs
from audioeval.benchmarks.preset import (
    REQUIRED,
    SHARED_NAMES,
    OptionValue,
    PlanJudge,
    Preset,
    PresetOutcome,
    PresetPlan,
    PresetValues,
    SharedValues,
)
from audioeval.core.errors import InputError, RunConfigError
from audioeval.core.redact import secret_from_env
from audioeval.engine.evaluate import EvalRequest, EvalResult, evaluate_async
from audioeval.engine.model_specs import model_config
from audioeval.engine.rescore import rescore_run, run_exporters
from audioeval.engine.run_judge import JudgeSettings
from audioeval.engine.run_layout import pair_dir
from audioeval.engine.run_plan import RunPlan, plan_run
from audioeval.store.file_digest import file_sha256
from audioeval.store.json_items import gc_paused
from audioeval.store.price_file import read_price_file
from audioeval.store.run_folder import RunFolderError, Unvouched, read_pair, read_run_file
from audioeval.store.run_lock import hold_run_lock
from audioeval.store.signature import SIGNATURE_FILE

SHARED_DEFAULTS: dict[str, OptionValue] = {f.name: f.default for f in fields(SharedValues)}
"""Every shared value's default: the declared one of each setting (`core/settings.py`), None for
the values given beside the flags (`BESIDE_FLAGS`)."""


@dataclass
class PresetRun:
    """A finished preset run: its folder, the benchmark's figures and the engine's account."""

    output_dir: Path
    outcome: PresetOutcome
    engine: EvalResult


def preset_values(preset: Preset, given: Mapping[str, OptionValue], *, run: bool = True) -> PresetValues:
    """Every value the preset's plan and the runner read, typed (`PresetValues`); a required
    one missing is an error for a run (`run`), not for a rescore, which reads only what its
    folder holds."""
    load_benchmarks()  # the registries a plan looks up (predictions formats, scorers) are the benchmarks'
    values: dict[str, OptionValue] = dict(preset.defaults)
    values.update({o.name: o.default for o in preset.options})
    values.update(given)
    missing = sorted(n for n, v in values.items() if v is REQUIRED)
    if missing and run:
        raise InputError(f"{' '.join(preset.command)}: no value for {', '.join(missing)}", field=missing[0])
    typed = _typed(values)
    if typed.settings.output_dir is None and preset.output_dir is not None:
        typed = _typed({**values, "output_dir": preset.output_dir(typed)})
    return typed


def _typed(values: Mapping[str, OptionValue]) -> PresetValues:
    """The shared settings among `values` as `SharedValues` (the others keep their declared
    defaults, `SHARED_DEFAULTS`), the rest as the preset's own options."""
    shared = {n: v for n, v in values.items() if n in SHARED_NAMES}
    own = {n: v for n, v in values.items() if n not in SHARED_NAMES}
    return PresetValues(SharedValues(**shared), own)


def judge_settings(values: SharedValues, overrides: PlanJudge | None = None) -> JudgeSettings:
    """The run judge from the shared `judge` options, with the plan's `overrides` over them."""
    key = values.judge_api_key or secret_from_env(values.judge_api_key_env)
    settings = JudgeSettings(
        urls=list(values.judge or ()),
        model=values.judge_model,
        concurrency=values.judge_concurrency,
        timeout_s=values.judge_timeout,
        api_key_env=values.judge_api_key_env,
        audio_part=values.audio_part,
        sample_rate=values.judge_sample_rate,
        temperature=values.judge_temperature,
        max_tokens=values.judge_max_tokens,
        api_key=key,
    )
    return settings.model_copy(update=dict(overrides)) if overrides else settings


def _judged(preset: Preset, plan: PresetPlan) -> bool:
    """Whether the run asks the run judge: the preset takes the judge options and its plan
    did not say it needs none."""
    return preset.uses("judge") and plan.judge is not None


def preset_request(preset: Preset, values: PresetValues) -> EvalRequest:
    """The engine request of one preset run (the preset's plan, the shared options)."""
    plan = preset.plan(values)
    shared = values.settings
    out = _output_dir(values)
    asks_model = preset.uses("model")
    return EvalRequest(
        benchmarks=[],
        models=[model_config(dict(plan.model), name_field="--name")],
        output_dir=out,
        specs=[(plan.spec, plan.where), *((p.spec, p.where) for p in plan.also)],
        resamples=shared.resamples,
        seed=shared.seed,
        progress=shared.progress,
        use_cache=not shared.no_cache,
        judge=judge_settings(shared, plan.judge) if _judged(preset, plan) else None,
        exclude_missing=shared.exclude_missing,
        probe=not shared.no_probe,
        judge_prompt=shared.judge_prompt,
        # a run that asks no judge keeps the engine's cache file (`mcq predict`)
        cache_path=shared.cache or (out / "judge_cache.sqlite" if preset.uses("judge") else None),
        prices=read_price_file(shared.prices) if shared.prices is not None else None,
        max_calls=shared.max_calls,
        max_cost=shared.max_cost,
        generation=GenerationConfig(temperature=shared.temperature, max_tokens=shared.max_tokens)
        if asks_model
        else GenerationConfig(),
        sample_rate=shared.sample_rate if asks_model else None,
        prepared=PreparedInputs(
            samples={p.spec.name: p.samples for p in (plan, *plan.also) if p.samples is not None},
            rescore_changed_samples=plan.rescore_changed_samples,
            export_info=dict(plan.export_info),
            exports_dir=out,
        ),
    )


def plan_preset(preset: Preset, given: Mapping[str, OptionValue]) -> RunPlan:
    """`--dry-run` of a preset: what its run would ask and roughly cost; nothing asked or written."""
    return plan_run(preset_request(preset, preset_values(preset, given)))


def run_preset(preset: Preset, given: Mapping[str, OptionValue]) -> PresetRun:
    """Run a preset: one run of the engine, then the benchmark's figures read back."""
    values = preset_values(preset, given)
    req = preset_request(preset, values)  # a bad value is refused here, before anything is written
    out = _output_dir(values)
    with hold_run_lock(out):
        if preset.check is not None:
            preset.check(values)
        # Without a judge, a run makes many small acyclic records and no connections:
        # collector passes only cost time.
        # The engine writes summary.json, as in every run directory.
        with gc_paused() if req.judge is None else contextlib.nullcontext():
            run = asyncio.run(evaluate_async(req))
    return PresetRun(out, preset.outcome(out, _with_export(values, run.exports.get(out))), run)


def rescore_preset(
    preset: Preset, output_dir: Path, given: Mapping[str, OptionValue], exporters: Collection[Any] = ()
) -> PresetOutcome:
    """Score a preset's folder again from its stored outputs (no model or judge call); a run
    folder that holds no output of the preset (none of its benchmarks is exported by one of
    `exporters`, the preset's benchmark's) is refused before anything is written."""
    # not given (None): the run's own, from run.json
    resamples, exclude = given.get("resamples"), given.get("exclude_missing")
    kept = {n: v for n, v in given.items() if not (n in ("resamples", "exclude_missing") and v is None)}
    values = preset_values(preset, {**kept, "output_dir": output_dir}, run=False)
    group = preset.command[0]
    with hold_run_lock(output_dir, create=False):
        run = read_run_file(output_dir)  # the run folder's checked reader: RunFolderError naming what it cannot use
        if exporters and not any(e in exporters for e in run_exporters(output_dir)):
            raise _not_its_folder(preset, output_dir, [str(b["name"]) for b in run["benchmarks"]])
        source = values.own.get(preset.source_option) if preset.source_option else None
        if source is not None:
            named = sorted(p.parent for p in (output_dir / group).glob("*/signature.json"))
            folder = named[0] if len(named) == 1 else pair_dir(output_dir, group, "predictions")
            signed = read_pair(folder, None, lines=False)
            if signed.refused or signed.signature is None:
                raise RunFolderError(signed.refused or [Unvouched(folder / SIGNATURE_FILE, None, "not found")])
            stored = signed.signature.get("source_sha256")
            if stored is not None and stored != file_sha256(source):
                flag = preset.source_option
                raise RunConfigError(
                    f"{source} is not the {flag} {output_dir} was scored with ({flag}_sha256 differs)"
                )
        done = rescore_run(output_dir, resamples=resamples, exclude_missing=exclude, locked=True)
    exported = done.exports.get(output_dir)
    if exported is None:
        raise _not_its_folder(preset, output_dir, [str(r.get("benchmark")) for r in done.results])
    return preset.outcome(output_dir, _with_export(values, exported))


def _not_its_folder(preset: Preset, output_dir: Path, benchmarks: list[str]) -> RunConfigError:
    return RunConfigError(
        f"{output_dir} holds no output of `audioeval {' '.join(preset.command)}` (its benchmarks: "
        f"{', '.join(benchmarks) or 'none'}); `audioeval rescore {output_dir}` rescores any run folder"
    )


def _output_dir(values: PresetValues) -> Path:
    """The run's output folder (every preset has one: its default or `Preset.output_dir`)."""
    if values.settings.output_dir is None:
        raise InputError("no output folder (--output-dir)", field="--output-dir")
    return Path(values.settings.output_dir)


def _with_export(values: PresetValues, exported: object) -> PresetValues:
    return replace(values, exported=exported)
