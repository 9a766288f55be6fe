"""The files of an `mcq score` folder, exported from the run's records.

`mcq score` runs on the run engine (the preset `preset.py`): one record per item in
`<out>/<benchmark>/predictions/records.jsonl`, scored by `mcq_match` (official), `mcq_robust`
and, with `--rubrics`, `mmar_rubrics`. Its spec names this module's exporter (`exports:
mcq_score`), so the engine, after every run and every `audioeval rescore`, writes from the
latest record of each item `per_item.jsonl`, `disagreements.jsonl`, `rubrics/results.jsonl`
(the rubric judgements) and, last, `mcq_summary.json` (`SUMMARY_FILE`, with the rubric judge's
`reliability` as the pair summary computed it, when rubrics were judged), each replaced whole,
atomically. (`summary.json` beside it is the run's summary, written by the engine, as in every
run directory; before that was so, an `mcq score` folder's `summary.json` was this file, and a
rescore of such a folder still reads its settings there.) An item
without a prediction is counted, never scored; a record whose rubric judgement failed keeps
its official and robust scores (the rule scorers are run again on its stored answer: they
need no model or judge).

What the records do not hold (the predictions file scored, the rubric settings and what the
judge did in the run) comes from the preset's plan (`PresetPlan.export_info`, here as
`PairExport.run_info["mcq"]`) or, on a rescore,
from the summary being replaced.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import NotRequired, TypedDict

from audioeval.benchmarks.mcq.aggregate import McqGroup, disagreements, method_counts, summary_groups
from audioeval.benchmarks.mcq.definitions import McqBenchmark, get_benchmark
from audioeval.benchmarks.mcq.item_rows import (
    DisagreementRow,
    ItemRow,
    RubricResult,
    item_row,
    rubric_results,
)
from audioeval.benchmarks.mcq.rubric_scorer import SCORER_NAME as RUBRIC_SCORER
from audioeval.benchmarks.mcq.rubric_scorer import failure_reason
from audioeval.benchmarks.pair_exports import PairExport
from audioeval.benchmarks.pair_figures import PairFigures
from audioeval.core.errors import ErrorRecord, InputError
from audioeval.core.record import SampleRecord, in_order
from audioeval.core.version import __version__
from audioeval.metrics.judge_reliability import ReliabilityBlock
from audioeval.postprocess.chain import ROBUST_MCQ, ChoiceChainDescription
from audioeval.store.atomic import write_json_atomic, write_jsonl_atomic
from audioeval.store.json_file import read_json_object

RESULTS_FILE = "rubrics/results.jsonl"
SUMMARY_FILE = "mcq_summary.json"
"""The `mcq score` summary at the top of its folder (`summary.json` there is the run's)."""
COMPUTED_RUBRIC_COUNTS = ("eligible", "scored", "failed", "zero_unmatched")
RUN_INFO_KEY = "mcq"  # the preset's part of `PairExport.run_info`


class RubricCounts(TypedDict):
    """The eligible items of MMAR-Rubrics, those scored and failed, and those scored 0 with no
    judge call (their answer failed the official match)."""

    eligible: int
    scored: int
    failed: int
    zero_unmatched: int


class RubricSettings(TypedDict, total=False):
    """`mcq_summary.json`'s `rubrics` block: the preset's settings (`preset._rubric_info`), what
    the judge did in the run, the results file and the counts (`RubricCounts`)."""

    benchmark: str
    judge_model: str | None
    prompt_version: str | None
    prompt_file: str
    votes: int
    max_attempts: int
    item_score: str
    temperature: float
    seed: int | None
    max_tokens: int
    without_rubric: int
    skipped: list[ErrorRecord]
    judged_now: int
    reused: int
    judge_calls: int
    cache_hits: int
    results: str
    eligible: int
    scored: int
    failed: int
    zero_unmatched: int


class McqCounts(TypedDict):
    items: int
    scored: int
    without_prediction: int
    answer_not_in_choices: int


class OfficialMode(TypedDict):
    algorithm: str


class RobustMode(TypedDict):
    chain: ChoiceChainDescription
    methods: dict[str, int]


class DisagreementCounts(TypedDict):
    n: int
    official_only: int
    robust_only: int
    file: str
    ids: list[str]


class BootstrapSettings(TypedDict):
    n_resamples: int
    confidence: float
    seed: int


class OtherFormat(TypedDict, total=False):
    """A predictions file of another format than the benchmark's: its format, and the metadata
    file its answers answer."""

    predictions_format: str | None
    metadata: str | None


class McqRunInfo(OtherFormat):
    """What the preset tells the export (`PairExport.run_info["mcq"]`): the predictions file,
    its hash and the key read (with `OtherFormat` for another format), the rubric settings."""

    predictions: str
    predictions_sha256: str
    prediction_key: str | None
    rubrics: RubricSettings | None


class McqSummary(TypedDict):
    """`mcq_summary.json` (`SUMMARY_FILE`): what was scored, the counts, both modes' figures
    overall and per breakdown group (`aggregate.McqGroup`, the pair summary's figures), the
    disagreements, the rubric settings and counts, the bootstrap settings, and the rubric
    judge's reliability when rubrics were judged. `mcq score`'s outcome adds `official_print`
    for the console."""

    benchmark: str
    predictions: str
    predictions_sha256: str
    prediction_key: str | None
    predictions_format: NotRequired[str | None]
    metadata: NotRequired[str | None]
    counts: McqCounts
    without_prediction_ids: list[str]
    official: OfficialMode
    robust: RobustMode
    overall: McqGroup
    breakdowns: dict[str, dict[str, McqGroup]]
    disagreements: DisagreementCounts
    rubrics: RubricSettings | None
    bootstrap: BootstrapSettings
    audioeval_version: str
    reliability: NotRequired[dict[str, ReliabilityBlock]]
    official_print: NotRequired[bool]


@dataclass(frozen=True)
class Provenance:
    """What was scored: the predictions file (path, content hash) and the key read."""

    predictions: str
    predictions_sha256: str
    prediction_key: str | None
    predictions_format: str | None = None
    """The file's format, when it is not the benchmark's own (its items then come from `metadata`)."""
    metadata: str | None = None


@dataclass
class McqScoreResult:
    """What `mcq score` produced: per-item rows, the summary and the disagreements.

    Its repr leaves out the rows, the summary and the disagreements: the engine's result
    holds it, and `asyncio.run` formats the finished task's result (a repr of every row,
    a tenth of a second at 10,000 items) when it restores the SIGINT handler."""

    bench: McqBenchmark
    rows: list[ItemRow] = field(repr=False)
    summary: McqSummary = field(repr=False)
    disagreements: list[DisagreementRow] = field(repr=False)
    first_failure: str | None = None  # "id 'x': reason" of the first item the judge failed


def rubric_counts(results: Sequence[RubricResult]) -> RubricCounts:
    return {
        "eligible": len(results),
        "scored": sum(1 for r in results if not r.get("failed")),
        "failed": sum(1 for r in results if r.get("failed")),
        "zero_unmatched": sum(1 for r in results if r.get("matched") is False),
    }


def first_failure(results: Sequence[RubricResult]) -> str | None:
    """The first eligible item whose judgement failed, with the last judge error."""
    failed = next((r for r in results if r.get("failed")), None)
    return None if failed is None else f"id {failed['id']!r}: {failure_reason(failed)}"


def build_summary(
    bench: McqBenchmark,
    source: Provenance,
    rows: Sequence[ItemRow],
    pair: PairFigures,
    *,
    n_resamples: int = 1000,
    seed: int = 0,
    rubrics: RubricSettings | None = None,
    reliability: Mapping[str, ReliabilityBlock] | None = None,
    diffs: Sequence[DisagreementRow] | None = None,
) -> McqSummary:
    """The JSON summary: counts, both modes per breakdown group (the figures of the pair
    summary `pair`, which the engine computed from the same records), disagreements (`diffs`,
    when the caller has them: `disagreements(rows)`), settings, and the rubric judge's
    reliability when rubrics were judged."""
    diffs = disagreements(rows) if diffs is None else diffs
    try:
        groups = summary_groups(pair, rows, bench)
    except ValueError as exc:
        raise InputError(str(exc), field="summary.json") from None
    summary: McqSummary = {
        "benchmark": bench.name,
        "predictions": source.predictions,
        "predictions_sha256": source.predictions_sha256,
        "prediction_key": source.prediction_key,
        **(
            OtherFormat(predictions_format=source.predictions_format, metadata=source.metadata)
            if source.metadata
            else OtherFormat()
        ),
        "counts": {
            "items": len(rows) if pair.n is None else pair.n,
            "scored": groups["overall"]["n"],
            "without_prediction": pair.failed_outputs,
            "answer_not_in_choices": sum(1 for r in rows if r.get("answer_letter") is None),
        },
        "without_prediction_ids": list(pair.failed_output_ids),
        "official": {"algorithm": "official token-set match (MMAR/MMAU evaluation.py)"},
        "robust": {"chain": ROBUST_MCQ.describe(), "methods": method_counts(rows)},
        "overall": groups["overall"],
        "breakdowns": groups["breakdowns"],
        "disagreements": {
            "n": len(diffs),
            "official_only": sum(1 for d in diffs if d["official"]),
            "robust_only": sum(1 for d in diffs if d["robust"]),
            "file": "disagreements.jsonl",
            "ids": [d["id"] for d in diffs],
        },
        "rubrics": RubricSettings(**rubrics) if rubrics is not None else None,
        "bootstrap": {"n_resamples": n_resamples, "confidence": 0.95, "seed": seed},
        "audioeval_version": __version__,
    }
    if reliability is not None:
        summary["reliability"] = dict(reliability)
    return summary


def export_folder(
    out: Path,
    bench: McqBenchmark,
    records: Sequence[SampleRecord],
    source: Provenance,
    *,
    pair: PairFigures,
    rubric_info: RubricSettings | None,
    reliability: Mapping[str, ReliabilityBlock] | None,
    n_resamples: int,
    seed: int,
) -> McqScoreResult:
    """Write per_item.jsonl, disagreements.jsonl, rubrics/results.jsonl and (last)
    mcq_summary.json from the items' latest records (in item order)."""
    rows = [item_row(rec) for rec in records]
    rubrics = None
    failure = None
    if rubric_info is not None:
        results = rubric_results(records, rubric_info.get("judge_model"))
        write_jsonl_atomic(out / RESULTS_FILE, results)
        rubrics = RubricSettings(**{**rubric_info, "results": RESULTS_FILE, **rubric_counts(results)})
        failure = first_failure(results)
    diffs = disagreements(rows)
    summary = build_summary(
        bench,
        source,
        rows,
        pair,
        n_resamples=n_resamples,
        seed=seed,
        rubrics=rubrics,
        reliability=reliability,
        diffs=diffs,
    )
    write_jsonl_atomic(out / "per_item.jsonl", rows)
    write_jsonl_atomic(out / "disagreements.jsonl", diffs)
    write_json_atomic(out / SUMMARY_FILE, summary)
    return McqScoreResult(bench, rows, summary, diffs, failure)


def write_exports(folder: Path, export: PairExport) -> McqScoreResult:
    """The exporter of an `mcq score` pair (registered as `mcq_score`)."""
    records = in_order(export.records, export.expected_ids)
    run = export.run_info.get(RUN_INFO_KEY)
    if run is not None:
        source = Provenance(
            run["predictions"], run["predictions_sha256"], run["prediction_key"],
            run.get("predictions_format"), run.get("metadata"),
        )  # fmt: skip
        info = run.get("rubrics")
        if info is not None:
            asked = set(export.asked_ids)
            eligible = [r.id for r in records if "rubric" in r.sample.fields]
            judged_now = sum(1 for i in eligible if i in asked)
            now = RubricSettings(
                judged_now=judged_now,
                reused=len(eligible) - judged_now,
                judge_calls=export.run_info.get("judge_calls", 0),
                cache_hits=export.run_info.get("cache_hits", 0),
            )
            info = RubricSettings(**{**info, **now})
    else:
        source, info = _as_scored(scored_summary(folder))
    return export_folder(
        folder,
        get_benchmark(export.bench.name),
        records,
        source,
        pair=PairFigures.of(export.summary),
        rubric_info=info,
        reliability=export.reliability(RUBRIC_SCORER) if info is not None else None,
        n_resamples=export.resamples,
        seed=export.seed,
    )


def scored_summary(folder: Path) -> Path:
    """The `mcq score` summary a rescore replaces: `mcq_summary.json`, or the `summary.json`
    of a folder scored before the export had its own name."""
    path = folder / SUMMARY_FILE
    return path if path.is_file() or not (folder / "summary.json").is_file() else folder / "summary.json"


def _as_scored(path: Path) -> tuple[Provenance, RubricSettings | None]:
    """A rescore's provenance and rubric settings: those of the summary it replaces."""
    summary = read_json_object(path)
    source = Provenance(
        str(summary.get("predictions")), str(summary.get("predictions_sha256")), summary.get("prediction_key"),
        summary.get("predictions_format"), summary.get("metadata"),
    )  # fmt: skip
    rubrics = summary.get("rubrics")
    info = (
        RubricSettings(**{k: v for k, v in rubrics.items() if k not in COMPUTED_RUBRIC_COUNTS})
        if rubrics
        else None
    )
    return source, info
