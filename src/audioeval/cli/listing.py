"""Tables for `audioeval list …` and the checks of `audioeval validate`."""

from __future__ import annotations

from collections.abc import Callable

from rich.console import Console
from rich.table import Table

from audioeval.core.redact import redact
from audioeval.core.registry import Registry
from audioeval.core.shorten import within_words
from audioeval.report.escaping import console_cell, console_text, failure_text

DESCRIPTION_CHARS = 120
"""The most of a benchmark's description `list benchmarks` shows (cut between words)."""


def _benchmarks() -> Table:
    from audioeval.benchmarks.needs import benchmark_needs
    from audioeval.benchmarks.registry import load_shipped, shipped_benchmarks
    from audioeval.benchmarks.resolved import resolve

    t = Table(
        title="Benchmarks (audioeval run --benchmark NAME)",
        caption="needs: judge (give --judge URL), download (fetched on first use), local data (fetch"
        " or prepare it: a run without it says how), metric model (scored by a model, on the CPU),"
        " Java. No benchmark needs a GPU.",
    )
    for col in ("name", "task"):
        t.add_column(col, no_wrap=True)  # a name is never cut or folded
    for col in ("language", "needs", "source", "description"):
        t.add_column(col, overflow="fold")
    for name in shipped_benchmarks():
        try:
            spec, where = load_shipped(name)
            needs = benchmark_needs(spec, where, resolve(spec, where).scorers)
        except Exception as exc:  # listing must show broken specs too
            t.add_row(name, "?", "?", "?", "?", console_cell(redact(str(exc)), style="red"))
            continue
        src = spec.source
        where_from = (
            f"{src.type}: {src.path}"
            + (f" [{src.name}]" if src.name else "")
            + (f" {src.split}" if src.split else "")
            + (f" (local copy: {src.local_name}/)" if src.local_name else "")
        )
        description = within_words(spec.description.split("\n\n")[0], DESCRIPTION_CHARS)
        t.add_row(
            name,
            spec.task,
            spec.language,
            console_cell(", ".join(needs) or "–"),
            console_cell(where_from),
            console_cell(description),
        )
    return t


def _models() -> Table:
    from audioeval.adapters.baselines import BASELINES
    from audioeval.adapters.codecs.registry import BUILTIN_CODECS
    from audioeval.adapters.runtimes.environment import is_installed
    from audioeval.adapters.runtimes.spec import builtin_spec_files, load_runtime_spec

    t = Table(title="Models (audioeval run --model …)")
    for col in ("model", "kind", "notes"):
        t.add_column(col, overflow="fold")
    t.add_row(
        "NAME@http://host:port/v1[+URL…]", "openai", "any OpenAI-compatible chat endpoint (vLLM, OpenAI, …)"
    )
    for prefix, note in (
        ("transcription", "/audio/transcriptions: asr (OpenAI Whisper, vLLM serving an ASR model)"),
        ("translation", "/audio/translations: ast into English"),
        ("realtime", "the Realtime API over WebSocket, one turn per sample, text or speech out"),
        ("speech", "/audio/speech: tts"),
    ):
        t.add_row(f"{prefix}:NAME@URL", "openai", note)
    t.add_row(
        "NAME@https://RESOURCE.openai.azure.com",
        "openai (azure)",
        "Azure OpenAI: deployment NAME, api-key header, ?api-version= (read from the URL; docs/models.md)",
    )
    t.add_row(
        "gemini:MODEL", "openai (gemini)", "Gemini's OpenAI-compatible endpoint; key in $GEMINI_API_KEY"
    )
    for name in builtin_spec_files():
        spec = load_runtime_spec(name)
        state = "installed" if is_installed(spec) else f"not installed: audioeval runtime setup {name}"
        t.add_row(
            name,
            "isolated runtime",
            f"{spec.description.splitlines()[0] if spec.description else ''} ({state})",
        )
    for name in BASELINES:
        t.add_row(name, "baseline", "")
    t.add_row("espeak-ng[:VOICE]", "tts", "the embedded espeak-ng speech synthesiser")
    for codec in BUILTIN_CODECS.values():
        t.add_row(codec.usage.split(" ", 1)[0].rstrip(","), "codec", codec.usage)
    t.add_row("replay:RUN/BENCHMARK/MODEL", "replay", "stored outputs of an earlier run")
    from audioeval.benchmarks.plugins import load_benchmarks
    from audioeval.benchmarks.prediction_formats import PREDICTION_FORMATS

    load_benchmarks()  # every benchmark's formats registered
    for name, fmt in PREDICTION_FORMATS.items():
        tasks = ", ".join(sorted(fmt.tasks))
        t.add_row(
            f"predictions:FILE ({name})",
            "predictions",
            f"{fmt.expects}: {fmt.output} output, matched {fmt.matching}; tasks {tasks}",
        )
    return t


def _metrics() -> Table:
    from audioeval.benchmarks.plugins import load_benchmarks
    from audioeval.metrics.corpus import all_metrics

    load_benchmarks()  # their declared metrics too
    t = Table(title="Corpus metrics")
    for col in ("metric", "shown as", "better", "unit", "aggregation"):
        t.add_column(col)
    for name, m in sorted(all_metrics()):
        t.add_row(name, m.display, "higher" if m.higher_is_better else "lower", m.unit, str(m.aggregation))
    t.add_row("mean:VALUE", "VALUE", "higher", "score", "mean of a per-sample value")
    return t


def _prompts() -> Table:
    from audioeval.prompts.templates import load_template, shipped_templates

    t = Table(title="Prompt templates")
    for col in ("template", "name (in signatures)", "description"):
        t.add_column(col, overflow="fold")
    for name in shipped_templates():
        tpl = load_template(name)
        t.add_row(name, tpl.name, tpl.description)
    return t


def _tasks() -> Table:
    from audioeval.benchmarks.plugins import load_benchmarks
    from audioeval.benchmarks.tasks import TASKS, default_scorers

    load_benchmarks()  # the default scorers a benchmark provides for a task
    t = Table(title="Tasks")
    for col in ("task", "prompt", "scorers", "metrics", "description"):
        t.add_column(col, overflow="fold")
    for task in TASKS.values():
        scorers = ", ".join(s if isinstance(s, str) else next(iter(s)) for s in default_scorers(task))
        metrics = ", ".join(task.metrics) or "those its scorers declare"
        t.add_row(task.name, task.prompt, scorers, metrics, task.description)
    return t


def _steps() -> Table:
    from audioeval.postprocess.steps import STEPS

    t = Table(title="Post-processing steps")
    t.add_column("step")
    for name in sorted(STEPS):
        t.add_row(name)
    return t


def _scorers() -> Table:
    from audioeval.benchmarks.plugins import load_benchmarks
    from audioeval.scoring.scorer_registry import SCORERS

    load_benchmarks()  # every benchmark's scorers registered

    t = Table(title="Scorers")
    t.add_column("scorer")
    for name in sorted(SCORERS):
        t.add_row(name)
    return t


LISTINGS: Registry[Callable[[], Table]] = Registry(
    "list",
    [
        ("benchmarks", _benchmarks),
        ("models", _models),
        ("metrics", _metrics),
        ("prompts", _prompts),
        ("tasks", _tasks),
        ("steps", _steps),
        ("scorers", _scorers),
    ],
)


def validate_specs(files: list[str], *, load: bool, console: Console) -> list[str]:
    """Resolve every spec (shipped ones by default); print one line each; return problems."""
    from audioeval.benchmarks.registry import load_shipped, resolve_benchmark, shipped_benchmarks
    from audioeval.benchmarks.resolved import resolve
    from audioeval.benchmarks.sources.loader import load_samples
    from audioeval.core.errors import AudioevalError, InputError

    problems: list[str] = []
    targets = files or list(shipped_benchmarks())
    for ref in targets:
        try:
            spec, where = resolve_benchmark(ref) if files else load_shipped(ref)
            bench = resolve(spec, where)
            note = f"{bench.spec.task}, {', '.join(m.name for m in bench.metrics)}"
            if load:
                ss = load_samples(bench.spec, where, limit=5)
                note += f", loaded {len(ss.samples)} sample(s)"
            console.print(f"[green]ok[/green]   {console_text(ref)}: {console_text(note)}", highlight=False)
        except (InputError, AudioevalError) as exc:
            text = exc.describe() if isinstance(exc, InputError) else str(exc)
            problems.append(text)
            console.print(f"[red]FAIL[/red] {console_text(ref)}: {failure_text(text)}", highlight=False)
    console.print(f"{len(targets) - len(problems)} of {len(targets)} spec(s) resolve.")
    return problems
