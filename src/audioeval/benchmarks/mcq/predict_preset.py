"""`audioeval mcq predict` as data (`benchmarks/preset.py`): MMAR / MMAU questions asked of a
model under test, its answers written to a predictions file that `mcq score` reads.

The plan reads the metadata (`--metadata`, default `AUDIO_ROOT/MMAR-meta.jsonl` or
`AUDIO_ROOT/mmau-test-mini.json`), checks every item and renders every prompt before
anything is written (a predictions file must hold every item of the metadata: bad input
stops the command, where `audioeval run` would skip the row), and hands the engine the
samples of an `mcq` spec (`predictions_out.predict_spec`: prompt template, audio root) with
the model from the shared `model` options (NAME@URL, concurrency, timeout, key variable,
sampling, sample rate, audio part); no judge. The engine asks, records, caches and resumes in
the run folder (`--output-dir`, default `OUTPUT.run/`); the `mcq_predictions` exporter
(`predict_export.py`) then writes the predictions file and `predict_summary.json`, which
`outcome` reads back. It has no `mcq rescore` of its own (that is `mcq score`'s).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from audioeval.benchmarks.mcq.definitions import BENCHMARKS
from audioeval.benchmarks.preset import (
    REQUIRED,
    PlanModel,
    Preset,
    PresetOption,
    PresetOutcome,
    PresetPlan,
    PresetValues,
    read_options,
    run_folder_beside,
)
from audioeval.core.errors import InputError
from audioeval.store.bounded_json import loads

OPTIONS = (
    PresetOption(
        "benchmark", "--benchmark", str, choices=tuple(BENCHMARKS.names()), help=" or ".join(BENCHMARKS.names()) + "."
    ),
    PresetOption("audio_root", "--audio-root", Path, help="Folder the metadata's audio paths are relative to."),
    PresetOption(
        "output", "--output", Path, help="Predictions file to write (.jsonl or .json), read by `mcq score`."
    ),
    PresetOption(
        "metadata", "--metadata", Path, None, optional=True,
        help="Benchmark metadata (default: AUDIO_ROOT/MMAR-meta.jsonl or AUDIO_ROOT/mmau-test-mini.json).",
    ),
    PresetOption(
        "template", "--template", str, "mcq_choices",
        help="Prompt template: a shipped name (mcq_choices, mcq_letters) or a YAML file.",
    ),
)  # fmt: skip


@dataclass(frozen=True)
class PredictOptions:
    """`mcq predict`'s own options (`OPTIONS` declares their flags, defaults and help), typed."""

    benchmark: str
    audio_root: Path
    output: Path
    metadata: Path | None
    template: str

    @classmethod
    def of(cls, values: PresetValues) -> PredictOptions:
        """The options among a preset's values (one not given: its declared default)."""
        return read_options(cls, OPTIONS, values)

    @property
    def run_dir(self) -> Path:
        """The run folder when `--output-dir` is not given: `OUTPUT.run/` beside the file."""
        return run_folder_beside(Path(self.output))


HELPS = {
    "output_dir": "The `audioeval run` folder: records, cache and signatures (default: OUTPUT.run/); rerun to resume.",
}


def _jsonl_out(out: Path, source_jsonl: bool) -> bool:
    suffix = out.suffix.lower()
    return True if suffix == ".jsonl" else False if suffix == ".json" else source_jsonl


def _check_prompts(spec: Any, where: str, samples: Any) -> None:
    """Render every prompt as the engine will (the spec's template, or the one a sample names,
    with the spec's variables and the sample's fields): the first problem is raised, nothing
    asked."""
    from audioeval.benchmarks.tasks import get_task
    from audioeval.prompts.templates import PromptTemplate, load_template, render

    default = load_template(spec.prompt or get_task(spec.task, where=where).prompt)
    named: dict[str, PromptTemplate] = {}
    for sample in samples.samples:
        name = sample.get("prompt_template")
        if name and name not in named:
            named[name] = load_template(name)
        render(
            named[name] if name else default,
            {**spec.variables, **sample.fields},
            sample.audio.get("audio"),
            sample_id=sample.id,
        )


def plan(values: PresetValues) -> PresetPlan:
    """The metadata read and checked, as the samples of an `mcq` run of the model under test."""
    from audioeval.benchmarks.mcq.definitions import get_benchmark
    from audioeval.benchmarks.mcq.loading import load_mcq_file
    from audioeval.benchmarks.mcq.predict_export import EXPORTER, RUN_INFO_KEY
    from audioeval.benchmarks.mcq.predictions_out import check_prompt_fields, predict_spec
    from audioeval.benchmarks.sources.loader import load_samples
    from audioeval.store.run_lock import check_output_file

    opts, shared = PredictOptions.of(values), values.settings
    bench = get_benchmark(opts.benchmark)
    out = Path(opts.output)
    check_output_file(out, "the predictions file (--out)")
    audio_root = Path(opts.audio_root)
    metadata = Path(opts.metadata) if opts.metadata else audio_root / bench.metadata_file
    file = load_mcq_file(metadata, bench, require_predictions=False)
    check_prompt_fields(file.items, bench, str(metadata))
    spec = predict_spec(bench, metadata, audio_root, opts.template, jsonl=file.jsonl)
    spec = spec.model_copy(update={"exports": EXPORTER})
    where = spec.source.path
    # the run folder as data root: no local copy under AUDIOEVAL_DATA replaces the metadata
    samples = load_samples(spec, where, root=Path(shared.output_dir or opts.run_dir))
    if samples.skipped:
        raise samples.skipped[0]
    _check_prompts(spec, where, samples)
    if not shared.model_urls or not shared.model:
        raise InputError("no endpoint URL given: --model NAME@URL[,URL]", field="--model")
    model: PlanModel = {
        "name": shared.model,
        "type": "openai",
        "urls": list(shared.model_urls),
        "served_model": shared.model,
        "api_key_env": shared.api_key_env,
        "concurrency": shared.concurrency,
        "timeout_s": shared.timeout,
        "audio_part": shared.model_audio_part,
    }
    info = {
        "benchmark": bench.name,
        "metadata": str(metadata),
        "output": str(out),
        "jsonl": _jsonl_out(out, file.jsonl),
    }
    return PresetPlan(spec, where, model, samples=samples, export_info={RUN_INFO_KEY: info}, judge=None)


def outcome(folder: Path, values: PresetValues) -> PresetOutcome:
    """`predict_summary.json` read back: items, answers, the first item without one."""
    from rich.markup import escape

    from audioeval.benchmarks.mcq.predict_export import SUMMARY_FILE

    s = loads((folder / SUMMARY_FILE).read_text(encoding="utf-8"))
    note = (
        f"{s['answered']}/{s['items']} answered ({s['failed']} without an answer: see the records "
        f"in {escape(str(folder))}). Predictions: {escape(str(s['output']))}"
    )
    return PresetOutcome(
        s, int(s["items"]), int(s["failed"]), int(s["answered"]), first_failure=s["first_failure"],
        notes=[note], unit="item",
    )  # fmt: skip


PREDICT = Preset(
    command=("mcq", "predict"),
    help="Ask a model every question with its audio (on the `audioeval run` engine) and write the predictions file.",
    plan=plan,
    outcome=outcome,
    options=OPTIONS,
    shared=("model", "output_dir", "no_cache", "progress", "max_failed", "no_probe"),
    defaults={"model": REQUIRED, "output_dir": None},
    helps=HELPS,
    aliases={"--out": "--output", "--run-dir": "--output-dir"},
    title="MMAR / MMAU predictions",
    output_dir=lambda values: PredictOptions.of(values).run_dir,
    rescore=False,
)
