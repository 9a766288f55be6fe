"""The files of MMAE, exported from the records of a run of the `mmae_rubrics` scorer.

- `results.jsonl`: one line per judged rubric (id, rubric_index, category, axis, question,
  right_choice, judge_model, votes, score, failed, failure, every attempt). A rerun that
  judges a failed sample again adds the lines of its rubrics judged anew (a rubric whose
  valid votes came back unchanged, from the response cache, is not repeated): the failures
  stay on record and the later line of a rubric supersedes the earlier one.
- `per_sample.json`: IFR / CR / EM of each sample judged or without a usable output.
- `taxonomy.json`: the headline and every breakdown with bootstrap CIs, as the pair
  summary computed them (`aggregate.taxonomy` formats them), the judge's `reliability` (the pair summary's, `metrics/judge_reliability.py`) and a
  `run` block (rubrics judged now and reused, judge calls, …; with early stop on,
  `early_stop: true`, `calls_saved` and `rubrics_stopped_early`: see `early_stop_info`).
- `skipped.json`: input errors (unreadable metadata samples or clips, prediction items
  that answer no sample), each counted once per sample in `n_skipped`.
- `failed_outputs.json`: samples the system under test gave no usable output for (no
  prediction, edited audio missing or unreadable); they count 0 in the headline unless
  excluded.

The numbers come from each sample's latest record, as the run's own summary does.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, NotRequired, TypedDict, TypeVar

from audioeval.benchmarks.mmae.aggregate import (
    PerSampleRow,
    RunBlock,
    TaxonomyFile,
    VerifierFigures,
    failed_output_row,
    per_sample_row,
    taxonomy,
)
from audioeval.benchmarks.mmae.preset import (  # the file names, stated once
    FAILED_OUTPUTS_FILE,
    MEASURED_SCORER,
    PER_SAMPLE_FILE,
    RESULTS_FILE,
    SKIPPED_FILE,
    TAXONOMY_FILE,
    WrittenFiles,
)
from audioeval.benchmarks.mmae.records import MeasuredRubric, MmaeSample, RubricOutcome
from audioeval.benchmarks.mmae.rubric_scorer import SCORER_NAME, stored_rubrics
from audioeval.benchmarks.mmae.rubric_votes import AttemptDoc
from audioeval.benchmarks.mmae.source import mmae_item
from audioeval.benchmarks.pair_exports import PairExport
from audioeval.core.errors import InputError
from audioeval.core.record import SampleRecord, in_order
from audioeval.core.redact import redact_known
from audioeval.scoring.judged import JudgedScorer
from audioeval.store.atomic import write_json_atomic, write_text_atomic
from audioeval.store.bounded_json import loads

if TYPE_CHECKING:
    from audioeval.audio.verifiers.measurement import MeasurementRecord


class ResultLine(TypedDict):
    """One line of results.jsonl: a judged (or measured) rubric of a sample, its question and
    right choice, the judge, and its outcome (`RubricOutcome`'s votes, score, failure and
    attempts; measured: the measurement's fields)."""

    id: str
    rubric_index: int
    category: str
    axis: str | None
    question: str
    right_choice: str
    judge_model: str | None
    votes: list[bool] | None
    score: int | None
    failed: bool | None
    failure: str | None
    attempts: list[AttemptDoc] | None
    check: NotRequired[str]
    check_source: NotRequired[str]
    measurement: NotRequired[MeasurementRecord]
    not_judged: NotRequired[str]
    measured: NotRequired[MeasuredRubric]
    audit: NotRequired[MeasuredRubric]
    votes_not_asked: NotRequired[int]


def rubric_outcomes(rec: SampleRecord) -> list[RubricOutcome]:
    """The judged rubrics of a record (its stored judge answers, scored or failed; or the
    measurements of `--judge verifiers`)."""
    stored = rec.judge.get(SCORER_NAME)
    if stored is None and rec.scores and MEASURED_SCORER in rec.scores:
        stored = rec.scores[MEASURED_SCORER].detail
    rubrics = stored_rubrics(stored) if isinstance(stored, Mapping) else []
    return [r for r in rubrics if isinstance(r.get("rubric_index"), int)]


def _mmae_sample(rec: SampleRecord) -> MmaeSample:
    """A record's MMAE item: the one its sample carries (validated once where it entered)."""
    return mmae_item(rec.sample)


def _line(ms: MmaeSample, outcome: RubricOutcome, judge: str | None) -> ResultLine:
    index = int(outcome["rubric_index"])
    rubric = ms.rubrics[index]
    line: ResultLine = {
        "id": ms.id,
        "rubric_index": index,
        "category": outcome.get("category", rubric.category),
        "axis": outcome.get("axis"),
        "question": rubric.question,
        "right_choice": rubric.right_choice,
        "judge_model": judge,
        "votes": outcome.get("votes"),
        "score": outcome.get("score"),
        "failed": outcome.get("failed"),
        "failure": outcome.get("failure"),
        "attempts": outcome.get("attempts"),
    }
    # measurement
    for k in ("check", "check_source", "measurement", "not_judged", "measured", "audit"):
        if k in outcome:
            line[k] = outcome[k]
    if outcome.get("votes_not_asked"):  # early stop: the votes that could not change the verdict
        line["votes_not_asked"] = outcome["votes_not_asked"]
    return line


def _same_verdict(a: ResultLine, b: ResultLine) -> bool:
    """Whether two lines of a rubric hold the same judgement (a cached answer asked again)."""

    def key(x: ResultLine) -> tuple[object, ...]:
        raws = [(t.get("attempt"), t.get("raw"), t.get("letter")) for t in x.get("attempts") or []]
        return (x.get("score"), x.get("failed"), x.get("votes"), raws)

    return key(a) == key(b)


@dataclass
class ResultLines:
    """`results.jsonl` of a pair, and how many of its lines came before this run."""

    lines: list[ResultLine] = field(default_factory=list)
    before: int = 0
    reused: set[tuple[str, int]] = field(default_factory=set)  # rubrics scored before this run
    # the last line of each rubric (id, rubric index): what a reader of the file ends up with
    last: dict[tuple[str, int], ResultLine] = field(default_factory=dict)


def result_lines(records: list[SampleRecord], stored: int, judge: str | None) -> ResultLines:
    """Every rubric line of the records in order; `stored`: records there before this run."""
    out = ResultLines()
    last = out.last
    for n, rec in enumerate([*records, None]):
        if n == min(stored, len(records)):
            out.before = len(out.lines)
            out.reused = {k for k, line in last.items() if not line["failed"]}
        if rec is None:
            break
        outcomes = rubric_outcomes(rec)
        if not outcomes:
            continue
        ms = _mmae_sample(rec)
        for outcome in outcomes:
            if not 0 <= int(outcome["rubric_index"]) < len(ms.rubrics):
                continue
            line = _line(ms, outcome, judge)
            k = (ms.id, line["rubric_index"])
            if k in last and _same_verdict(last[k], line):
                continue
            last[k] = line
            out.lines.append(line)
    return out


def _where(rec: SampleRecord) -> InputError:
    """The error of a failed record, with its file and field when the record kept them."""
    if isinstance(rec.error_detail, Mapping):
        return InputError.from_record(rec.error_detail)
    return InputError(rec.error or "failed", sample_id=rec.id)


@dataclass
class SampleRows:
    rows: list[PerSampleRow] = field(default_factory=list)
    failed_outputs: list[InputError] = field(default_factory=list)
    unjudged: list[InputError] = field(default_factory=list)  # input errors met while judging


def sample_rows(latest: list[SampleRecord]) -> SampleRows:
    """From each sample's latest record, in benchmark order: a failed-output row (every rubric
    0) for a sample without a usable output, the row of its judged rubrics otherwise; a sample
    whose input could not be read while judging has no row (it is an input error)."""
    out = SampleRows()
    for rec in latest:
        ms = _mmae_sample(rec)
        outcomes = rubric_outcomes(rec)
        if rec.output_failed:
            why = _where(rec)
            out.failed_outputs.append(why)
            out.rows.append(failed_output_row(ms, why.describe()).row)
        elif outcomes:
            out.rows.append(per_sample_row(ms, {int(o["rubric_index"]): o for o in outcomes}).row)
        elif rec.error is not None:
            out.unjudged.append(_where(rec))
    return out


def n_skipped(skipped: list[InputError]) -> int:
    """Input errors counted once per sample (an error without an id counts on its own)."""
    return len({e.sample_id if e.sample_id else f"#{i}" for i, e in enumerate(skipped)})


def early_stop_info(ex: PairExport, latest: list[SampleRecord]) -> RunBlock:
    """With early stop on: `early_stop: true`; `calls_saved`, the valid votes the full
    protocol would still have asked (votes needed − valid votes, over the rubrics of each
    sample's latest record that early stop decided before every vote was in; each would
    have cost at least one judge call, so it is a lower bound on the calls saved);
    `rubrics_stopped_early`. Read from the records, so a rescore gives the same figures."""
    scorer = next((s for s in ex.bench.scorers if s.name == SCORER_NAME), None)
    if not (isinstance(scorer, JudgedScorer) and scorer.early_stop):
        return {}
    stopped = [int(o.get("votes_not_asked") or 0) for rec in latest for o in rubric_outcomes(rec)]
    return {
        "early_stop": True,
        "calls_saved": sum(stopped),
        "rubrics_stopped_early": sum(1 for n in stopped if n > 0),
    }


def verifier_info(latest: list[SampleRecord], votes: int) -> VerifierFigures:
    """`verify: first`: the rubrics answered by measurement and the judge
    calls that saved (votes per rubric each: a lower bound when a vote needs retries). Empty
    when it did not happen. (`verify: audit`'s agreement is a figure of the pair summary's
    reliability block, `metrics/judge_reliability.py`; the outputs' health is the summary's
    `output_health`, `metrics/output_health.py`.)"""
    measured = sum(1 for rec in latest for o in rubric_outcomes(rec) if o.get("measured") is not None)
    out: VerifierFigures = {}
    if measured:
        out["verifier_first"] = {
            "rubrics_measured": measured,
            "calls_saved": measured * votes,
            "figure": "ours",
        }
    return out


# One encoder for every line of results.jsonl: what `json.dumps(line, ensure_ascii=False,
# allow_nan=False)` gives, without a new encoder per line.
_LINE = json.JSONEncoder(ensure_ascii=False, allow_nan=False).encode


def write_exports(folder: Path, ex: PairExport) -> WrittenFiles:
    """Write the MMAE files of one pair into `folder`, whole and atomically; return what a
    reader of them would get, for the command's report (`preset.outcome`)."""
    lines = result_lines(ex.records, ex.stored, ex.judge_model)
    latest = in_order(ex.records, ex.expected_ids)  # each sample's latest record, in benchmark order
    rows = sample_rows(latest)
    skipped = [*ex.skipped, *rows.unjudged]
    try:  # every figure the pair summary's, the counts beside them from the rows
        tax = taxonomy(
            ex.summary, rows.rows, n_skipped=n_skipped(skipped), n_resamples=ex.resamples, seed=ex.seed
        )
    except ValueError as exc:
        raise InputError(str(exc), field="summary.json") from None
    wanted = set(ex.expected_ids)
    run: RunBlock = {**ex.run_info, **early_stop_info(ex, latest)}
    scorer = next((x for x in ex.bench.scorers if x.name == SCORER_NAME), None)
    verified = verifier_info(latest, int(getattr(scorer, "votes", 0)))
    if "verifier_first" in verified:
        run["calls_saved_by_measurement"] = verified["verifier_first"]["calls_saved"]
    if ex.judged:  # a rescore judges nothing
        run["judged_now"] = len(lines.lines) - lines.before
        run["reused"] = sum(1 for sid, _ in lines.reused if sid in wanted)
    folder.mkdir(parents=True, exist_ok=True)
    write_text_atomic(folder / RESULTS_FILE, "".join([_LINE(x) + "\n" for x in lines.lines]))
    per_sample = rows.rows
    write_json_atomic(folder / PER_SAMPLE_FILE, per_sample)
    reliability = ex.reliability(SCORER_NAME)
    block = reliability.get(SCORER_NAME) if isinstance(reliability, dict) else None
    if isinstance(block, dict) and "verifier_audit" in block:  # the summary's figure, also at the top
        verified["verifier_audit"] = block["verifier_audit"]
    if isinstance(ex.summary.get("output_health"), Mapping):  # measured once, when the pair was summarised
        verified["output_health"] = ex.summary["output_health"]
    figures: TaxonomyFile = {**tax, "reliability": reliability, "run": run, **verified}
    write_json_atomic(folder / TAXONOMY_FILE, figures)
    skipped_records = [e.as_record() for e in skipped]
    write_json_atomic(folder / SKIPPED_FILE, skipped_records)
    failed_records = [e.as_record() for e in rows.failed_outputs]
    write_json_atomic(folder / FAILED_OUTPUTS_FILE, failed_records)
    return WrittenFiles(
        folder,
        figures=_as_read(figures),
        rows=per_sample,
        skipped=[InputError.from_record(r) for r in _as_read(skipped_records)],
        failed_outputs=[InputError.from_record(r) for r in _as_read(failed_records)],
        failures={k: line.get("failure") for k, line in lines.last.items()},
    )


Doc = TypeVar("Doc")


def _as_read(obj: Doc) -> Doc:
    """`obj` as a reader of the file written from it gets it: JSON, the known secrets redacted
    (`store/atomic.py` writes it so; the layout does not change what is read)."""
    return loads(redact_known(json.dumps(obj, ensure_ascii=False, allow_nan=False)))
