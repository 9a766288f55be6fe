"""The files of `audioeval judge-eval`, exported from the run's records (`exports: judge_eval`).

After every run and every `audioeval rescore`, from the latest record of each bench row:
`per_row.jsonl` (uuid, subset, type, label, the judge's score, every item's P(yes), whether
the judge failed) and, last, `judge_eval_summary.json` (`SUMMARY_FILE`; `summary.py`, with the
judge's `reliability` block), each replaced whole, atomically. (`summary.json` beside it is the
run's summary, written by the engine, as in every run directory; a folder scored before the
export had its own name kept it in `summary.json`, where a rescore still reads its settings.)
Rows with an empty rubric were never judged: the preset hands them over and the export
writes them to `unscored.jsonl`, which a rescore reads back, so they are counted per subset
then too.

The threshold is the preset's (`--threshold`; default by mode, `summary.default_threshold`:
the official 0.8 in `all_at_once`, the official generate mode; ours, 0.5, in `per_item`) or
tuned on a dev split
(`--tune-on`): the dev rows are a second benchmark of the same run, whose records the export
reads from the pair folder the preset names, so a rescore tunes again from them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from audioeval.benchmarks.anyaudio_bench.figures import METRICS
from audioeval.benchmarks.anyaudio_bench.items_scorer import AnyAudioItemsScorer
from audioeval.benchmarks.anyaudio_bench.judge_eval_doc import (
    ItemLine,
    JudgeEvalSettings,
    JudgeEvalSummary,
    RowLine,
)
from audioeval.benchmarks.anyaudio_bench.rows import JudgeEvalRow, judge_eval_row
from audioeval.benchmarks.anyaudio_bench.summary import default_threshold, judge_eval_summary
from audioeval.benchmarks.anyaudio_bench.tuned import pair_at, tuned_threshold
from audioeval.benchmarks.pair_exports import PairExport
from audioeval.benchmarks.pair_figures import PairFigures
from audioeval.core.errors import RunConfigError
from audioeval.core.record import SampleRecord, in_order
from audioeval.metrics.binary_judge import TunedThreshold
from audioeval.store.atomic import write_json_atomic, write_jsonl_atomic
from audioeval.store.json_file import read_json_object, read_sample_ids
from audioeval.store.jsonl import read_jsonl
from audioeval.store.run_folder import pair_run_id, read_pair

RUN_INFO_KEY = "judge_eval"
SCORER = "anyaudio_items"
EARLIER_SCORER = "rubric_items"  # what judge-eval recorded under before `anyaudio_items`
VALUE = "rubric_score"
UNSCORED_FILE = "unscored.jsonl"
ROWS_FILE = "per_row.jsonl"
SUMMARY_FILE = "judge_eval_summary.json"
"""The judge-eval summary at the top of its folder (`summary.json` there is the run's)."""
SETTINGS = ("bench", "judge_model", "threshold", "threshold_source", "dev_records", "dev_ids", "mode")
"""What the preset tells the export (and the summary keeps, for a rescore)."""


@dataclass
class JudgeEvalResult:
    """What the export wrote: the summary and the first judge failure (for the printout)."""

    summary: JudgeEvalSummary
    first_failure: str | None = None


def _scorer(rec: SampleRecord) -> str:
    """The scorer a record was judged by (an earlier run's: `rubric_items`). A failed record has
    no scores (None), only what its judge answered."""
    scores = rec.scores or {}
    if SCORER in scores or SCORER in rec.judge:
        return SCORER
    return EARLIER_SCORER if EARLIER_SCORER in scores or EARLIER_SCORER in rec.judge else SCORER


def record_row(rec: SampleRecord) -> JudgeEvalRow:
    """The summary row of a record: its score, or failed when the judge gave none (a record
    whose judge answers gave no item a value fails, and has no scores)."""
    score = (rec.scores or {}).get(_scorer(rec))
    value = None if score is None else score.values.get(VALUE)
    return judge_eval_row(rec.sample, value, failed=value is None)


def _row_line(rec: SampleRecord, row: JudgeEvalRow) -> RowLine:
    items = ((rec.judge or {}).get(_scorer(rec)) or {}).get("items") or []
    return RowLine(
        **row.fields(),
        items=[
            ItemLine(
                dimension=i.get("dimension"), question=i.get("question"), p_yes=i.get("p_yes"), method=i.get("method")
            )
            for i in items
        ],
        error=rec.error,
    )


def _judged_at(export: PairExport) -> float | None:
    """The threshold the pair's rows were judged at (each row's verdict a stat of its record),
    None when it was tuned after judging (`--tune-on`)."""
    return next((s.threshold for s in export.bench.scorers if isinstance(s, AnyAudioItemsScorer)), None)


def write_exports(folder: Path, export: PairExport) -> JudgeEvalResult:
    """The exporter of a judge-eval pair (registered as `judge_eval`)."""
    settings: JudgeEvalSettings | None = export.run_info.get(RUN_INFO_KEY)
    if settings is None:  # a rescore: the settings the summary being replaced was made with
        settings = _as_scored(scored_summary(folder))
    records = in_order(export.records, export.expected_ids)
    rows = [record_row(r) for r in records]
    if "unscored_rows" in settings:  # a run: the preset's rows, kept for every later rescore
        write_jsonl_atomic(folder / UNSCORED_FILE, settings["unscored_rows"])
    unscored = [JudgeEvalRow(**line) for line in read_jsonl(folder / UNSCORED_FILE).records]
    given = settings.get("threshold")
    mode = str(settings.get("mode") or "per_item")
    threshold, source = default_threshold(mode)
    if given is not None or settings.get("threshold_source") not in (None, "default"):
        threshold = threshold if given is None else float(given)
        source = str(settings.get("threshold_source"))
    tuning = None
    judged_at = _judged_at(export)
    if judged_at is not None:
        threshold = judged_at
    else:  # tuned on the dev split after judging (or its default when no dev row was scored)
        tuning, threshold, source = _tuning(folder, settings, threshold, source)
    pair = PairFigures.of(export.summary)
    if judged_at is None or any(m not in pair.metrics for m in METRICS):
        # no record holds its row's verdict at this threshold (tuned after judging, or a folder
        # judged before these metrics were declared): the pair summary at it (`tuned.py`)
        pair = pair_at(export.records, export.expected_ids, threshold, n_resamples=export.resamples, seed=export.seed)
    summary = judge_eval_summary(
        pair,
        [*rows, *unscored],
        threshold=threshold,
        threshold_source=source,
        n_resamples=export.resamples,
        seed=export.seed,
        tuning=tuning,
        mode=mode,
    )
    summary["bench"] = settings.get("bench")
    summary["judge_model"] = export.judge_model or settings.get("judge_model")
    summary["settings"] = JudgeEvalSettings(  # the keys of `SETTINGS`
        bench=settings.get("bench", ""),
        judge_model=settings.get("judge_model"),
        threshold=settings.get("threshold"),
        threshold_source=settings.get("threshold_source"),
        dev_records=settings.get("dev_records"),
        dev_ids=settings.get("dev_ids"),
        mode=settings.get("mode", ""),
    )
    summary["reliability"] = export.reliability()
    skipped = [r for r in settings.get("skipped_rows") or [] if isinstance(r, dict)]
    summary["skipped"] = {"n": len(skipped), "rows": skipped}  # rows that could not be read
    write_jsonl_atomic(
        folder / ROWS_FILE, [_row_line(rec, row) for rec, row in zip(records, rows, strict=True)]
    )
    write_json_atomic(folder / SUMMARY_FILE, summary)
    failed = next((rec for rec, row in zip(records, rows, strict=True) if row.failed), None)
    first = None if failed is None else f"id {failed.id!r}: {failed.error or 'no score'}"
    return JudgeEvalResult(summary, first)


def _tuning(
    folder: Path, settings: JudgeEvalSettings, threshold: float, source: str
) -> tuple[TunedThreshold | None, float, str]:
    """The threshold tuned on the dev pair's records (`tuned.tuned_threshold`), with its source."""
    dev = settings.get("dev_records")
    if not dev:
        return None, threshold, source
    # the dev pair's ids, in order: its records may hold other rows (another dev file given to
    # an earlier run in the same folder)
    dev_ids = read_sample_ids(folder / str(settings.get("dev_ids")))
    dev_pair = (folder / dev).parent  # read through the run folder's checked reader
    dev_records = read_pair(dev_pair, pair_run_id(dev_pair), expected_ids=dev_ids).usable().records
    dev_rows = [record_row(r) for r in in_order(dev_records, dev_ids)]
    scored_dev = [r for r in dev_rows if not r.failed]
    if not scored_dev:  # the judge scored no dev row: nothing to tune on
        return None, threshold, f"default: no dev row of {settings.get('threshold_source')} was scored"
    tuning = tuned_threshold(scored_dev)
    return tuning, tuning.value, source


def scored_summary(folder: Path) -> Path:
    """The judge-eval summary a rescore replaces: `judge_eval_summary.json`, or the
    `summary.json` of a folder scored before the export had its own name."""
    path = folder / SUMMARY_FILE
    return path if path.is_file() or not (folder / "summary.json").is_file() else folder / "summary.json"


def _as_scored(path: Path) -> JudgeEvalSettings:
    settings = read_json_object(path).get("settings")
    if not isinstance(settings, dict):
        raise RunConfigError(f"{path}: no judge-eval settings to rescore with")
    skipped = read_json_object(path).get("skipped")
    rows = skipped.get("rows") if isinstance(skipped, dict) else []
    return JudgeEvalSettings(**{**settings, "skipped_rows": rows})
