"""What `audioeval view` shows, read from the run folders it was given and from nothing else:
the list of runs, one run as it stands now (followed while a run appends records), and the
comparison of two or more pairs of one benchmark, sample by sample.

Every record is read through the run folder's checked reader (`store/run_folder.py`; a pair
being written is followed with `RecordsFollower`, which reads only the appended lines). Every
figure is computed by the code that computes it for `audioeval run` and `report`: a pair's
counts, metrics with CIs and judge reliability by `metrics/pair_summary.summarise_records`
with the benchmark's own plan (as `summary.json` would hold them if the run stopped now), a
sample's details by `report/sample_rows.details`, the difference of two pairs by
`analysis/paired_difference.py`, the word diff by `report/word_diff.py`.

Clips are served by token (`/clip/<token>`): only the audio files a served record names, never
a path taken from an address.
"""

from __future__ import annotations

import gc
import hashlib
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypedDict

from audioeval.analysis.paired_difference import PairedDifference, paired_difference
from audioeval.benchmarks.resolved import resolve
from audioeval.benchmarks.spec import parse_spec
from audioeval.core.errors import InputError, RunConfigError
from audioeval.core.record import SampleRecord, latest_records
from audioeval.core.redact import redact
from audioeval.metrics.pair_summary import PairMetrics, summarise_records
from audioeval.metrics.summary_blocks import PairSummary
from audioeval.report.clips import ClipCopier
from audioeval.report.portable import machine_prefixes, scrub
from audioeval.report.reliability_table import HEADERS, reliability_rows, reliability_title
from audioeval.report.sample_chunks import _score_key, _wrong_flags
from audioeval.report.sample_rows import (
    IndexEntry,
    SampleDetails,
    details,
    index_entry,
    primary_score,
    rubric_rows,
)
from audioeval.report.units import SampleUnit, sample_units, show_sample, show_span, show_value, unit_of
from audioeval.report.usage_table import usage_cell
from audioeval.report.word_diff import word_diff
from audioeval.store.run_folder import (
    IDS_FILE,
    RECORDS_FILE,
    RUN_FILE,
    SUMMARY_FILE,
    RecordsFollower,
    RunFolderError,
    Unvouched,
    read_run_file,
    run_id_of,
)
from audioeval.store.run_lock import writer_alive
from audioeval.store.run_summaries import check_summary_records, read_summary
from audioeval.store.signature import SIGNATURE_FILE

AUDIO_SUFFIXES = frozenset({".wav", ".flac", ".mp3", ".ogg", ".oga", ".opus", ".m4a", ".aac", ".webm"})
"""The only files `/clip/` serves (a record naming any other file gets no player)."""
LIVE_RESAMPLES = 200
"""Bootstrap resamples of the live CIs (the run's own figure is in its summary.json)."""
SHOWN_FAILURES = 200
SHOWN_DISAGREEMENTS = 200


RunPlans = dict[str, tuple[PairMetrics, bool, str | None]]
"""Benchmark name -> (summary plan, exclude_missing, headline), as the run resolved it."""


class LiveSummary(PairSummary, total=False):
    """A served pair's figures: its summary, or computed from its records while the run goes
    on; `reason`: why there are none."""

    reason: str


class PairLine(TypedDict):
    """A pair in the viewer's lists: its progress, counts and headline as shown."""

    key: str
    benchmark: str
    model: str
    done: int
    total: int | None
    scored: int | None
    failed: int | None
    headline: str | None
    value: str
    ci: str
    failure_kinds: dict[str, int]
    usage: str  # its requests (model and judge) and their cost when priced
    problems: int
    reason: str | None


class RunLine(TypedDict):
    """A served run in the viewer's first page."""

    index: int
    name: str
    finished: bool
    stopped: bool
    pairs: list[PairLine]


class ReliabilityShown(TypedDict):
    """A judged scorer's reliability table on a run's page."""

    caption: str
    rows: list[list[str]]


class RunState(TypedDict):
    """A run's page: each pair's figures, the failures, the judge's disagreements, the
    reliability tables and the lines the reader left out."""

    name: str
    finished: bool
    stopped: bool
    pairs: list[PairLine]
    failures: list[list[str]]
    disagreements: list[list[str]]
    reliability: list[ReliabilityShown]
    reliability_headers: list[str]
    problems: list[list[str]]


class ComparedEntry(IndexEntry, total=False):
    """A sample of one compared pair: its index entry and its answer, short (`a`)."""

    a: str


class ComparedCell(TypedDict):
    """What the compare table shows of a sample in one pair."""

    st: str
    sc: float | None
    t: str | None
    a: str


class ComparedSystem(TypedDict):
    """A compared pair: its key, label, headline and value, unit and direction, and how many
    of its samples are done."""

    key: str
    label: str
    headline: str | None
    value: str
    unit: str | None
    higher: bool
    done: int


class ComparedRow(TypedDict):
    """A sample across the compared pairs, and A − B (`d`, shown: `dt`)."""

    id: str
    cells: list[ComparedCell | None]
    d: float | None
    dt: str | None


class ShownDifference(PairedDifference, total=False):
    """The paired difference of A and another pair as the compare page shows it."""

    headline: str
    text: str | None


class Comparison(TypedDict):
    """The compare page: the pairs, every sample's row, and A's difference with each other;
    `live`: a pair's run is still being written (the page follows it)."""

    benchmark: str
    live: bool
    systems: list[ComparedSystem]
    rows: list[ComparedRow]
    delta_unit: str | None
    differences: list[ShownDifference]


class ComparedSample(TypedDict):
    """One sample in every compared pair, and the word diff of A's answer against each other's."""

    id: str
    systems: list[SampleDetails | None]
    diffs: list[list[list[str]] | None]
ERROR_CHARS = 300


class ServedClips(ClipCopier):
    """The clips of the served records, by token: `link(path)` registers a readable audio file
    a record names and returns `/clip/<token>`; nothing is copied or written."""

    def __init__(self, base: Path, run_parent: Path, registry: dict[str, Path]) -> None:
        super().__init__(base, base, run_parent)
        self.registry = registry

    def link(self, path: str | None) -> str | None:
        if not path:
            return None
        try:
            src = self._source(path).resolve()
        except OSError:
            return None
        if src.suffix.lower() not in AUDIO_SUFFIXES or not src.is_file():
            return None
        token = hashlib.sha256(str(src).encode("utf-8")).hexdigest()[:24] + src.suffix.lower()
        self.registry[token] = src
        return f"/clip/{token}"


@dataclass
class PairView:
    """One benchmark × model folder of a served run, followed as it is written."""

    run: int
    benchmark: str
    model: str
    folder: Path
    follower: RecordsFollower
    cached: tuple[int, int] = (-1, -1)
    summary: LiveSummary = field(default_factory=lambda: LiveSummary())
    records: dict[str, SampleRecord] = field(default_factory=dict)
    ids: list[str] | None = None
    problems: list[str] = field(default_factory=list)
    computed_at: float = 0.0
    compute_s: float = 0.0

    @property
    def key(self) -> str:
        return f"{self.run}/{self.benchmark}/{self.model}"


class ServedRuns:
    """The run folders `audioeval view` serves (read-only) and what it has read of them."""

    def __init__(self, run_dirs: list[Path], base: Path | None = None) -> None:
        self.run_dirs = [d.resolve() for d in run_dirs]
        for d in self.run_dirs:
            read_run_file(d)  # a folder that is no run directory is refused at the start
        self.base = base or Path.cwd()
        self.clips: dict[str, Path] = {}
        self._pairs: dict[str, PairView] = {}
        self._plans: dict[int, RunPlans | str] = {}
        self._lock = threading.RLock()
        self._prefixes: set[str] = set()
        self._folders: set[str] = set()
        self._sorted: list[str] = []
        self._hide_folders([])

    # -- reading ---------------------------------------------------------------------------
    def pairs(self, run: int) -> list[PairView]:
        """The run's pair folders (those with a signature, ids or records), refreshed."""
        run_dir = self.run_dirs[run]
        run_id = run_id_of(read_run_file(run_dir))
        out = []
        for folder in sorted(p for p in run_dir.glob("*/*") if p.is_dir()):
            if folder.parent.name == "report" or (folder / RUN_FILE).exists():
                continue
            if not any((folder / n).exists() for n in (SIGNATURE_FILE, IDS_FILE, RECORDS_FILE)):
                continue
            key = f"{run}/{folder.parent.name}/{folder.name}"
            with self._lock:
                pair = self._pairs.get(key)
                if pair is None:
                    follower = RecordsFollower(folder, run_id)
                    pair = PairView(run, folder.parent.name, folder.name, folder, follower)
                    self._pairs[key] = pair
                self._refresh(pair)
            out.append(pair)
        return out

    def _refresh(self, pair: PairView) -> None:
        files = pair.follower.poll()
        pair.ids = files.ids
        pair.problems = [_problem(p, pair.folder) for p in [*files.refused, *files.lines]]
        state = (len(files.records), len(files.lines) + len(files.refused))
        if state == pair.cached:
            return
        pair.records = latest_records(files.records)
        self._hide_folders(pair.records.values())
        now = time.monotonic()
        if pair.summary and now - pair.computed_at < 2 * pair.compute_s:
            return  # a large pair being written: its figures again at the next poll after this
        pair.cached = state
        pair.summary = self._summary(pair)
        pair.computed_at, pair.compute_s = now, time.monotonic() - now

    def _hide_folders(self, records: Any) -> None:
        named = [str(self.base)]
        for rec in records:
            named += [ref.path for ref in rec.sample.audio.values()]
            named.append(rec.sample.source)
            if rec.output is not None:
                named.append(rec.output.audio_path)
        fresh = []  # one path per folder not seen yet (a run names thousands of clips in a few)
        for path in named:
            folder = os.path.dirname(path) if path else None
            if folder and folder not in self._folders:
                self._folders.add(folder)
                fresh.append(path)
        if not fresh and self._sorted:
            return
        with self._lock:
            for run_dir in self.run_dirs:
                self._prefixes.update(machine_prefixes(run_dir, fresh))
            self._sorted = sorted(self._prefixes, key=len, reverse=True)

    def hidden(self, text: str) -> str:
        """`text` with every folder of the machine a served run or record names written as
        `…/` (`report/portable.py`, as the static report writes its pages)."""
        return scrub(text, self._sorted)

    def warm(self) -> None:
        """Read every run now (what the first page would read), so that pages open at once.
        What it read stays for the server's life: it is moved out of the collector's sight
        (`gc.freeze`), whose full passes over millions of record objects took longer than
        reading them."""
        for i in range(len(self.run_dirs)):
            try:
                self.pairs(i)
            except (InputError, RunConfigError):
                continue  # the run's page says why when it is opened
        gc.freeze()

    def _summary(self, pair: PairView) -> LiveSummary:
        """The pair's figures now: its summary.json once the run wrote it for these records,
        else computed from the records as the run computes it."""
        run_dir = self.run_dirs[pair.run]
        stored = _stored_summary(run_dir, pair.folder)
        if stored is not None:
            return stored
        if pair.run not in self._plans:
            self._plans[pair.run] = _benchmarks(run_dir)
        plans = self._plans[pair.run]
        if isinstance(plans, str) or pair.benchmark not in plans:
            return {
                "reason": plans
                if isinstance(plans, str)
                else f"benchmark {pair.benchmark!r} is not in run.json"
            }
        plan, exclude, headline = plans[pair.benchmark]
        if not pair.records:
            return {"n": len(pair.ids or []), "scored": 0, "failed": 0, "metrics": {}, "headline": headline}
        run = read_run_file(run_dir)
        try:
            summary = summarise_records(
                plan,
                pair.records.values(),
                expected_ids=pair.ids,
                resamples=LIVE_RESAMPLES,
                seed=int(run.get("seed") or 0),
                exclude_failed_outputs=exclude,
            )
        except (InputError, ValueError) as exc:  # records of another audioeval's scorers: said on the page
            why = exc.describe() if isinstance(exc, InputError) else str(exc)
            return {"n": len(pair.ids or []), "metrics": {}, "headline": headline, "reason": why}
        summary["headline"] = headline
        return summary

    # -- pages' data -----------------------------------------------------------------------
    def listing(self) -> list[RunLine]:
        out: list[RunLine] = []
        for i, run_dir in enumerate(self.run_dirs):
            pairs = self.pairs(i)
            out.append(
                {
                    "index": i,
                    "name": run_dir.name,
                    **_progress(run_dir),
                    "pairs": [self._pair_line(p) for p in pairs],
                }
            )
        return out

    def _pair_line(self, p: PairView) -> PairLine:
        s = p.summary
        headline = s.get("headline")
        block = (s.get("metrics") or {}).get(headline or "") or {}
        return {
            "key": p.key,
            "benchmark": p.benchmark,
            "model": p.model,
            "done": len(p.records),
            "total": len(p.ids) if p.ids is not None else None,
            "scored": s.get("scored"),
            "failed": s.get("failed"),
            "headline": headline,
            "value": show_value(block.get("value"), block.get("unit")) if block else "–",
            "ci": show_span(block.get("ci"), block.get("unit")) if block else "–",
            "failure_kinds": s.get("failure_kinds") or {},
            "usage": usage_cell(s),  # the pair's requests (model and judge) and cost when priced
            "problems": len(p.problems),
            "reason": s.get("reason"),
        }

    def run_state(self, run: int) -> RunState:
        """One run as it stands: each pair's figures, the failures, the judge's disagreements."""
        pairs = self.pairs(run)
        failures: list[list[str]] = []
        disagreements: list[list[str]] = []
        reliability: list[ReliabilityShown] = []
        problems: list[list[str]] = []
        for p in pairs:
            problems += [[p.key, text] for text in p.problems[:SHOWN_FAILURES]]
            for rec in p.records.values():
                if rec.error and len(failures) < SHOWN_FAILURES:
                    failures.append([p.key, rec.id, str(rec.failure or ""), redact(rec.error)[:ERROR_CHARS]])
                for rubric in rubric_rows(rec.judge or {}, dict(rec.sample.fields)):
                    verdicts = [v[2] for v in rubric["votes"]]
                    if len(set(verdicts)) > 1 and len(disagreements) < SHOWN_DISAGREEMENTS:
                        disagreements.append([p.key, rec.id, str(rubric["question"]), " ".join(verdicts)])
            for scorer, block in (p.summary.get("reliability") or {}).items():
                if isinstance(block, dict):
                    rows = [list(r) for r in reliability_rows(block)]
                    reliability.append(
                        {"caption": reliability_title(str(scorer), block, where=p.key), "rows": rows}
                    )
        return {
            "name": self.run_dirs[run].name,
            **_progress(self.run_dirs[run]),
            "pairs": [self._pair_line(p) for p in pairs],
            "failures": failures,
            "disagreements": disagreements,
            "reliability": reliability,
            "reliability_headers": list(HEADERS),
            "problems": problems,
        }

    def pair(self, key: str) -> PairView:
        """A served pair by its key `run/benchmark/model`; KeyError when there is none."""
        run_text, _, rest = key.partition("/")
        if not run_text.isdigit() or int(run_text) >= len(self.run_dirs):
            raise KeyError(key)
        for p in self.pairs(int(run_text)):
            if p.key == key:
                return p
        raise KeyError(key)

    def _clips(self, pair: PairView) -> ServedClips:
        return ServedClips(self.base, self.run_dirs[pair.run].parent, self.clips)

    def compare(self, keys: list[str]) -> Comparison:
        """Two or more pairs of one benchmark, sample by sample: each sample's headline value
        and status per pair, A − B, and the paired-bootstrap difference of A and each other."""
        pairs = [self.pair(k) for k in keys]
        if len(pairs) < 2:
            raise ValueError("give two or more pairs to compare")
        benches = {p.benchmark for p in pairs}
        if len(benches) > 1:
            raise ValueError(f"the pairs are of different benchmarks ({', '.join(sorted(benches))})")
        systems: list[ComparedSystem] = []
        columns: list[dict[str, ComparedEntry]] = []
        shown_as: list[SampleUnit | None] = []  # how each pair's per-sample value is shown
        for p in pairs:
            headline = p.summary.get("headline")
            block = (p.summary.get("metrics") or {}).get(headline or "") or {}
            units = sample_units(p.summary.get("metrics"))
            key = _score_key(headline, units)
            unit = unit_of(key, units)
            shown_as.append(unit)
            records = list(p.records.values())
            scores = [primary_score(r, key) for r in records]
            wrong = _wrong_flags(scores, bool(block.get("higher_is_better", True)))
            entries: dict[str, ComparedEntry] = {
                r.id: index_entry(r, s, w, unit) for r, s, w in zip(records, scores, wrong, strict=True)
            }
            for rec in records:
                entries[rec.id]["a"] = _short((rec.output.text if rec.output else None) or "")
            columns.append(entries)
            systems.append(
                {
                    "key": p.key,
                    "label": p.model if len(self.run_dirs) == 1 else f"{self.run_dirs[p.run].name}/{p.model}",
                    "headline": headline,
                    "value": show_value(block.get("value"), block.get("unit")) if block else "–",
                    "unit": None if unit is None else unit.unit,
                    "higher": bool(block.get("higher_is_better", True)),
                    "done": len(records),
                }
            )
        order = list(pairs[0].ids or []) or sorted(set().union(*columns))
        order += sorted(set().union(*columns) - set(order))
        rows: list[ComparedRow] = []
        for sid in order:
            cells = [c.get(sid) for c in columns]
            if all(c is None for c in cells):
                continue
            delta = _delta(cells)
            shown = (
                None if delta is None else ("+" if delta > 0 else "") + show_sample(delta, shown_as[0])
            )
            rows.append({"id": sid, "cells": [_cell(c) for c in cells], "d": delta, "dt": shown})
        unit_a = systems[0]["unit"]
        return {
            "benchmark": pairs[0].benchmark,
            "live": any(_being_written(self.run_dirs[p.run]) for p in pairs),
            "systems": systems,
            "rows": rows,
            "delta_unit": unit_a,
            "differences": [self._difference(pairs[0], other) for other in pairs[1:]],
        }

    def _difference(self, a: PairView, b: PairView) -> ShownDifference:
        headline = a.summary.get("headline")
        if not headline or headline != b.summary.get("headline"):
            return {"a": a.key, "b": b.key, "reason": "the pairs have no common headline"}
        found = paired_difference(
            a.benchmark,
            headline,
            (a.model, self.run_dirs[a.run], a.folder, a.records),
            (b.model, self.run_dirs[b.run], b.folder, b.records),
            seed=int(read_run_file(self.run_dirs[a.run]).get("seed") or 0),
        )
        unit = (a.summary.get("metrics") or {}).get(headline, {}).get("unit")
        points = " points" if unit == "fraction" else ""
        text = None
        if found.get("difference") is not None:
            text = f"{found['difference']:+.2f}{points}"
            if found.get("ci"):
                lo, hi = found["ci"]
                p = shown_p(found["p"], found["n_resamples"])
                text += f" (95 % CI {lo:+.2f} to {hi:+.2f}{points}; {p}; n = {found['n']})"
        return {"a": a.key, "b": b.key, "headline": headline, "text": text, **found}

    def sample(self, keys: list[str], sid: str) -> ComparedSample:
        """One sample in every pair compared: `details` of each, and the word diff of A's
        output against each other's."""
        pairs = [self.pair(k) for k in keys]
        shown: list[SampleDetails | None] = []
        for p in pairs:
            rec = p.records.get(sid)
            units = sample_units(p.summary.get("metrics"))
            shown.append(None if rec is None else details(rec, self._clips(p), units))
        texts = [(d or {}).get("answer") or "" for d in shown]
        diffs = [
            word_diff(texts[0], t) if shown[0] and d else None
            for t, d in zip(texts[1:], shown[1:], strict=True)
        ]
        return {"id": sid, "systems": shown, "diffs": diffs}

    def clip(self, token: str) -> Path | None:
        return self.clips.get(token)


def shown_p(p: float, resamples: int) -> str:
    """A paired bootstrap's two-sided p as the compare page shows it: with no resample across
    0 it is below the smallest p the resamples can tell apart (2 / resamples), never "0"."""
    return f"p = {p:.3f}" if p > 0 else f"p < {2 / resamples:.3g}"


def _benchmarks(run_dir: Path) -> RunPlans | str:
    """name -> (summary plan, exclude_missing, headline) of each benchmark of a run's run.json,
    resolved as the run resolved it; or why it cannot be."""
    try:
        run = read_run_file(run_dir)
        exclude = bool(run.get("exclude_missing", False))
        out: RunPlans = {}
        for b in run["benchmarks"]:
            resolved = resolve(parse_spec(b["spec"], b["where"]), b["where"])
            out[b["name"]] = (resolved.summary_plan(), exclude, resolved.headline)
        return out
    except InputError as exc:
        return f"{run_dir / RUN_FILE}: {exc.describe()}"
    except RunConfigError as exc:
        return str(exc)


def _stored_summary(run_dir: Path, folder: Path) -> PairSummary | None:
    """The pair's summary.json when the run wrote it from the records now in the folder (its
    digests checked as `report` checks them); None while the run is still writing them."""
    run_id = run_id_of(read_run_file(run_dir))
    try:
        summary = read_summary(folder / SUMMARY_FILE, run_id)
        if summary is None or run_id is None:
            return None
        check_summary_records(run_dir, [{**summary, "folder": str(folder.relative_to(run_dir))}], run_id)
    except RunFolderError:
        return None
    return summary


class RunProgress(TypedDict):
    finished: bool  # the run wrote its summary.json
    stopped: bool  # not finished, and no process of this machine is writing it


def _progress(run_dir: Path) -> RunProgress:
    finished = (run_dir / SUMMARY_FILE).is_file()
    return {"finished": finished, "stopped": not finished and not writer_alive(run_dir)}


def _being_written(run_dir: Path) -> bool:
    """What the pages follow: a run not finished whose writer is running (an interrupted run
    is not polled)."""
    progress = _progress(run_dir)
    return not progress["finished"] and not progress["stopped"]


def _problem(problem: Unvouched, folder: Path) -> str:
    """A line or file the reader left out, named inside its pair folder (never by a path of the
    machine)."""
    name = problem.file.name if problem.file.parent == folder else problem.file.as_posix()
    return f"{name}:{problem.line}: {problem.why}" if problem.line is not None else f"{name}: {problem.why}"


def _short(text: str, width: int = 160) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _cell(entry: ComparedEntry | None) -> ComparedCell | None:
    if entry is None:
        return None
    return {"st": entry["st"], "sc": entry["sc"], "t": entry["t"], "a": entry.get("a", "")}


def _delta(cells: list[ComparedEntry | None]) -> float | None:
    """A's headline value minus B's for the sample (as stored; None without both)."""
    if len(cells) < 2 or cells[0] is None or cells[1] is None:
        return None
    a, b = cells[0].get("sc"), cells[1].get("sc")
    return None if a is None or b is None else float(a) - float(b)


__all__ = ["RunFolderError", "ServedRuns"]
