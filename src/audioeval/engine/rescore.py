"""`audioeval rescore RUN`: post-process, score and aggregate again from stored outputs.

No model is called and no data source is read: every record holds the model's raw output
and the sample fields scoring needs. Judge answers are re-read, not asked again, and so is an
ASR scorer's transcript of the output audio while the transcriber's signature and the audio's
content hash are those stored beside it (else it is transcribed again). Records are rewritten
atomically with the new scores (outputs untouched); the summaries, the leaderboard and the
benchmarks' own exports (`exports.py`, e.g. MMAE's taxonomy.json) are rebuilt. A record
without a usable output gets its `failure_scores` again (what it counts for in the headline);
every file is read through the run folder's checked reader (`store/run_folder.py`): a line it
cannot vouch for (cut short, damaged, a NaN score, an id that is not one of the pair's
samples, another run's or pair's stamp, two results of one sample) is kept as it is, left out,
reported (`RescoreResult.ignored`) and its sample counts as missing work, as in `audioeval
run`; a pair whose files cannot be used (records that are a folder or empty, a signature or
ids deleted or damaged) refuses the rescore with the list.

`profile` (`rescore --profile ultraeval`) scores every benchmark under that scoring profile
into a new run folder (`rescore_target.py`: `RUN-PROFILE`, or `output`), the run left as it
was: the copy's run.json specs and each pair's signature.json (its `benchmark.scorers`) are
rewritten with it, so a later `audioeval run` into the copy resumes only with the same
`--profile`. The same rescore again writes nothing.
"""

from __future__ import annotations

import contextlib
import copy
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from audioeval.benchmarks.plugins import load_benchmarks
from audioeval.benchmarks.resolved import ResolvedBenchmark, exporter_for, resolve, with_profile
from audioeval.benchmarks.spec import parse_spec
from audioeval.core.errors import RunConfigError
from audioeval.core.json_value import JsonValue
from audioeval.core.record import SampleRecord, latest_records
from audioeval.engine.evaluate import PairRun, summarise_pairs
from audioeval.engine.exports import ExportSettings, export_pairs
from audioeval.engine.model_specs import ModelConfig
from audioeval.engine.pair_signature import PairSignature
from audioeval.engine.rescore_target import finish_copy, is_done, rescore_origin, start_copy, target_folder
from audioeval.engine.run_costs import stored_costs
from audioeval.engine.run_layout import RECORDS_FILE, RUN_FILE, pair_dir
from audioeval.engine.run_summary import RunSummary, read_run_summary, write_run_summary
from audioeval.engine.sample_pipeline import (
    gate_adapter_output,
    mark_failed_output,
    record_unusable_output,
    score_output,
)
from audioeval.metrics.summary_blocks import PairSummary
from audioeval.scoring.hook_guard import checked_signature
from audioeval.scoring.judged import is_judged
from audioeval.scoring.speech_models.runtime import throughput_report, throughput_since
from audioeval.store.atomic import write_json_atomic, write_text_atomic
from audioeval.store.bounded_json import loads
from audioeval.store.run_folder import (
    RUN_ID_KEY,
    STAMP_KEY,
    RunFile,
    iter_lines,
    new_run_id,
    pair_stamp,
    read_pair,
    read_run_file,
    run_id_of,
)
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
    run_dir: Path | None = None
    """The folder scored (a new one under `--profile` or `--output`)."""
    unchanged: bool = False
    """The folder already held this rescore of the same run (nothing was written)."""


def _load_run(
    run_dir: Path, profile: str | None = None, *, unfinished: bool = False
) -> tuple[list[ResolvedBenchmark], list[ModelConfig], RunFile]:
    path = run_dir / RUN_FILE
    if not path.is_file():
        for bench in load_benchmarks().values():  # a benchmark's preset folder of an earlier audioeval
            hint = bench.old_output_hint(run_dir) if bench.old_output_hint else None
            if hint:
                raise RunConfigError(hint)
    run = read_run_file(run_dir, unfinished=unfinished)  # the checked reader: RunFolderError naming what it cannot use
    benches = [
        resolve(with_profile(parse_spec(b["spec"], b["where"]), profile), b["where"])
        for b in run["benchmarks"]
    ]
    models = [ModelConfig.model_validate(m["config"]) for m in run["models"]]
    return benches, models, run


def run_exporters(run_dir: Path) -> list[Any]:
    """The exporter of each benchmark of a run folder (None where it has none): what a
    benchmark's own rescore command recognises its folders by."""
    benches, _, _ = _load_run(run_dir)
    return [exporter_for(bench) for bench in benches]


@dataclass
class RescoredPair:
    """One pair scored again, before anything is written."""

    records: list[SampleRecord]
    rescored: int
    changed: int
    ignored: list[str]
    """Every stored line the run folder's reader cannot vouch for (`file:line: why`)."""
    ids: list[str] | None
    text: str
    """The records file's new text (written once every pair is scored)."""
    signature: PairSignature | None
    """The pair's signature.json as it is now scored by; None: unchanged."""


def _rescore_pair(
    bench: ResolvedBenchmark, folder: Path, run_id: str | None, new_id: str | None, profile: str | None
) -> RescoredPair:
    """The pair scored again: its records, how many were rescored and changed, every line the
    run folder's reader cannot vouch for (cut short, damaged, another run's or pair's, an id
    that is not one of the pair's samples, two results of one sample), its sample ids, the
    records file's new text (each line stamped with `new_id` and its signature as now scored)
    and that signature. Lines it cannot vouch for are kept as they are, left out, and their
    samples count as missing work. A pair whose files cannot be used (records that are a
    folder or empty, a signature or ids deleted or damaged) refuses."""
    files = read_pair(folder, run_id).usable()
    path = folder / RECORDS_FILE
    vouched = dict(zip(files.record_lines, files.records, strict=True))
    ignored = files.ignored
    signature = _scored_signature(files.signature, bench, profile)
    stamp = pair_stamp(new_id, signature if signature is not None else files.signature or {})
    out_lines, records, rescored, changed = [], [], 0, 0
    for lineno, raw_line, _ in iter_lines(path):  # numbered as the reader numbers them
        text = raw_line.decode("utf-8", errors="replace")
        if not text.strip():
            continue
        record = vouched.get(lineno)
        raw = loads(text, nesting=None) if record is not None else None
        if raw is not None and "sample" not in raw:
            ignored.append(f"{path}:{lineno}: id {raw.get('id')!r}: no stored sample to score from")
            record = None
        if record is None or raw is None:
            out_lines.append(text)  # kept as it is
            continue
        rec = _rescored(bench, record)
        records.append(rec)
        line = rec.to_json()
        if stamp is not None:
            line[STAMP_KEY] = stamp
        rescored += int(rec.output is not None and rec.output.error is None)
        changed += int(_outcome(raw) != _outcome(line))
        out_lines.append(LINE_ENCODER.encode(line))
    text = "".join(line + "\n" for line in out_lines)
    return RescoredPair(records, rescored, changed, ignored, files.ids, text, signature)


LINE_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)
"""A rescored line as `audioeval run` appends it (`store/jsonl.LINE_ENCODER`, NaN refused): a
rescore that changes nothing leaves records.jsonl byte for byte as it was."""

RESCORED_FIELDS = ("processed", "scores", "error", "error_detail", "output_failed", "failure_scores")


def _outcome(line: Mapping[str, JsonValue]) -> list[JsonValue]:
    return [line.get(k) for k in RESCORED_FIELDS]


def _rescored(bench: ResolvedBenchmark, rec: SampleRecord) -> SampleRecord:
    """The record scored again from its stored output, judge answers and earlier scores (an
    ASR scorer's transcript, reused while its transcriber and audio are unchanged); a record
    that holds no model output (the prompt or an input clip could not be read) stays as it is."""
    output = rec.output
    if output is None:
        return rec
    new = rec.unscored()
    # The gate again: what is not an answer (over the bound, a web page, not text) is refused
    # even in a folder of an earlier version; a blank answer that was scored was accepted when
    # it was asked (an adapter that declares blank its answer: the `constant` baseline).
    output = gate_adapter_output(None, bench, rec.sample, output, blank_is_an_answer=True)
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
    output: Path | None = None,
) -> RescoreResult:
    """`locked`: the caller already holds the folder's lock; `profile`: the scoring profile to
    score under; `output`: the folder to write. With a profile or an output the run is scored
    into a new run folder (`output`, default the sibling `RUN-PROFILE`), the original left as
    it was (`rescore_target.py`); rescoring into it again from the same run with the same
    settings changes nothing (`RescoreResult.unchanged`)."""
    target = target_folder(run_dir, profile, output)
    if target is None:
        if locked:
            return _rescore(run_dir, resamples, seed, exclude_missing, None)
        with hold_run_lock(run_dir, create=False):
            return _rescore(run_dir, resamples, seed, exclude_missing, None)
    asked = {"profile": profile, "resamples": resamples, "seed": seed, "exclude_missing": exclude_missing}
    with contextlib.ExitStack() as stack:
        if not locked:
            stack.enter_context(hold_run_lock(run_dir, create=False))
        read_run_file(run_dir)  # the source is a run folder the reader can use
        origin = rescore_origin(run_dir, asked)
        if is_done(target, origin):
            return _unchanged(target)
        start_copy(run_dir, target, origin)
        with hold_run_lock(target):
            result = _rescore(target, resamples, seed, exclude_missing, profile, fresh=True)
            finish_copy(target)
    result.run_dir = target
    return result


def _unchanged(target: Path) -> RescoreResult:
    """What an earlier rescore into `target` wrote: the same command gives the same folder."""
    summary = read_run_summary(target)
    results = list(summary.results) if summary is not None else []
    return RescoreResult(results, 0, 0, summary=summary, run_dir=target, unchanged=True)


def _rescore(
    run_dir: Path,
    resamples: int | None,
    seed: int | None,
    exclude_missing: bool | None,
    profile: str | None,
    *,
    fresh: bool = False,
) -> RescoreResult:
    """`fresh`: a copy of a run being scored under `profile`: it gets a run id of its own,
    and every line the reader vouched for in the original is stamped for it."""
    benches, models, run = _load_run(run_dir, profile, unfinished=fresh)
    old_id = run_id_of(run)
    if fresh:
        run[RUN_ID_KEY] = new_run_id()
    new_id = run_id_of(run)
    metric_before = throughput_report()
    pairs: list[PairRun] = []
    total = changed = 0
    ignored: list[str] = []
    unlisted = 0
    rewritten: list[tuple[Path, RescoredPair]] = []
    for bench in benches:
        for model in models:
            folder = pair_dir(run_dir, bench.name, model.slug)
            if not (folder / RECORDS_FILE).exists():
                continue
            done = _rescore_pair(bench, folder, old_id, new_id, profile)
            rewritten.append((folder, done))
            ignored += done.ignored
            ids = list(latest_records(done.records)) if done.ids is None else done.ids
            if done.ids is None:  # no ids.json: each unusable line is a sample missing all the same
                unlisted += len(done.ignored)
            total, changed = total + done.rescored, changed + done.changed
            pairs.append(PairRun(bench, model, folder, [], len(ids), ids, records=done.records))
    # Written only once every pair is scored: a rescore stopped before this point (killed, a
    # failure) leaves the folder as it was, so a later `run` of the original command resumes
    # it; each pair's records and signature are replaced whole, run.json last.
    for folder, done in rewritten:
        write_text_atomic(folder / RECORDS_FILE, done.text)
        if done.signature is not None:
            write_json_atomic(folder / SIGNATURE_FILE, done.signature)
    if profile is not None or fresh:
        _record_profile(run_dir, run, benches)
    settings = _export_settings(run_dir, run, resamples, seed, exclude_missing)
    results = summarise_pairs(
        run_dir,
        pairs,
        settings.resamples,
        settings.seed,
        exclude_missing=settings.exclude_missing,
        costs=stored_costs(run, models),  # at the prices the run was given
    )
    exports = export_pairs(run_dir, pairs, settings)
    metric_models = throughput_since(metric_before)
    summary = write_run_summary(run_dir, results, metric_models=metric_models)  # the one writer of summary.json
    return RescoreResult(
        results, total, changed, metric_models, exports, ignored, unlisted, summary, run_dir=run_dir
    )


def _scored_signature(
    stored: PairSignature | None, bench: ResolvedBenchmark, profile: str | None
) -> PairSignature | None:
    """The pair's signature as it is now scored: under a profile, with the scorers it is
    scored by and the plugins they come from; else naming the plugins (distribution, version)
    whose scorers scored it again when they differ from those it names (an upgraded plugin).
    None: as stored (or none stored)."""
    if stored is None or not isinstance(stored.get("benchmark"), dict):
        return None
    signature = copy.deepcopy(stored)  # the stored one is compared with it
    block = signature["benchmark"]
    if profile is not None:
        block["scorers"] = [checked_signature(s) for s in bench.scorers]
    elif block.get("plugins") == bench.plugins_signature().get("plugins"):
        return None
    block.pop("plugins", None)
    block.update(bench.plugins_signature())
    return signature if signature != stored else None


def _record_profile(run_dir: Path, run: RunFile, benches: list[ResolvedBenchmark]) -> None:
    """run.json with each benchmark's spec as it is now scored (its `profile`)."""
    by_name = {b.name: b for b in benches}
    for entry in run["benchmarks"]:
        bench = by_name.get(entry.get("name"))
        if bench is not None:
            entry["spec"] = bench.spec.model_dump(mode="json")
    write_json_atomic(run_dir / RUN_FILE, run)


def _export_settings(
    run_dir: Path, run: RunFile, resamples: int | None, seed: int | None, exclude_missing: bool | None
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
