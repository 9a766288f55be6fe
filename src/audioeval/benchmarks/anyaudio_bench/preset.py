"""`audioeval judge-eval` as data (`benchmarks/preset.py`): how well an audio judge's rubric
scores match the labels of a judge benchmark (AnyAudio-Judge-Bench layout), per subset.

A top-level command (`command=("judge-eval",)`). The plan reads the bench rows itself
(`loading.py`: JSONL, a saved dataset, parquet or a hub name) as the samples of an
`audio_instruct` benchmark; the model is the `echo` baseline (each row's own audio is the
audio judged); the scorer is `anyaudio_items` on the run judge (the shared judge options,
temperature 0): each rubric item gets a P(yes), a row's score is their mean. Rows with an
empty rubric are left out of the run and handed to the export as unscored. With
`--tune-on DEV` the dev rows are a second benchmark of the same run (`PresetPlan.also`) and
the export tunes the threshold on their records. The export (`export.py`, told the settings
by the plan's `export_info`) writes `judge_eval_summary.json`, `per_row.jsonl` and
`unscored.jsonl` at the folder's top; `outcome` reads the summary back for the console table
(`console_table.py`) and `--max-failed` (rows the judge failed, and malformed rows).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypedDict

from audioeval.benchmarks.anyaudio_bench.figures import SCORE_METRICS, THRESHOLD_METRICS
from audioeval.benchmarks.preset import (
    REQUIRED,
    PlanModel,
    PlanPart,
    Preset,
    PresetOption,
    PresetOutcome,
    PresetPlan,
    PresetValues,
    read_options,
)
from audioeval.core.checks import number_problem
from audioeval.core.errors import InputError
from audioeval.store.bounded_json import loads

if TYPE_CHECKING:
    from audioeval.benchmarks.anyaudio_bench.judge_eval_doc import JudgeEvalSettings

BENCH_NAME = "judge-bench"
DEV_NAME = "judge-bench-dev"
MODEL: PlanModel = {"name": "echo", "type": "baseline", "baseline": "echo"}
SUMMARY_FILE = "judge_eval_summary.json"  # export.SUMMARY_FILE (named here so loading stays light)
ROWS_FILE = "per_row.jsonl"
RECORDS_FILE, IDS_FILE = "records.jsonl", "sample_ids.json"  # a pair folder's (engine/run_layout.py)

OPTIONS = (
    PresetOption(
        "benchmark", "--benchmark", str, short="-b",
        help="The judge benchmark: a JSONL file (audio paths relative to it), a save_to_disk folder, a "
        "parquet file or folder, or a hub name such as AnyAudio-Judge-Bench/en (read from "
        "$AUDIOEVAL_DATA/AnyAudio-Judge-Bench/en when there, else through the datasets library).",
    ),
    PresetOption("config", "--config", str, None, optional=True, help="Configuration (en or zh) of a hub name or folder."),
    PresetOption(
        "threshold", "--threshold", float, None, optional=True,
        help="A row is judged a match when its score is at or above this (default: 0.8 with --mode "
        "all_at_once, as the official generate mode; 0.5 with per_item, ours: the official logits "
        "mode computes no accuracy).",
    ),
    PresetOption(
        "tune_on", "--tune-on", str, None, optional=True,
        help="A dev split (same layouts as --benchmark): the threshold that maximises its accuracy.",
    ),
    PresetOption(
        "mode", "--mode", str, "per_item", choices=("per_item", "all_at_once"),
        help="per_item: one request per rubric item, P(yes) from logprobs; all_at_once: one request "
        "per row listing every item (yes/no answers).",
    ),
    PresetOption("samples", "--samples", int, 5, minimum=1, help="Sampled answers per item when the judge sends no logprobs."),
    PresetOption("judge_max_attempts", "--judge-max-attempts", int, 3, minimum=1, help="Attempts per request whose answer is unusable."),
)  # fmt: skip


@dataclass(frozen=True)
class JudgeEvalOptions:
    """`judge-eval`'s own options (`OPTIONS` declares their flags, defaults and help), typed."""

    benchmark: str
    config: str | None
    threshold: float | None
    tune_on: str | None
    mode: Literal["per_item", "all_at_once"]
    samples: int
    judge_max_attempts: int

    @classmethod
    def of(cls, values: PresetValues) -> JudgeEvalOptions:
        """The options among a preset's values (one not given: its declared default)."""
        return read_options(cls, OPTIONS, values)


SHARED = (
    "judge", "judge_model", "judge_concurrency", "judge_timeout", "judge_api_key_env", "audio_part",
    "judge_prompt", "output_dir", "seed", "resamples", "cache", "no_cache", "progress", "max_failed",
    "no_probe", "limit", "data_root",
)  # fmt: skip
DEFAULTS = {
    "judge": REQUIRED,
    "judge_model": REQUIRED,
    "output_dir": Path("outputs/judge-eval"),
    "judge_temperature": 0.0,
    "judge_max_tokens": 1024,  # the judge settings' default, as runs before this preset asked
}
HELPS = {
    "judge": "OpenAI-compatible judge endpoint(s) URL[,URL].",
    "judge_timeout": "Seconds per judge request, retries included.",
    "output_dir": "Where results go; rerun to resume.",
    "resamples": "Bootstrap resamples of the CIs.",
    "limit": "Judge only the first N rows.",
    "data_root": "Where local copies of benchmarks live.",
    "cache": "Judge response cache file, keyed by request content only: share one across output "
    "folders and runs to ask nothing twice (default: in OUTPUT_DIR).",
}
ALIASES = {"--bench": "--benchmark", "--judge-cache": "--cache", "--max-attempts": "--judge-max-attempts"}


class ScorerArgs(TypedDict, total=False):
    """The arguments of the `anyaudio_items` scorer in the run spec (`items_scorer.py`)."""

    mode: Literal["per_item", "all_at_once"]
    samples: int
    max_attempts: int
    threshold: float


def _spec(name: str, location: str, scorer: ScorerArgs, exports: bool) -> Any:
    from audioeval.benchmarks.spec import BenchmarkSpec, SourceSpec

    at_threshold = scorer.get("threshold") is not None
    return BenchmarkSpec(
        name=name,
        task="audio_instruct",
        source=SourceSpec(type="jsonl", path=location),
        taxonomy=["subset", "type"],
        scorers=[{"anyaudio_items": dict(scorer)}],
        metrics=[*SCORE_METRICS, *(THRESHOLD_METRICS if at_threshold else ())],
        exports="judge_eval" if exports else None,
    )


def _judged(samples: Any) -> tuple[Any, list[Any]]:
    """The rows the judge sees, and those with an empty rubric (unscored) as summary rows."""
    from audioeval.benchmarks.anyaudio_bench.rows import judge_eval_row
    from audioeval.benchmarks.anyaudio_bench.schema import is_unscored
    from audioeval.benchmarks.sources.loader import SampleSet

    unscored = [judge_eval_row(s, None) for s in samples.samples if is_unscored(s)]
    judged = [s for s in samples.samples if not is_unscored(s)]
    return SampleSet(judged, samples.skipped, samples.location), unscored


def plan(values: PresetValues) -> PresetPlan:
    """The bench rows (and the dev rows of `--tune-on`) read, as the samples of the run."""
    from audioeval.benchmarks.anyaudio_bench.export import RUN_INFO_KEY
    from audioeval.benchmarks.anyaudio_bench.loading import load_bench
    from audioeval.benchmarks.anyaudio_bench.summary import default_threshold

    opts, shared = JudgeEvalOptions.of(values), values.settings
    threshold, tune_on, config = opts.threshold, opts.tune_on, opts.config
    if threshold is not None and tune_on is not None:
        raise InputError("give --threshold or --tune-on, not both", field="--threshold")
    problem = number_problem(threshold)
    if problem:
        raise InputError(f"--threshold: {problem}", field="--threshold")
    bench = opts.benchmark
    loaded = load_bench(bench, config=config, data_root_dir=shared.data_root, limit=shared.limit)
    rows, unscored = _judged(loaded)
    scorer = ScorerArgs(mode=opts.mode, samples=opts.samples, max_attempts=opts.judge_max_attempts)
    skipped = list(loaded.skipped)
    info: JudgeEvalSettings = {
        "bench": bench if config is None else f"{bench} ({config})",
        "judge_model": shared.judge_model,
        "threshold": threshold,
        "threshold_source": "default" if threshold is None else "--threshold",
        "dev_records": None,
        "dev_ids": None,
        "mode": opts.mode,
    }
    also: tuple[PlanPart, ...] = ()
    judged = scorer
    if tune_on is None:  # the threshold is known before judging: each row's verdict is a stat
        at = default_threshold(opts.mode)[0] if threshold is None else float(threshold)
        judged = ScorerArgs(**scorer, threshold=at)
    else:
        dev_loaded = load_bench(tune_on, config=config, data_root_dir=shared.data_root)
        dev, _ = _judged(dev_loaded)
        also = (PlanPart(_spec(DEV_NAME, dev_loaded.location, scorer, False), dev_loaded.location, dev),)
        skipped += dev_loaded.skipped
        pair = Path(DEV_NAME) / str(MODEL["name"])  # the dev pair's folder in the run directory
        info.update(
            threshold_source=f"tuned on {tune_on}",
            dev_records=str(pair / RECORDS_FILE),
            dev_ids=str(pair / IDS_FILE),
        )
    info["unscored_rows"] = [r.fields() for r in unscored]
    info["skipped_rows"] = [e.as_record() for e in skipped]  # judge_eval_summary.json's `skipped`
    return PresetPlan(
        _spec(BENCH_NAME, loaded.location, judged, True),
        loaded.location,
        MODEL,
        samples=rows,
        export_info={RUN_INFO_KEY: info},
        also=also,
    )


def _first_failure(folder: Path) -> str | None:
    path = folder / ROWS_FILE
    for line in path.read_text(encoding="utf-8").splitlines() if path.is_file() else []:
        row = loads(line)
        if row.get("failed"):
            return f"id {row.get('uuid')!r}: {row.get('error') or 'no score'}"
    return None


def outcome(folder: Path, values: PresetValues) -> PresetOutcome:
    """`judge_eval_summary.json` read back: the figures; rows the judge failed and malformed
    rows are the failed work."""
    summary = loads((folder / SUMMARY_FILE).read_text(encoding="utf-8"))
    skipped = [InputError.from_record(r) for r in (summary.get("skipped") or {}).get("rows") or []]
    judged = int(summary["n"]) - int(summary["unscored"]["n"])
    notes = [f"skipped {len(skipped)} malformed row(s) (ids in {SUMMARY_FILE}, `skipped`)"] if skipped else []
    first = _first_failure(folder) if summary["failed"]["n"] else None
    return PresetOutcome(
        summary,
        judged + len(skipped),
        int(summary["failed"]["n"]) + len(skipped),
        int(summary["n_scored"]),
        first_failure=first or (skipped[0].describe() if skipped else None),
        notes=notes,
        skipped=skipped,
        unit="row",
    )


JUDGE_EVAL = Preset(
    command=("judge-eval",),
    help="Score a judge against labelled rows: accuracy, balanced accuracy and AUROC per subset.",
    plan=plan,
    outcome=outcome,
    options=OPTIONS,
    shared=SHARED,
    defaults=DEFAULTS,
    helps=HELPS,
    aliases=ALIASES,
    title="AnyAudio-Judge Bench",
)
