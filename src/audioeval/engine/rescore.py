"""`audioeval rescore RUN`: post-process, score and aggregate again from stored outputs.

No model is called and no data source is read: every record holds the model's raw output
and the sample fields scoring needs. Judge answers are re-read, not asked again, and so is an
ASR scorer's transcript of the output audio while the transcriber's signature and the audio's
content hash are those stored beside it (else it is transcribed again). Records are rewritten
atomically with the new scores (outputs untouched); the summaries, the leaderboard and the
benchmarks' own exports (`exports.py`, e.g. MMAE's taxonomy.json) are rebuilt. A record
without a usable output gets its `failure_scores` again (what it counts for in the headline);
a line that is not a valid record (cut short, damaged, a NaN score, an id that is not one of
the pair's samples) is kept as it is, left out, reported (`RescoreResult.ignored`) and its
sample counts as missing work, as in `audioeval run`.

`profile` (`rescore --profile ultraeval`) scores every benchmark under that scoring profile:
run.json's specs and each pair's signature.json (its `benchmark.scorers`) are rewritten with
it, so a later `audioeval run` into the folder resumes only with the same `--profile`, and is
refused, naming the scorers' `profile`, without it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from audioeval.benchmarks.plugins import load_benchmarks
from audioeval.benchmarks.resolved import ResolvedBenchmark, resolve
from audioeval.benchmarks.spec import parse_spec, with_profile
from audioeval.core.errors import RunConfigError
from audioeval.core.record import SampleRecord, latest_records
from audioeval.engine.evaluate import PairRun, summarise_pairs
from audioeval.engine.exports import ExportSettings, export_pairs
from audioeval.engine.model_specs import ModelConfig
from audioeval.engine.run_layout import IDS_FILE, RECORDS_FILE, RUN_FILE, pair_dir
from audioeval.engine.run_summary import PairSummary, RunSummary, write_run_summary
from audioeval.engine.sample_pipeline import mark_failed_output, record_unusable_output, score_output
from audioeval.scoring.hook_guard import checked_signature
from audioeval.scoring.judged import is_judged
from audioeval.scoring.speech_models.runtime import throughput_report, throughput_since
from audioeval.store.atomic import write_json_atomic, write_text_atomic
from audioeval.store.bounded_json import loads
from audioeval.store.json_file import read_json_object, read_sample_ids
from audioeval.store.records import record_problem
from audioeval.store.run_lock import hold_run_lock
from audioeval.store.signature import SIGNATURE_FILE


@dataclass
class RescoreResult:
    results: list[PairSummary]
    rescored: int
    changed: int
    metric_models: dict[str, dict[str, float | int]] = field(default_factory=dict)
    """Work of the embedded metric models while rescoring (as `EvalResult.metric_models`)."""
    exports: dict[Path, Any] = field(default_factory=dict)  # what each benchmark exporter returned
    ignored: list[str] = field(default_factory=list)
    """Stored lines that could not be used (`file:line: why`): their samples count as missing."""
    unlisted: int = 0
    """Of those, lines of pairs without ids.json (missing work the summaries cannot see)."""
    summary: RunSummary | None = None
    """What the run's summary.json now holds."""


def _load_run(
    run_dir: Path, profile: str | None = None
) -> tuple[list[ResolvedBenchmark], list[ModelConfig], dict[str, Any]]:
    path = run_dir / RUN_FILE
    if not path.is_file():
        for bench in load_benchmarks().values():  # a benchmark's preset folder of an earlier audioeval
            hint = bench.old_output_hint(run_dir) if bench.old_output_hint else None
            if hint:
                raise RunConfigError(hint)
        raise RunConfigError(
            f"{path} not found: {run_dir} is not an audioeval output folder (audioeval run, codec, "
            "or a benchmark's own command)"
        )
    run = read_json_object(path)
    benches = [
        resolve(with_profile(parse_spec(b["spec"], b["where"]), profile), b["where"])
        for b in run["benchmarks"]
    ]
    models = [ModelConfig.model_validate(m["config"]) for m in run["models"]]
    return benches, models, run


def _rescore_pair(
    bench: ResolvedBenchmark, folder: Path, expected: set[str] | None = None
) -> tuple[list[SampleRecord], int, int, list[str], str]:
    """The pair's records scored again, how many were rescored, how many changed, every
    stored line that could not be used (`file:line: why`): a line cut short or damaged, a
    record that is not valid (a NaN score), or one whose id is not a sample of the pair
    (`expected`, from ids.json), and the records file's new text (written by the caller, once
    every pair is scored). Unusable lines are kept as they are, left out, and their samples
    count as missing work."""
    path = folder / RECORDS_FILE
    out_lines, records, ignored, rescored, changed = [], [], [], 0, 0
    raw_bytes = path.read_bytes()
    for lineno, text in enumerate(raw_bytes.decode("utf-8", errors="replace").splitlines(), start=1):
        if not text.strip():
            continue
        raw, why = _line_record(text)
        if raw is not None and why is None and expected is not None and raw["id"] not in expected:
            why = f"id {raw['id']!r} is not a sample of this pair (ids.json)"
        if raw is None or why is not None:
            ignored.append(f"{path}:{lineno}: {why}")
            out_lines.append(text)  # kept as it is
            continue
        rec = _rescored(bench, SampleRecord.from_json(raw))
        records.append(rec)
        line = rec.to_json()
        rescored += int(rec.output is not None and rec.output.error is None)
        changed += int(_outcome(raw) != _outcome(line))
        out_lines.append(json.dumps(line, ensure_ascii=False, allow_nan=False))
    return records, rescored, changed, ignored, "".join(line + "\n" for line in out_lines)


def _line_record(text: str) -> tuple[dict[str, Any] | None, str | None]:
    """A stored line as a record, or why it cannot be used."""
    if "\x00" in text or "\ufffd" in text:
        return None, "damaged line (NUL or undecodable bytes)"
    try:
        raw = loads(text, nesting=None)
    except ValueError:
        return None, "not a JSON object (cut short or damaged)"
    if not isinstance(raw, dict):
        return None, "not a JSON object"
    why = record_problem(raw)
    if why is None and "sample" not in raw:
        why = f"id {raw.get('id')!r}: no stored sample to score from"
    if why is None:
        try:
            SampleRecord.from_json(raw)
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            why = f"id {raw.get('id')!r}: not a record ({type(exc).__name__}: {exc})"
    return raw, why


RESCORED_FIELDS = ("processed", "scores", "error", "error_detail", "output_failed", "failure_scores")


def _outcome(line: dict[str, Any]) -> list[Any]:
    return [line.get(k) for k in RESCORED_FIELDS]


def _rescored(bench: ResolvedBenchmark, rec: SampleRecord) -> SampleRecord:
    """The record scored again from its stored output, judge answers and earlier scores (an
    ASR scorer's transcript, reused while its transcriber and audio are unchanged); a record
    that holds no model output (the prompt or an input clip could not be read) stays as it is."""
    output = rec.output
    if output is None:
        return rec
    new = rec.unscored()
    if not output.ok:
        return record_unusable_output(bench, new, output, rec.error)
    if rec.output_failed and any(is_judged(s) for s in bench.scorers):
        # the output could not be used (unreadable audio): the judge was never asked
        new.processed = rec.processed
        new.error, new.failure, new.error_detail = rec.error, rec.failure, rec.error_detail
        return mark_failed_output(bench, new)
    return score_output(bench, new, output, earlier=rec.scores)


def rescore_run(
    run_dir: Path,
    *,
    resamples: int | None = None,
    seed: int | None = None,
    exclude_missing: bool | None = None,
    locked: bool = False,
    profile: str | None = None,
) -> RescoreResult:
    """`locked`: the caller already holds the folder's lock; `profile`: the scoring profile
    to score under from now on (None: each benchmark's as run)."""
    if locked:
        return _rescore(run_dir, resamples, seed, exclude_missing, profile)
    with hold_run_lock(run_dir, create=False):
        return _rescore(run_dir, resamples, seed, exclude_missing, profile)


def _rescore(
    run_dir: Path,
    resamples: int | None,
    seed: int | None,
    exclude_missing: bool | None,
    profile: str | None,
) -> RescoreResult:
    benches, models, run = _load_run(run_dir, profile)
    metric_before = throughput_report()
    pairs: list[PairRun] = []
    total = changed = 0
    ignored: list[str] = []
    unlisted = 0
    rewritten: list[tuple[Path, ResolvedBenchmark, str]] = []
    for bench in benches:
        for model in models:
            folder = pair_dir(run_dir, bench.name, model.slug)
            if not (folder / RECORDS_FILE).is_file():
                continue
            expected = read_sample_ids(folder / IDS_FILE) if (folder / IDS_FILE).is_file() else None
            records, n, c, bad, text = _rescore_pair(
                bench, folder, None if expected is None else set(expected)
            )
            ignored += bad
            rewritten.append((folder, bench, text))
            ids = list(latest_records(records)) if expected is None else expected
            if expected is None:  # no ids.json: each unusable line is a sample missing all the same
                unlisted += len(bad)
            total, changed = total + n, changed + c
            pairs.append(PairRun(bench, model, folder, [], len(ids), ids, records=records))
    # Written only once every pair is scored: a rescore stopped before this point (killed,
    # a failure) leaves the folder as it was, so a later `run` of the original command resumes
    # it; each pair's records and signature are replaced whole, run.json last.
    for folder, bench, text in rewritten:
        write_text_atomic(folder / RECORDS_FILE, text)
        if profile is not None:
            _record_scorers(folder, bench)
        else:
            _record_plugins(folder, bench)
    if profile is not None:
        _record_profile(run_dir, run, benches)
    settings = _export_settings(run_dir, run, resamples, seed, exclude_missing)
    results = summarise_pairs(
        run_dir, pairs, settings.resamples, settings.seed, exclude_missing=settings.exclude_missing
    )
    exports = export_pairs(run_dir, pairs, settings)
    metric_models = throughput_since(metric_before)
    summary = write_run_summary(
        run_dir, results, metric_models=metric_models
    )  # the one writer of summary.json
    return RescoreResult(results, total, changed, metric_models, exports, ignored, unlisted, summary)


def _record_scorers(folder: Path, bench: ResolvedBenchmark) -> None:
    """The pair's signature.json with the scorers it is now scored by, and the plugins they
    come from (the rest as run)."""
    path = folder / SIGNATURE_FILE
    if not path.is_file():
        return
    signature = read_json_object(path)
    block = signature.setdefault("benchmark", {})
    block["scorers"] = [checked_signature(s) for s in bench.scorers]
    block.pop("plugins", None)
    block.update(bench.plugins_signature())
    write_json_atomic(path, signature)


def _record_plugins(folder: Path, bench: ResolvedBenchmark) -> None:
    """The pair's signature.json naming the plugins (distribution, version) whose scorers
    scored it again, when they differ from those it names (an upgraded plugin)."""
    path = folder / SIGNATURE_FILE
    if not path.is_file():
        return
    signature = read_json_object(path)
    block = signature.setdefault("benchmark", {})
    now = bench.plugins_signature().get("plugins")
    if block.get("plugins") != now:
        block.pop("plugins", None)
        block.update(bench.plugins_signature())
        write_json_atomic(path, signature)


def _record_profile(run_dir: Path, run: dict[str, Any], benches: list[ResolvedBenchmark]) -> None:
    """run.json with each benchmark's spec as it is now scored (its `profile`)."""
    by_name = {b.name: b for b in benches}
    for entry in run["benchmarks"]:
        bench = by_name.get(entry.get("name"))
        if bench is not None:
            entry["spec"] = bench.spec.model_dump(mode="json")
    write_json_atomic(run_dir / RUN_FILE, run)


def _export_settings(
    run_dir: Path, run: dict[str, Any], resamples: int | None, seed: int | None, exclude_missing: bool | None
) -> ExportSettings:
    """The run's own settings (run.json), less those given anew."""
    exports = run.get("exports_dir")
    return ExportSettings(
        resamples if resamples is not None else int(run.get("resamples", 1000)),
        seed if seed is not None else int(run.get("seed", 0)),
        bool(run.get("exclude_missing", False)) if exclude_missing is None else exclude_missing,
        (run.get("judge") or {}).get("model"),
        run_dir / exports if isinstance(exports, str) else None,
        judged=False,
        run_info={"rescored": True, "reparsed": True},
    )
