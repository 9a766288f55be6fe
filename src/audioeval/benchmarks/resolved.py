"""A benchmark ready to run: its spec merged with its task's defaults, every name resolved
to registered code (template, post-processing chain, scorers, metrics).

Resolving is also what `audioeval validate` checks for every shipped spec.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from audioeval.benchmarks.exporter_names import EXPORTERS
from audioeval.benchmarks.pair_exports import Exporter
from audioeval.benchmarks.plugins import broken_plugins_note, load_benchmarks, plugin_origins
from audioeval.benchmarks.resolved_benchmark import ResolvedBenchmark as ResolvedBenchmark  # re-exported
from audioeval.benchmarks.sources.source_formats import source_type_names
from audioeval.benchmarks.spec import BenchmarkSpec, StepSpec
from audioeval.benchmarks.tasks import asr_defaults_for, default_scorers, get_task
from audioeval.core.errors import InputError
from audioeval.core.suggest import one_of
from audioeval.metrics.corpus import UNDECLARED, get_metric
from audioeval.postprocess.steps import build_chain
from audioeval.prompts.templates import load_template
from audioeval.scoring.base import Scorer, declared_metrics
from audioeval.scoring.hook_guard import MEAN_PREFIX, mean_keys, scorer_origin
from audioeval.scoring.judged import PROMPT_FILE, takes_prompt_file
from audioeval.scoring.profiles import profile_names as registered_profiles
from audioeval.scoring.scorer_registry import build_scorer, scorer_factory

PROFILED_SCORERS = ("wer", "cer", "asr_wer", "asr_cer", "bleu", "accuracy", "mcq_match")
"""The scorers a spec's `profile` (and `--profile`) sets; the others keep their conventions."""
LANGUAGE_SCORERS = ("wer", "cer", "asr_wer", "asr_cer", "asr_includes", "asr_accuracy")
"""The scorers given the spec's `language` unless they name one (text chain, transcriber)."""


def split_step(step: StepSpec, where: str, field_name: str) -> tuple[str, dict[str, Any]]:
    """`"wer"` -> ("wer", {}); `{"wer": {"normaliser": [...]}}` -> ("wer", {...})."""
    if isinstance(step, str):
        return step, {}
    if isinstance(step, dict) and len(step) == 1:
        name, args = next(iter(step.items()))
        return str(name), dict(args or {})
    raise InputError("expected a name or a one-key mapping {name: {args}}", file=where, field=field_name)


def _built(name: str, args: dict[str, Any], where: str) -> Scorer:
    """`build_scorer`; an unknown scorer name is led by the note of every plugin that was not
    loaded (one of them may be the one that provides it)."""
    from audioeval.scoring.scorer_registry import SCORERS

    note = "" if name in SCORERS else broken_plugins_note()
    if not note:
        return build_scorer(name, args, where=where)
    try:
        return build_scorer(name, args, where=where)
    except InputError as exc:
        raise InputError(f"{note}; {exc.message}", file=exc.file, field=exc.field) from None


def undeclared_units(scorers: list[Scorer]) -> dict[str, str]:
    """`undeclared` for each `mean:` metric of a scorer from an installed package: the unit
    it has unless a benchmark declares the metric (`Benchmark.metrics`, which `get_metric`
    finds first). Such a metric is kept off the boards (`engine/leaderboard.py`), whose 0–100
    scale needs its unit."""
    units: dict[str, str] = {}
    for scorer in scorers:
        if scorer_origin(scorer) != "audioeval":
            for key in mean_keys(scorer):
                units.setdefault(MEAN_PREFIX + key, UNDECLARED)
    return units


def profile_names() -> list[str]:
    """The registered scoring profiles (a benchmark registers its own with its scorers)."""
    load_benchmarks()  # registers the benchmarks' profiles
    return registered_profiles()


def with_profile(spec: BenchmarkSpec, profile: str | None) -> BenchmarkSpec:
    """The spec scored under `profile` (`--profile`); None keeps the spec's own."""
    if profile is None or profile == spec.profile:
        return spec
    known = profile_names()
    if profile not in known:
        raise InputError(f"unknown scoring profile {profile!r}: one of {', '.join(known)}", field="profile")
    return spec.model_copy(update={"profile": profile})


def resolve(spec: BenchmarkSpec, where: str) -> ResolvedBenchmark:
    load_benchmarks()  # every benchmark's scorers, templates, profiles and exporters registered
    for kind, value, known, field_name in (
        ("scoring profile", spec.profile, profile_names(), "profile"),
        ("source type", spec.source.type, source_type_names(), "source.type"),
    ):  # names the loaded benchmarks contribute, checked now that they are loaded
        try:
            one_of(kind, value, known)
        except ValueError as exc:
            raise InputError(str(exc), file=where, field=field_name) from None
    task = get_task(spec.task, where=where)
    scorers_default, metrics_default, headline_default = default_scorers(task), task.metrics, task.headline
    if task.name == "asr":
        scorers_default, metrics_default, headline_default = asr_defaults_for(spec.language)
    template = load_template(spec.prompt or task.prompt)
    chain = build_chain(
        list(spec.postprocess if spec.postprocess is not None else task.postprocess), where=where
    )
    scorers = []
    for i, step in enumerate(spec.scorers if spec.scorers is not None else scorers_default):
        name, args = split_step(step, where, f"scorers[{i}]")
        if name in LANGUAGE_SCORERS and "language" not in args:
            args = {**args, "language": spec.language}
        if name in PROFILED_SCORERS and spec.profile != "audioeval" and "profile" not in args:
            args = {**args, "profile": spec.profile}
        args = _prompt_file_beside_spec(_runtime_beside_spec(args, where), where)
        scorers.append(_built(name, args, where=f"{where} scorers[{i}]"))
    if not scorers:
        raise InputError(
            f"task {task.name} has no default scorers and no benchmark provides them: name them in `scorers`",
            file=where,
            field="scorers",
        )
    renamed = profile_metric_names(scorers)
    if spec.metrics is not None:
        metric_names = [renamed.get(m, m) for m in spec.metrics]
    else:
        metric_names = default_metrics([renamed.get(m, m) for m in metrics_default], scorers)
    if not metric_names:
        raise InputError(
            f"no metrics: the task {task.name} has none of its own and its scorers declare none; "
            "name them in `metrics`",
            file=where,
            field="metrics",
        )
    units = undeclared_units(scorers)  # a declared metric (`get_metric` finds it first) is as declared
    metrics = [get_metric(m, where=f"{where} metrics", unit=units.get(m)) for m in metric_names]
    default = renamed.get(headline_default, headline_default)
    if spec.headline:
        headline = renamed.get(spec.headline, spec.headline)
    else:
        headline = default if default in metric_names else metric_names[0]
    if headline not in metric_names:
        raise InputError(
            f"headline {headline!r} is not one of the metrics {metric_names}", file=where, field="headline"
        )
    if spec.exports is not None:
        EXPORTERS.get(spec.exports, where=where, field="exports")
    plugins = plugin_origins([s.name for s in scorers], spec.name)
    return ResolvedBenchmark(spec, where, task, template, chain, scorers, metrics, headline, plugins=plugins)


def profile_metric_names(scorers: Sequence[Scorer]) -> dict[str, str]:
    """Metric names a scoring profile gives another definition: `{"wer": "mean_wer"}` when
    `asr_wer` under profile ultraeval feeds the mean of per-sample rates in place of the
    corpus rate (a scorer's `metric_renames`), and no scorer of the benchmark feeds `wer`
    itself. The task's defaults, a spec's `metrics` and its `headline` all go by them, so a
    spec that names `wer` reports `mean_wer` under that profile."""
    renames: dict[str, str] = {}
    for scorer in scorers:
        renames.update(scorer.metric_renames)
    fed = {m for s in scorers if (d := declared_metrics(s)) is not None for m in d[1]}
    return {old: new for old, new in renames.items() if old not in fed}


def default_metrics(task_metrics: Sequence[str], scorers: Sequence[Scorer]) -> list[str]:
    """The metrics of a spec that lists scorers but no metrics: the task's default metrics that a
    listed scorer feeds (every one, when a scorer declares none), then each listed scorer's
    default metrics not among them yet. A spec that drops `asr_wer` thus drops `wer`, and one
    that adds `utmos` gains `mean:utmos`."""
    declared = [declared_metrics(s) for s in scorers]
    fed = {m for d in declared if d is not None for m in d[1]}
    everything = any(d is None for d in declared)
    kept = [m for m in task_metrics if everything or m in fed]
    produced = [m for d in declared if d is not None for m in d[0]]
    return kept + [m for m in dict.fromkeys(produced) if m not in kept]


def _default_scorers(spec: BenchmarkSpec, where: str) -> list[StepSpec]:
    if spec.scorers is not None:
        return list(spec.scorers)
    task = get_task(spec.task, where=where)
    return list(asr_defaults_for(spec.language)[0] if task.name == "asr" else default_scorers(task))


def judges_spec(spec: BenchmarkSpec, where: str) -> bool:
    """Whether a scorer of the spec (its own or its task's) asks a judge."""
    return any(
        takes_prompt_file(_factory(split_step(s, where, "scorers")[0], where))
        for s in _default_scorers(spec, where)
    )


def _factory(name: str, where: str) -> Any:
    load_benchmarks()
    return scorer_factory(name, where=where)


def with_judge_prompt(spec: BenchmarkSpec, prompt_file: str | Path | None, where: str) -> BenchmarkSpec:
    """The spec with every judged scorer's prompt read from `prompt_file` (`--judge-prompt`),
    stored in its `scorers` (so run.json keeps it and `rescore` reads the same file); None,
    or a spec no judge scores, is kept as it is. A scorer's own `prompt_file` is replaced."""
    if prompt_file is None or not judges_spec(spec, where):
        return spec
    path = str(Path(prompt_file).absolute())
    steps: list[StepSpec] = []
    for i, step in enumerate(_default_scorers(spec, where)):
        name, args = split_step(step, where, f"scorers[{i}]")
        judged = takes_prompt_file(_factory(name, where))
        steps.append({name: {**args, PROMPT_FILE: path}} if judged else step)
    return spec.model_copy(update={"scorers": steps})


def _prompt_file_beside_spec(args: dict[str, Any], where: str) -> dict[str, Any]:
    """A scorer's relative `prompt_file` is read from the benchmark spec's folder."""
    ref = args.get(PROMPT_FILE)
    base = Path(where)
    if not isinstance(ref, str) or Path(ref).is_absolute() or not base.is_file():
        return args
    return {**args, PROMPT_FILE: str(base.parent / ref)}


def _runtime_beside_spec(args: dict[str, Any], where: str) -> dict[str, Any]:
    """A scorer's relative `runtime` spec file is read from the benchmark spec's folder, as the
    spec's other relative paths are."""
    ref = args.get("runtime")
    if not isinstance(ref, str) or not ref.endswith((".yaml", ".yml")) or Path(ref).is_absolute():
        return args
    base = Path(where)
    return {**args, "runtime": str(base.parent / ref)} if base.is_file() else args


def exporter_for(bench: ResolvedBenchmark) -> Exporter | None:
    """The exporter the spec names (`exports:`), else that of its first scorer that has one."""
    load_benchmarks()
    if bench.spec.exports is not None:
        return EXPORTERS.get(bench.spec.exports)
    return next((e for s in bench.scorers if (e := EXPORTERS.find(s.name)) is not None), None)
