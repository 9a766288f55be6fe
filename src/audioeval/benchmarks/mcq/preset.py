"""`audioeval mcq score` as data (`benchmarks/preset.py`): MMAR / MMAU predictions scored both
ways (official token match, robust choice reading), and with `--rubrics` MMAR-Rubrics.

The plan reads and checks the predictions file itself (`loading.py`; the first bad item is
an error naming file, line, id and field, before anything is written) and names it as the
benchmark's source, of this benchmark's own source type (`mmar` / `mmau`, `source.py`, with
the answer key and the rubric settings of `--rubrics` as its options): the engine loads it as
it loads any benchmark's source; a `predictions` model answers each item with its stored
answer. A predictions file of another registered format (a tool's output, `{id, text}` items:
`--predictions-format`, default the one the file matches) answers the items of `--metadata`,
read by the same format reader as `run -m NAME=predictions:FILE` (`answers_file.py`), and the
source is then the metadata with that file as its option. The scorers are `mcq_match` and
`mcq_robust`, and with `--rubrics` the `mmar_rubrics` judged scorer on the run judge (the
shared `judge` options, with its seed and `max_tokens`). A rerun into the same folder keeps the records of items
whose contents are unchanged and scores the others again (`rescore_changed_samples`).
`mcq_summary.json`, `per_item.jsonl`, `disagreements.jsonl` and `rubrics/results.jsonl` are
the exports of the records (`export.py`, told the file scored and the rubric settings by the
plan's `export_info`), at the folder's top; `outcome` reads the summary back for the console
table (`console_table.py`). The output folder defaults to `outputs/<benchmark>`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from audioeval.benchmarks.mcq.definitions import BENCHMARKS
from audioeval.benchmarks.preset import (
    PlanModel,
    Preset,
    PresetOption,
    PresetOutcome,
    PresetPlan,
    PresetValues,
    SharedValues,
    read_options,
)
from audioeval.core.checks import attempts_problem
from audioeval.core.errors import InputError
from audioeval.store.bounded_json import loads

if TYPE_CHECKING:
    from audioeval.benchmarks.mcq.export import McqRunInfo, RubricSettings
    from audioeval.benchmarks.mcq.rubric_plan import RubricPlan
    from audioeval.benchmarks.mcq.source import McqSourceOptions

MODEL_NAME = "predictions"
RUBRIC_MAX_TOKENS = 2048
SUMMARY_FILE = "mcq_summary.json"  # export.py writes it (named here so loading the preset stays light)
RESULTS_FILE = Path("rubrics") / "results.jsonl"

SCORE_ALIASES = {"--bootstrap": "--resamples", "--judge-base-urls": "--judge", "--judge-cache": "--cache"}

OPTIONS = (
    PresetOption(
        "benchmark", "--benchmark", str, choices=tuple(BENCHMARKS.names()), help=" or ".join(BENCHMARKS.names()) + "."
    ),
    PresetOption(
        "predictions", "--predictions", Path,
        help="The benchmark's metadata (JSON list or JSONL) with the model's answer added to each item, "
        "or (with --metadata) a predictions file of any format answering multiple-choice questions.",
    ),
    PresetOption(
        "predictions_format", "--predictions-format", str, "auto",
        help="Format of the predictions file (audioeval list models names them); default: the one "
        "format the file matches, else the benchmark's own.",
    ),
    PresetOption(
        "metadata", "--metadata", Path, None, optional=True,
        help="The benchmark's metadata (mmau-test-mini.json, MMAR-meta.json): the items, when the "
        "predictions file holds answers only (another tool's output, {id, text} items).",
    ),
    PresetOption(
        "prediction_key", "--prediction-key", str, None, optional=True,
        help="Key holding the answer (default: answer_prediction or model_prediction for MMAR; "
        "model_output or model_prediction for MMAU; for another format, its own keys).",
    ),
    PresetOption(
        "official_print", "--official-print", bool, True, off_flag="--no-official-print",
        help="Also print the official scripts' lines.",
    ),
    PresetOption(
        "rubrics", "--rubrics", bool, False,
        help="MMAR only: judge the reasoning of matched answers against each item's rubric (MMAR-Rubrics).",
    ),
    PresetOption(
        "rubric_meta", "--rubric-meta", Path, None, optional=True,
        help="MMAR-meta.jsonl supplying rubric, thinking and question by id.",
    ),
    PresetOption(
        "judge_votes", "--judge-votes", int, 5, minimum=1,
        help="Valid judge calls per item; the item score drops the highest and lowest.",
    ),
    PresetOption(
        "judge_max_attempts", "--judge-max-attempts", int, 20, minimum=1,
        help="Judge calls per item at most, failed parses included.",
    ),
    PresetOption("judge_seed", "--judge-seed", int, 42, help="Sampling seed sent with every judge request."),
)  # fmt: skip


@dataclass(frozen=True)
class ScoreOptions:
    """`mcq score`'s own options (`OPTIONS` declares their flags, defaults and help), typed."""

    benchmark: str
    predictions: Path
    predictions_format: str
    metadata: Path | None
    prediction_key: str | None
    official_print: bool
    rubrics: bool
    rubric_meta: Path | None
    judge_votes: int
    judge_max_attempts: int
    judge_seed: int

    @classmethod
    def of(cls, values: PresetValues) -> ScoreOptions:
        """The options among a preset's values (one not given: its declared default)."""
        return read_options(cls, OPTIONS, values)

    @property
    def given_predictions(self) -> Path | None:
        """The predictions file, when one was given (a rescore reads no file)."""
        given = self.predictions
        return Path(given) if isinstance(given, str | Path) and str(given) else None


DEFAULTS = {
    "judge": None,  # asked for with --rubrics only
    "judge_model": "gpt-4o-2024-11-20",
    "judge_timeout": 120.0,
    "judge_temperature": 0.0,
    "judge_max_tokens": RUBRIC_MAX_TOKENS,
    "output_dir": None,  # outputs/<benchmark>
}
HELPS = {
    "judge": "Comma-separated OpenAI-compatible judge endpoints (with --rubrics).",
    "output_dir": "Where mcq_summary.json, per_item.jsonl and disagreements.jsonl go (default outputs/<benchmark>).",
    "seed": "Bootstrap seed.",
    "resamples": "Bootstrap resamples for the 95% confidence intervals.",
    "cache": "With --rubrics: the judge response cache file, keyed by request content only: share one "
    "across output folders and runs to ask nothing twice (default: in OUTPUT_DIR).",
}


def _check_flags(opts: ScoreOptions, shared: SharedValues) -> None:
    rubrics = bool(opts.rubrics)
    if shared.cache is not None and not rubrics:
        raise InputError("--cache needs --rubrics, and not --no-cache", field="--cache")
    if shared.judge_prompt is not None and not rubrics:
        raise InputError("--judge-prompt needs --rubrics", field="--judge-prompt")
    if not rubrics:
        return
    if not shared.judge:
        raise InputError("no endpoint URL given", field="--judge")
    problem = attempts_problem(opts.judge_votes, opts.judge_max_attempts)
    if problem:
        raise InputError(
            f"{problem}: --judge-votes must not exceed --judge-max-attempts", field="--judge-votes"
        )


def _rubric_info(opts: ScoreOptions, shared: SharedValues, plan: RubricPlan) -> RubricSettings:
    """The settings part of `mcq_summary.json`'s `rubrics`."""
    from audioeval.benchmarks.mcq.export import RubricSettings
    from audioeval.benchmarks.mcq.rubric_prompt import PROMPT_VERSION
    from audioeval.benchmarks.mcq.rubric_scorer import REDUCER

    prompt = shared.judge_prompt
    settings: RubricSettings = {
        "benchmark": "mmar-rubrics",
        "judge_model": shared.judge_model,
        "prompt_version": PROMPT_VERSION if prompt is None else None,
        **(RubricSettings() if prompt is None else RubricSettings(prompt_file=str(prompt))),
        "votes": opts.judge_votes,
        "max_attempts": opts.judge_max_attempts,
        "item_score": f"{REDUCER.replace('_', ' ')} (drop max and min)",
        "temperature": shared.judge_temperature,
        "seed": opts.judge_seed,
        "max_tokens": shared.judge_max_tokens,
        "without_rubric": plan.without_rubric,
        "skipped": [e.as_record() for e in plan.skipped],
    }
    return settings


def plan(values: PresetValues) -> PresetPlan:
    """The predictions file read and checked, as the samples of an `mmar`/`mmau` run."""
    from audioeval.benchmarks.mcq.definitions import get_benchmark
    from audioeval.benchmarks.mcq.source import RubricScorerArgs, score_spec
    from audioeval.benchmarks.mcq.source import rubric_plan as plan_of
    from audioeval.store.file_digest import file_sha256

    opts, shared = ScoreOptions.of(values), values.settings
    _check_flags(opts, shared)
    bench = get_benchmark(opts.benchmark)
    rubrics = bool(opts.rubrics)
    if rubrics and not bench.rubrics:
        raise InputError(f"--rubrics applies to MMAR only, not {bench.name}")
    predictions = Path(opts.predictions)
    scored = _scored(bench, predictions, opts)
    file, options = scored.file, scored.options
    if rubrics:
        options["rubrics"] = True
        if opts.rubric_meta:
            options["rubric_meta"] = str(Path(opts.rubric_meta).expanduser().resolve())
    rubric_plan = plan_of(file, options)
    scorer = (
        RubricScorerArgs(votes=opts.judge_votes, max_attempts=opts.judge_max_attempts) if rubrics else None
    )
    spec = score_spec(bench, scored.source, options, rubric_scorer=scorer)
    model: PlanModel = {
        "name": MODEL_NAME,
        "type": "predictions",
        "predictions": str(predictions.expanduser().resolve()),
        "predictions_format": scored.format,
        "prediction_key": scored.model_key,
        "concurrency": shared.judge_concurrency if rubrics else 8,
    }
    source: McqRunInfo = {
        "predictions": str(predictions),
        "predictions_sha256": file_sha256(predictions),
        "prediction_key": scored.key,
        "rubrics": _rubric_info(opts, shared, rubric_plan) if rubric_plan is not None else None,
    }
    if scored.metadata is not None:
        source.update(predictions_format=options["predictions_format"], metadata=str(scored.metadata))
    return PresetPlan(
        spec,
        str(predictions),
        model,
        rescore_changed_samples=True,
        export_info={"mcq": source},  # export.RUN_INFO_KEY
        judge={"max_tokens": shared.judge_max_tokens, "seed": opts.judge_seed} if rubrics else None,
    )


@dataclass(frozen=True)
class Scored:
    """What `mcq score` scores: the items with their answers, the source the engine reads
    them from again, and the format and key its `predictions` model reads the answers with."""

    file: Any  # loading.McqFile
    source: Path
    options: McqSourceOptions
    format: str
    key: str | None
    """The key the answers were read from (recorded in mcq_summary.json)."""
    model_key: str | None
    """The key the model's reader is given (None: the format's own choice)."""
    metadata: Path | None = None


def _scored(bench: Any, predictions: Path, opts: ScoreOptions) -> Scored:
    """The predictions file read and checked: a file of the benchmark's own format is its own
    items; a file of another format (a tool's output, `{id, text}` items) answers the items of
    `--metadata`, read as `run -m NAME=predictions:FILE` reads it (`answers_file.py`)."""
    from audioeval.benchmarks.mcq.answers_file import items_with_answers, predictions_format
    from audioeval.benchmarks.mcq.loading import load_mcq_file
    from audioeval.benchmarks.mcq.source import McqSourceOptions
    from audioeval.store.json_items import gc_paused

    key = opts.prediction_key
    chosen = predictions_format(bench, opts.predictions_format or "auto", predictions)
    given = opts.metadata
    if given is None and chosen.name != bench.name:
        raise InputError(
            f"the predictions file is read as {chosen.name} ({chosen.format.expects}): it holds answers, not "
            f"{bench.name}'s questions; give the benchmark's metadata with --metadata FILE",
            file=str(predictions),
            field="--metadata",
        )
    with gc_paused():  # many small acyclic objects: collector passes only cost time
        if given is None:
            file = load_mcq_file(predictions, bench, prediction_key=key)
            options = McqSourceOptions(prediction_key=file.prediction_key)  # the source type's
            return Scored(file, predictions, options, bench.name, file.prediction_key, file.prediction_key)
        metadata = Path(given)
        got = items_with_answers(bench, metadata, predictions, chosen, key)
    options = McqSourceOptions(
        predictions=str(predictions.expanduser().resolve()), predictions_format=chosen.name, prediction_key=key
    )
    fmt = "auto" if chosen.how == "auto" else chosen.name  # the model says how it was chosen
    return Scored(got.file, metadata, options, fmt, got.key, key, metadata)


def outcome(folder: Path, values: PresetValues) -> PresetOutcome:
    """`mcq_summary.json` read back: the figures, and the items the rubric judge failed (an
    unparseable model answer is an outcome, not a failure)."""
    opts = ScoreOptions.of(values)
    summary = loads((folder / SUMMARY_FILE).read_text(encoding="utf-8"))
    figures = {**summary, "official_print": opts.official_print}
    scored = int(summary["counts"]["scored"])
    judged = summary.get("rubrics")
    notes = _renamed(opts)
    unread = _unread(opts)
    if not judged:
        return PresetOutcome(
            figures, int(summary["counts"]["items"]), 0, scored, unit="item", notes=notes, skipped=unread
        )
    first = None
    if judged.get("failed") and (folder / RESULTS_FILE).is_file():
        from audioeval.benchmarks.mcq.export import first_failure

        lines = (folder / RESULTS_FILE).read_text(encoding="utf-8").splitlines()
        first = first_failure([loads(x) for x in lines if x.strip()])
    skipped = unread + [InputError.from_record(r) for r in judged.get("skipped") or []]
    return PresetOutcome(
        figures,
        int(judged["eligible"]),
        int(judged["failed"]),
        scored,
        first_failure=first,
        skipped=skipped,
        unit="rubric-judged item",
        notes=notes,
    )


def _unread(opts: ScoreOptions) -> list[InputError]:
    """The rows of a predictions file of another format that answer no item (unreadable, or
    matching none), listed as `run` lists them (`mcq score`; a rescore reads no file)."""
    predictions, metadata = opts.given_predictions, opts.metadata
    if predictions is None or not metadata:
        return []
    from audioeval.benchmarks.mcq.answers_file import items_with_answers, predictions_format
    from audioeval.benchmarks.mcq.definitions import get_benchmark

    bench = get_benchmark(opts.benchmark)
    chosen = predictions_format(bench, opts.predictions_format or "auto", predictions)
    got = items_with_answers(bench, Path(metadata), predictions, chosen, opts.prediction_key)
    return list(got.unread)


def _renamed(opts: ScoreOptions) -> list[str]:
    """The items scored under a new id because an earlier item has theirs (`mcq score`; a
    rescore reads no file)."""
    predictions = opts.given_predictions
    if predictions is None:
        return []
    from audioeval.benchmarks.mcq.definitions import get_benchmark
    from audioeval.benchmarks.mcq.loading import load_mcq_file

    bench = get_benchmark(opts.benchmark)
    if opts.metadata:
        return list(load_mcq_file(Path(opts.metadata), bench, require_predictions=False).renamed)
    file = load_mcq_file(predictions, bench, prediction_key=opts.prediction_key)
    return list(file.renamed)


SCORE = Preset(
    command=("mcq", "score"),
    help="Score predictions both ways (official token match and robust choice reading).",
    plan=plan,
    outcome=outcome,
    options=OPTIONS,
    defaults=DEFAULTS,
    helps=HELPS,
    aliases=SCORE_ALIASES,
    title="MMAR / MMAU",
    output_dir=lambda values: Path("outputs") / str(ScoreOptions.of(values).benchmark),
)
