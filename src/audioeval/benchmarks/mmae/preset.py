"""`audioeval mmae score` as data (`benchmarks/preset.py`), and MMAE's helper commands.

The preset states one run: the `mmae` source (metadata, audio root), the `predictions:FILE`
model and the `mmae_rubrics` scorer (votes = --judge-votes, max attempts, shuffle seed, clip
policy, early stop when asked) judged by the run judge (the shared `judge` options). The
output folder is a run directory; MMAE's files (`results.jsonl`, `per_sample.json`,
`taxonomy.json`, `skipped.json`, `failed_outputs.json`) are exported from its records at its
top (`exports.py`), at the end of every run and every rescore, and `outcome` reads them back.
The response cache defaults to `OUTPUT_DIR/judge_cache.sqlite` (keyed by request content
only: one file shared by several output folders answers again every request it has seen).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from audioeval.benchmarks.preset import (
    REQUIRED,
    OptionValue,
    PlanModel,
    Preset,
    PresetOption,
    PresetOutcome,
    PresetPlan,
    PresetTool,
    PresetValues,
    read_options,
)
from audioeval.benchmarks.spec import BenchmarkSpec, SourceSpec
from audioeval.core.checks import attempts_problem
from audioeval.core.errors import InputError
from audioeval.store.bounded_json import loads

if TYPE_CHECKING:
    from audioeval.benchmarks.mmae.aggregate import PerSampleRow, RunBlock, TaxonomyFile

VERIFIERS = "verifiers"
"""`--judge verifiers`: the rubrics a measurement answers, offline (`verifier_scorer.py`)."""
MEASURED_SCORER = "mmae_verifiers"
"""The scorer of `--judge verifiers` (`verifier_scorer.py`), whose records MMAE's files read."""

TAXONOMY = ["modality", "complexity", "complexity_group", "granularity", "operation"]
CROSSES = {  # the paper's tables by modality × complexity (single / multiple) and the report's heatmap
    "modality_x_complexity_group": ["modality", "complexity_group"],
    "modality_x_complexity": ["modality", "complexity"],
}
"""MMAE's groups, declared once: the engine computes every figure of each (`taxonomy.json`
formats them)."""
MODEL = "predictions"
NO_PREDICTION = "sample has no prediction"  # adapters/predictions.py: an id the file lacks
META = Path("MMAE-meta.json")
# MMAE's files (exports.py writes them; named here too so that loading the preset stays light)
RESULTS_FILE = "results.jsonl"
PER_SAMPLE_FILE = "per_sample.json"
TAXONOMY_FILE = "taxonomy.json"
SKIPPED_FILE = "skipped.json"
FAILED_OUTPUTS_FILE = "failed_outputs.json"

SCORE_ALIASES = {  # the official MMAE script's flags, and older spellings
    "--base_urls": "--judge",
    "--base-urls": "--judge",
    "--concurrency": "--judge-concurrency",
    "--retries": "--judge-votes",
    "--max-attempts": "--judge-max-attempts",
    "--timeout": "--judge-timeout",
    "--model": "--judge-model",
    "--api-key-env": "--judge-api-key-env",
    "--temperature": "--judge-temperature",
    "--max-tokens": "--judge-max-tokens",
    "--judge-cache": "--cache",
    "--bootstrap": "--resamples",
}

OPTIONS = (
    PresetOption(
        "predictions", "--predictions", Path,
        help="predictions.json: each sample's messages plus an assistant turn with the edited audio.",
    ),
    PresetOption("metadata", "--metadata", Path, META, help="MMAE metadata (JSON list)."),
    PresetOption(
        "audio_root", "--audio-root", Path, None, optional=True,
        help="Root for relative audio paths (default: the predictions file's folder).",
    ),
    PresetOption(
        "judge_votes", "--judge-votes", int, 3, minimum=1,
        help="Valid judge votes collected per rubric (the official --retries).",
    ),
    PresetOption(
        "judge_max_attempts", "--judge-max-attempts", int, 10, minimum=1,
        help="Attempts per rubric, failures included.",
    ),
    PresetOption(
        "slice_clips", "--slice-clips", bool, False, off_flag="--full-clips",
        help="Send each referenced slice cut out, instead of full clips with the slice notation.",
    ),
    PresetOption(
        "early_stop", "--early-stop", bool, False,
        help="Stop a rubric once the votes still missing cannot change whether it passes (with "
        "--judge-votes 3: 2 votes, a third only when they disagree). Same verdicts, fewer judge calls; "
        "off by default (the published protocol asks every vote). Recorded in the signature.",
    ),
    PresetOption(
        "verify", "--verify", str, "off", choices=("off", "audit", "first"),
        help="Acoustic verifiers beside the judge: `off` (the published protocol, the default); `audit` "
        "(judge every rubric, and measure each checkable one: agreement in taxonomy.json's verifier_audit); "
        "`first` (a rubric a measurement answers is not asked of the judge: the figure is ours, not "
        "MMAE's; calls saved in the run block). Recorded in the signature.",
    ),
    PresetOption(
        "name", "--name", str, MODEL,
        help="The system's name in the run (its folder, boards, report and `audioeval leaderboard`, "
        "which needs distinct names to compare two runs).",
    ),
)  # fmt: skip


@dataclass(frozen=True)
class ScoreOptions:
    """`mmae score`'s own options (`OPTIONS` declares their flags, defaults and help), typed."""

    predictions: Path
    metadata: Path
    audio_root: Path | None
    judge_votes: int
    judge_max_attempts: int
    slice_clips: bool
    early_stop: bool
    verify: str
    name: str

    @classmethod
    def of(cls, values: PresetValues) -> ScoreOptions:
        """The options among a preset's values (one not given: its declared default)."""
        return read_options(cls, OPTIONS, values)

    @property
    def root(self) -> Path:
        """The root of relative audio paths: `--audio-root`, else the predictions' folder."""
        return _absolute(self.audio_root or Path(self.predictions).parent)


def _absolute(path: Path) -> Path:
    return Path(path).expanduser().absolute()


def plan(values: PresetValues) -> PresetPlan:
    """The benchmark (the metadata as an `mmae` source, scored by the rubric judge) and the model."""
    opts = ScoreOptions.of(values)
    problem = attempts_problem(opts.judge_votes, opts.judge_max_attempts)
    if problem:
        raise InputError(
            f"{problem}: --judge-votes must not exceed --judge-max-attempts", field="--judge-votes"
        )
    scorer: dict[str, int | bool | str] = {
        "seed": values.settings.seed,
        "votes": opts.judge_votes,
        "max_attempts": opts.judge_max_attempts,
        "slice_clips": opts.slice_clips,
    }
    if opts.early_stop:  # named only when on: the spec of earlier folders is unchanged
        scorer["early_stop"] = True
    if opts.verify != "off":  # likewise
        scorer["verify"] = opts.verify
    judge = values.settings.judge
    measured = isinstance(judge, str) and judge.strip() == VERIFIERS

    metadata = str(_absolute(opts.metadata or META))
    source = SourceSpec(type="mmae", path=metadata, audio_root=str(opts.root))
    spec = BenchmarkSpec(
        name="mmae",
        task="audio_edit",
        source=source,
        taxonomy=TAXONOMY,
        crosses=CROSSES,
        # rubrics answered by measurement: no judge, no votes
        scorers=[{MEASURED_SCORER: {}} if measured else {"mmae_rubrics": scorer}],
    )
    model: PlanModel = {
        "name": opts.name or MODEL,
        "type": "predictions",
        "predictions": str(_absolute(opts.predictions)),
        "predictions_format": "mmae",
        "audio_root": str(opts.root),
    }
    return PresetPlan(spec, metadata, model, judge=None if measured else {})


def check(values: PresetValues) -> None:
    """An unreadable predictions file is refused before anything is written."""
    from audioeval.benchmarks.mmae.loading import load_predictions

    load_predictions(ScoreOptions.of(values).predictions)


def _read(path: Path) -> Any:
    return loads(path.read_text(encoding="utf-8"))


def _errors(path: Path) -> list[InputError]:
    return [InputError.from_record(r) for r in _read(path)] if path.is_file() else []


@dataclass(frozen=True)
class WrittenFiles:
    """What `exports.write_exports` wrote into `folder`, as a reader of the files gets it:
    `figures` (taxonomy.json), `skipped` and `failed_outputs` (their errors, redacted as
    written); `rows`, per_sample.json's rows as built (`outcome` reads their counts, ids and
    failed rubrics); `failures`, the `failure` of each rubric's last line in results.jsonl,
    by (id, rubric index)."""

    folder: Path
    figures: TaxonomyFile
    rows: list[PerSampleRow]
    skipped: list[InputError]
    failed_outputs: list[InputError]
    failures: Mapping[tuple[str, int], str | None] = field(default_factory=dict)


def _failures_in(folder: Path) -> Mapping[tuple[str, int], str | None]:
    """The `failure` of each rubric's last line in results.jsonl."""
    why: dict[tuple[str, int], str | None] = {}
    for line in (folder / RESULTS_FILE).read_text(encoding="utf-8").splitlines():
        rec = loads(line)
        why[(rec["id"], rec["rubric_index"])] = rec.get("failure")
    return why


def first_failure(
    folder: Path,
    skipped: list[InputError],
    rows: list[PerSampleRow],
    failures: Callable[[], Mapping[tuple[str, int], str | None]] | None = None,
) -> str | None:
    """The reason of the first skipped sample, else of the first failed rubric in sample order
    (`failures`: each rubric's failure as results.jsonl ends with it; default: read the file)."""
    if skipped:
        return skipped[0].describe()
    failing = [(r["id"], i) for r in rows for i in r.get("failed_rubrics") or []]
    if not failing:
        return None
    sid, index = failing[0]
    why = (failures or (lambda: _failures_in(folder)))().get((sid, index))
    return f"id {sid!r}, rubric {index}: {why or 'failed'}"


def outcome(folder: Path, values: PresetValues) -> PresetOutcome:
    """MMAE's files read back (or, just written, as the exporter returned them: `exported`):
    the taxonomy for the table; samples skipped, without a usable output (counted at 0 in the
    headline, but not produced) or with a failed rubric as failed."""
    written = values.exported
    if isinstance(written, WrittenFiles) and written.folder == folder:
        return _outcome(
            folder,
            written.figures,
            written.rows,
            written.skipped,
            written.failed_outputs,
            lambda: written.failures,
            redact=True,
        )
    return _outcome(
        folder,
        _read(folder / TAXONOMY_FILE),
        _read(folder / PER_SAMPLE_FILE),
        _errors(folder / SKIPPED_FILE),
        _errors(folder / FAILED_OUTPUTS_FILE),
    )


def _outcome(
    folder: Path,
    tax: TaxonomyFile,
    rows: list[PerSampleRow],
    skipped: list[InputError],
    failed_outputs: list[InputError],
    failures: Callable[[], Mapping[tuple[str, int], str | None]] | None = None,
    *,
    redact: bool = False,
) -> PresetOutcome:
    info: RunBlock = tax.get("run", {})
    overall = tax["overall"]
    no_output = sum(1 for r in rows if r.get("output_failed"))
    failed = sum(1 for r in rows if r.get("n_failed") or r.get("n_missing") or r.get("output_failed"))
    first = first_failure(folder, skipped, rows, failures)
    if first is not None and redact and not skipped:  # ids and reasons as the files hold them
        from audioeval.core.redact import redact_known

        first = redact_known(first)
    if first is None and failed_outputs:
        first = failed_outputs[0].describe()
    lacking = [e for e in failed_outputs if e.message == NO_PREDICTION]
    no_retry = None
    if lacking:
        ids = [e.sample_id for e in lacking]
        few = ", ".join(repr(i) for i in ids[:3]) + (", …" if len(ids) > 3 else "")
        no_retry = [
            f"the predictions file {lacking[0].file} has no answer for {len(ids)} id(s) ({few}); "
            "rerunning will not help: add them to the file, or accept them as failed with --max-failed."
        ]
    notes = []
    if overall.get("n_rubrics_not_judged"):
        notes.append(
            f"[yellow]{overall['n_rubrics_not_judged']} of {overall['n_rubrics']} rubric(s) not judged: no "
            "measurement answers them (their reasons are in results.jsonl); counted, not scored.[/yellow]"
        )
    health = tax.get("output_health")
    if isinstance(health, Mapping) and health.get("n_with_problems"):
        found = ", ".join(f"{k} {v['n']}" for k, v in (health.get("problems") or {}).items())
        notes.append(
            f"[yellow]output health: {health['n_with_problems']} of {health['n_checked']} edited output(s) "
            f"with a problem ({found}); the samples are listed in taxonomy.json's output_health.[/yellow]"
        )
    if info.get("calls_saved_by_measurement"):
        notes.append(
            f"[yellow]--verify first: rubrics answered by measurement saved {int(info['calls_saved_by_measurement'])} "
            "judge call(s); the figure is ours, not MMAE's published protocol.[/yellow]"
        )
    if overall["n_rubrics_failed"]:
        notes.append(
            f"[yellow]{overall['n_rubrics_failed']} rubric(s) failed (fewer valid votes than --judge-votes): "
            "they are counted, not scored; their attempts and errors are in results.jsonl. Rerun the "
            "same command to retry them.[/yellow]"
        )
    saved = (
        f", {int(info.get('calls_saved', 0))} vote(s) not asked (--early-stop)"
        if info.get("early_stop")
        else ""
    )
    notes.append(
        f"judged {int(info.get('judged_now', 0))} rubric(s) now, {int(info.get('reused', 0))} reused from "
        f"an earlier run{saved}."
    )
    return PresetOutcome(
        figures=tax,
        total=len(rows) + overall["n_skipped"],
        failed=failed + overall["n_skipped"],
        scored=overall["n"] - no_output,
        first_failure=first,
        no_retry=no_retry,
        notes=notes,
        skipped=skipped,
        failed_outputs=failed_outputs,
    )


SCORE = Preset(
    command=("mmae", "score"),
    help="Judge every rubric of every metadata sample and write IFR, CR and EMR.",
    plan=plan,
    outcome=outcome,
    options=OPTIONS,
    defaults={
        "judge": REQUIRED,
        "judge_model": "Qwen3Omni-Instruct",
        "output_dir": Path("outputs/scores"),
        "judge_max_tokens": 1024,
    },
    helps={
        "judge": "Comma-separated OpenAI-compatible judge endpoints, e.g. "
        "http://localhost:8001/v1,http://localhost:8002/v1 (the official script's --base_urls); or "
        "`verifiers`: the rubrics a measurement answers, offline, the rest not judged (not MMAE's protocol).",
        "output_dir": "Where results.jsonl, per_sample.json and taxonomy.json go; rerun to resume.",
    },
    aliases=SCORE_ALIASES,
    check=check,
    source_option="metadata",
    title="MMAE",
    offline_judge=VERIFIERS,
)


def _baseline(values: Mapping[str, OptionValue]) -> tuple[list[str], list[InputError]]:
    from audioeval.benchmarks.mmae.baselines import write_baseline

    kind = values["kind"]
    path, errors = write_baseline(
        kind, metadata=values["metadata"], audio_root=values["audio_root"], out_dir=values["output_dir"]
    )
    return [f"{kind} baseline predictions: {path}"], errors


def _synth(values: Mapping[str, OptionValue]) -> tuple[list[str], list[InputError]]:
    from audioeval.benchmarks.mmae.synthetic import write_synthetic_set

    s = write_synthetic_set(values["output_dir"], values["n"])
    return [f"metadata: {s.metadata}", f"oracle predictions: {s.oracle_predictions}"], []


TOOL_ALIASES = {"--out": "--output-dir"}


def _output_dir(help: str) -> PresetOption:
    """A tool's output folder option, `--output-dir` / `-o` (also `--out`: `TOOL_ALIASES`)."""
    return PresetOption("output_dir", "--output-dir", Path, short="-o", help=help)


BASELINE = PresetTool(
    command=("mmae", "baseline"),
    help="Write predictions for one of the paper's reference baselines.",
    run=_baseline,
    options=(
        PresetOption(
            "kind", "KIND", str, choices=("identity", "noise"), argument=True,
            help="identity (input unchanged) or noise (white noise of the input's length and rate).",
        ),
        PresetOption("metadata", "--metadata", Path, META),
        PresetOption("audio_root", "--audio-root", Path, help="Root of the metadata's relative audio paths."),
        _output_dir("Folder for predictions.json (and noise audio)."),
    ),
    aliases=TOOL_ALIASES,
)  # fmt: skip

SYNTH = PresetTool(
    command=("mmae", "synth"),
    help="Write a small synthetic MMAE-format set of tone edits (for trying the pipeline).",
    run=_synth,
    options=(
        _output_dir("Folder for MMAE-meta.json, wav/ and oracle predictions."),
        PresetOption("n", "--n", int, 42, minimum=1, help="Number of samples."),
    ),
    aliases=TOOL_ALIASES,
)  # fmt: skip
