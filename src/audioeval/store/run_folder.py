"""The one checked reader of a run folder's files: every command that reads a run folder
(resume, rescore, report, leaderboard, rank, replay, the benchmarks' exports) reads `run.json`,
a pair's `signature.json`, `sample_ids.json` and `records.jsonl`, and the summaries, here.

It ties what it returns to the run, the benchmark, the model and the settings:

- `run.json` carries a `run_id`, made when the folder is first written;
- each line of `records.jsonl` carries a `stamp`: the run's id and a digest of its pair's
  `signature.json` (which names the benchmark, the model and every setting that moves a
  number), so a line of another benchmark, another model, other settings or another run
  folder is told apart from the pair's own;
- each summary carries a digest of its own content and of the pair files it was computed
  from (`store/run_summaries.py`).

The outputs a replay answers with are read here too (`store/stored_outputs.py`). What it
cannot vouch for is an `Unvouched` entry (file, line, why): a line is left out (a
resumed run asks its sample again; a rescore counts it as missing work), a file that cannot
be used refuses the command (`RunFolderError`, exit 2, with the list). A folder written
before run ids (no `run_id` in run.json) is read as it was written: its lines carry no stamp
and its summaries no digests.
"""

from __future__ import annotations

import json
import uuid
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypedDict

from audioeval.core.errors import RunConfigError
from audioeval.core.json_value import JsonValue
from audioeval.core.record import SampleRecord
from audioeval.store.bounded_json import loads
from audioeval.store.file_digest import json_digest
from audioeval.store.json_file import read_json_object
from audioeval.store.json_items import gc_paused
from audioeval.store.records import record_problem
from audioeval.store.signature import SIGNATURE_FILE

RUN_FILE = "run.json"
SUMMARY_FILE = "summary.json"
RECORDS_FILE = "records.jsonl"
IDS_FILE = "sample_ids.json"
PARTIAL_FILE = ".rescore-unfinished.json"
"""In a folder a rescore is still writing (`engine/rescore_target.py`)."""

class RunBenchmark(TypedDict):
    """A benchmark of a run as its run.json names it: name, where its spec was found, the spec."""

    name: str
    where: str
    spec: dict[str, JsonValue]


class RunModel(TypedDict, total=False):
    """A model of a run as its run.json names it: its config and the adapter's signature."""

    config: dict[str, JsonValue]
    signature: dict[str, JsonValue]


class RunFile(TypedDict, total=False):
    """A run folder's `run.json` (written by `engine/evaluate.py`, read here, checked by
    `read_run_file`): the run's id, audioeval's version, its benchmarks and models, the
    generation settings, `--limit`, the data root, the bootstrap's settings, whether failed
    outputs stay out of the metrics, the judge, the exports folder (relative to the run)."""

    run_id: str
    audioeval: str
    benchmarks: list[RunBenchmark]
    models: list[RunModel]
    generation: dict[str, JsonValue]
    limit: int | None
    data_root: str | None
    resamples: int
    seed: int
    exclude_missing: bool
    judge: dict[str, JsonValue]
    exports_dir: str
    prices: dict[str, dict[str, float]]  # the price table the run was given (`--prices`)


RUN_ID_KEY = "run_id"
STAMP_KEY = "stamp"
SHOWN = 20
"""Problems listed in a refusal's message (the rest counted)."""


@dataclass(frozen=True)
class Unvouched:
    """A file (and line) of a run folder the reader cannot vouch for, and why."""

    file: Path
    line: int | None
    why: str
    sample_id: str | None = None

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.why}" if self.line is not None else f"{self.file}: {self.why}"


class RunFolderError(RunConfigError):
    """Files of a run folder that cannot be used: nothing was computed from them."""

    def __init__(self, problems: list[Unvouched], hint: str = "") -> None:
        self.problems = problems
        shown = "; ".join(str(p) for p in problems[:SHOWN])
        more = f"; and {len(problems) - SHOWN} more" if len(problems) > SHOWN else ""
        head = (
            "" if len(problems) == 1 else f"{len(problems)} files or lines of the run folder cannot be used: "
        )
        super().__init__(f"{head}{shown}{more}{'. ' + hint if hint else ''}")


def new_run_id() -> str:
    return uuid.uuid4().hex[:16]


def run_id_of(run: RunFile | None) -> str | None:
    """The run's id in its run.json; None for a folder written before run ids."""
    value = (run or {}).get(RUN_ID_KEY)
    return value if isinstance(value, str) and value else None


def pair_stamp(run_id: str | None, signature: Mapping[str, JsonValue]) -> str | None:
    """The stamp every record line of a pair carries: the run's id and its signature's digest
    (None in a folder written before run ids)."""
    return None if run_id is None else f"{run_id}:{json_digest(signature)[:16]}"


def read_run_file(run_dir: Path, *, unfinished: bool = False) -> RunFile:
    """A run folder's run.json, checked: an object whose `benchmarks` are objects with a
    `name`, a `where` and a `spec`, whose `models` are objects with a named `config`. A folder
    a rescore did not finish writing is refused (unless `unfinished`: the rescore itself)."""
    if not unfinished and (run_dir / PARTIAL_FILE).exists():
        raise RunFolderError(
            [Unvouched(run_dir / PARTIAL_FILE, None, "a rescore into this folder did not finish")],
            "Run the same rescore again, or delete the folder",
        )
    path = run_dir / RUN_FILE
    if not path.is_file():
        why = (
            "is not a file"
            if path.exists()
            else (
                "not found: not a run directory (the output folder of `audioeval run`, `codec` or a "
                "benchmark's own command)"
            )
        )
        raise RunFolderError([Unvouched(path, None, why)])
    try:
        run = read_json_object(path)
    except RunConfigError as exc:
        raise RunFolderError([Unvouched(path, None, str(exc).removeprefix(f"{path}: "))]) from None
    problem = _run_problem(run)
    if problem is not None:
        raise RunFolderError([Unvouched(path, None, problem)])
    return run


def _run_problem(run: Mapping[str, JsonValue]) -> str | None:
    benches, models = run.get("benchmarks"), run.get("models")
    if not isinstance(benches, list) or not isinstance(models, list):
        return "no `benchmarks` and `models` lists"
    for i, b in enumerate(benches):
        if not (isinstance(b, dict) and isinstance(b.get("name"), str) and isinstance(b.get("spec"), dict)
                and isinstance(b.get("where"), str)):  # fmt: skip
            return f"benchmarks[{i}] is not an object with a name, a where and a spec"
    for i, m in enumerate(models):
        config = m.get("config") if isinstance(m, dict) else None
        if not (isinstance(config, dict) and isinstance(config.get("name"), str)):
            return f"models[{i}] has no config with a name"
    run_id = run.get(RUN_ID_KEY)
    if run_id is not None and not (isinstance(run_id, str) and run_id):
        return f"{RUN_ID_KEY} {run_id!r} is not a run id"
    return None


@dataclass
class PairFiles:
    """What the reader vouches for in one pair folder (`<run>/<benchmark>/<model>/`)."""

    folder: Path
    signature: dict[str, JsonValue] | None = None
    ids: list[str] | None = None
    records: list[SampleRecord] = field(default_factory=list)
    """The records it vouches for, in file order."""
    record_lines: list[int] = field(default_factory=list)
    """The line of each record (from 1)."""
    lines: list[Unvouched] = field(default_factory=list)
    """Lines left out (their samples are asked again by a resumed run, missing elsewhere)."""
    refused: list[Unvouched] = field(default_factory=list)
    """Files that cannot be used: a command that needs the pair refuses with them."""
    empty: bool = False
    """records.jsonl holds no line although sample_ids.json lists samples."""

    @property
    def ignored(self) -> list[str]:
        return [str(p) for p in self.lines]

    def usable(self) -> PairFiles:
        """This pair, or RunFolderError listing why its files cannot be used; an empty records
        file counts (nothing to score or show)."""
        problems = list(self.refused)
        if self.empty:
            n = len(self.ids or [])
            problems.append(
                Unvouched(
                    self.folder / RECORDS_FILE, None, f"holds no record, while {IDS_FILE} lists {n} sample(s)"
                )
            )
        if problems:
            raise RunFolderError(problems, RERUN_HINT)
        return self


RERUN_HINT = (
    "Rerun the same `audioeval run` command to compute again what is missing, or delete the "
    "files named (a pair's folder) to start that pair over"
)


def read_pair(
    folder: Path,
    run_id: str | None,
    *,
    expected_ids: list[str] | None = None,
    signature: Mapping[str, JsonValue] | None = None,
    lines: bool = True,
) -> PairFiles:
    """A pair folder read through the checks (module doc). `expected_ids`: the pair's samples
    (default: its sample_ids.json); `signature`: the pair's signature when the caller holds it
    (a run that just checked it), else read from signature.json; `lines` False: the signature
    and ids only."""
    out = PairFiles(folder)
    records = folder / RECORDS_FILE
    if records.exists() and not records.is_file():
        out.refused.append(Unvouched(records, None, "is not a file"))
        return out
    has_lines = records.is_file() and records.stat().st_size > 0
    out.signature = dict(signature) if signature is not None else _read_signature(folder, has_lines, out)
    if expected_ids is None:
        out.ids = _read_ids(folder, out)
    else:
        out.ids = list(expected_ids)
    if out.refused or not has_lines or not lines:
        out.empty = bool(out.ids) and not out.refused and records.is_file() and not has_lines
        return out
    stamp = pair_stamp(run_id, out.signature or {})
    _read_lines(records, run_id, stamp, None if out.ids is None else set(out.ids), out)
    out.empty = not out.records and not out.lines and bool(out.ids)
    return out


def read_listed(path: Path) -> list[dict[str, JsonValue]]:
    """The entries of a list a run wrote beside its records (`skipped.json`,
    `model_skipped.json`): [] without the file; RunFolderError when it cannot be read or is not
    a JSON list of objects."""
    if not path.exists():
        return []
    try:
        data = loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise RunFolderError([Unvouched(path, None, f"cannot be read ({exc})")], RERUN_HINT) from None
    if not isinstance(data, list) or not all(isinstance(item, dict) for item in data):
        raise RunFolderError([Unvouched(path, None, "is not a JSON list of objects")], RERUN_HINT)
    return data


def pair_run_id(folder: Path) -> str | None:
    """The run id of the run a pair folder belongs to (`<run>/<benchmark>/<model>`), read
    through `read_run_file`; None when the folder is not inside a run folder with run.json."""
    run_dir = folder.parent.parent
    return run_id_of(read_run_file(run_dir)) if (run_dir / RUN_FILE).exists() else None


def _read_signature(folder: Path, has_lines: bool, out: PairFiles) -> dict[str, JsonValue] | None:
    path = folder / SIGNATURE_FILE
    if not path.exists():
        if has_lines:
            out.refused.append(
                Unvouched(
                    path,
                    None,
                    f"not found: the records of {RECORDS_FILE} cannot be tied to the settings they were made with",
                )
            )
        return None
    try:
        return read_json_object(path)
    except RunConfigError as exc:
        out.refused.append(Unvouched(path, None, str(exc).removeprefix(f"{path}: ")))
        return None


def _read_ids(folder: Path, out: PairFiles) -> list[str] | None:
    path = folder / IDS_FILE
    if not path.exists():
        return None
    try:
        data = loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        out.refused.append(Unvouched(path, None, f"cannot be read ({exc})"))
        return None
    if not isinstance(data, list) or not all(isinstance(i, str) and i for i in data):
        out.refused.append(Unvouched(path, None, "is not a JSON list of sample ids"))
        return None
    if len(set(data)) != len(data):
        out.refused.append(Unvouched(path, None, "lists a sample id twice"))
        return None
    return data


CUT_SHORT = "cut short (the last line of a write that stopped)"


def iter_lines(path: Path) -> Iterator[tuple[int, bytes, bool]]:
    """(line number from 1, the line's bytes, whether it ended) of each line of a records file,
    read a line at a time and numbered as `bytes.splitlines` numbers them (a bare CR ends a
    line too); the last line without an end is yielded with False."""
    lineno = 0
    with open(path, "rb") as fh:
        for chunk in fh:
            for part in chunk.splitlines(keepends=True):
                lineno += 1
                ended = len(part.rstrip(b"\r\n")) < len(part)
                yield lineno, part.rstrip(b"\r\n") if ended else part, ended


def _read_lines(
    path: Path, run_id: str | None, stamp: str | None, ids: set[str] | None, out: PairFiles
) -> None:
    """Every line of records.jsonl: vouched records into `out.records`, the rest listed."""
    kept: list[tuple[int, SampleRecord]] = []
    with gc_paused():  # records hold no cycles: collector passes over them only cost time
        for lineno, raw, complete in iter_lines(path):
            if not complete:
                out.lines.append(Unvouched(path, lineno, CUT_SHORT))
                break
            if not raw.strip():
                continue
            rec, why, sid = _line(raw, run_id, stamp, ids)
            if why is not None:
                out.lines.append(Unvouched(path, lineno, why, sid))
            elif rec is not None:
                kept.append((lineno, rec))
    conflicting = _conflicts(kept)
    for lineno, record in kept:
        if lineno in conflicting:
            out.lines.append(Unvouched(path, lineno, conflicting[lineno], record.id))
        else:
            out.records.append(record)
            out.record_lines.append(lineno)
    out.lines.sort(key=lambda p: p.line or 0)


def _line(
    raw: bytes, run_id: str | None, stamp: str | None, ids: set[str] | None
) -> tuple[SampleRecord | None, str | None, str | None]:
    """A line as its record, or why it cannot be vouched for; and its sample id."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, f"not UTF-8 text (byte {exc.start})", None
    try:
        data = loads(text, nesting=None)  # a line audioeval wrote: the hot path
    except (ValueError, RecursionError):
        return None, "not a JSON object (cut short or damaged)", None
    if not isinstance(data, dict):
        return None, "not a JSON object", None
    sid = data.get("id") if isinstance(data.get("id"), str) else None
    why = record_problem(data)
    if why is not None:
        return None, why, sid
    why = _stamp_problem(data.get(STAMP_KEY), run_id, stamp)
    if why is not None:
        return None, f"id {sid!r}: {why}", sid
    if ids is not None and sid not in ids:
        return None, f"id {sid!r} is not a sample of this pair ({IDS_FILE})", sid
    try:
        return SampleRecord.from_json(data), None, sid
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        return None, f"id {sid!r}: not a record ({type(exc).__name__}: {exc})", sid


def _stamp_problem(given: Any, run_id: str | None, stamp: str | None) -> str | None:
    if run_id is None:
        return None if given is None else "stamped by a run folder, in a folder written before run ids"
    if given is None:
        return "carries no stamp: written by hand or by an earlier audioeval, not by this run"
    if given == stamp:
        return None
    if not isinstance(given, str) or not given.startswith(f"{run_id}:"):
        return "written by another run folder (its stamp names another run)"
    return "written under another signature (another benchmark, model or settings than this pair's)"


def _conflicts(kept: list[tuple[int, SampleRecord]]) -> dict[int, str]:
    """Lines holding two different scored results of one sample (same content hash): neither
    can be vouched for. A failure followed by a result, or results of changed samples, are
    the history of a resumed run."""
    counts = Counter((record.id, record.sample_sha256) for _, record in kept if record.ok)
    first: dict[tuple[str, Any], tuple[int, Any]] = {}
    out: dict[int, str] = {}
    for lineno, record in kept:
        key = (record.id, record.sample_sha256)
        if not record.ok or counts[key] < 2:  # the usual case: one result per sample
            continue
        outcome = _outcome(record)
        if key in first and first[key][1] != outcome:
            other = first[key][0]
            out[lineno] = f"id {record.id!r}: another scored result than line {other} for the same sample"
            out.setdefault(
                other, f"id {record.id!r}: another scored result than line {lineno} for the same sample"
            )
        first.setdefault(key, (lineno, outcome))
    return out


def _outcome(record: SampleRecord) -> Any:
    output = record.output
    scores = {name: score.to_json() for name, score in (record.scores or {}).items()}
    text, audio = (output.text, output.audio_path) if output is not None else (None, None)
    return (text, audio, json.dumps(scores, sort_keys=True, default=str))


class RecordsFollower:
    """A pair's `records.jsonl` followed while a run appends to it (the viewer's live pages):
    each `poll()` reads only the bytes appended since the last one, line by line through the
    same checks as `read_pair` (stamp, sample ids, record shape, conflicting results), and
    returns the pair as `read_pair` would return it now. A line still being written (no end
    yet) is left for the next poll; a file that shrank (rewritten by a rescore) is read again
    from its start."""

    def __init__(self, folder: Path, run_id: str | None) -> None:
        self.folder = folder
        self.run_id = run_id
        self._head: PairFiles | None = None
        self._offset = 0
        self._lineno = 0
        self._kept: list[tuple[int, SampleRecord]] = []
        self._problems: list[Unvouched] = []

    def _reset(self) -> None:
        self._head, self._offset, self._lineno, self._kept, self._problems = None, 0, 0, [], []

    def poll(self) -> PairFiles:
        path = self.folder / RECORDS_FILE
        size = path.stat().st_size if path.is_file() else 0
        if size < self._offset:
            self._reset()
        if self._head is None or (self._head.signature is None and size > 0):
            self._head = read_pair(self.folder, self.run_id, lines=False)
        head = self._head
        out = PairFiles(self.folder, head.signature, head.ids, refused=list(head.refused))
        if head.refused or size == 0:
            out.empty = bool(head.ids) and not head.refused and path.is_file()
            return out
        if size > self._offset:
            self._read_from(path, pair_stamp(self.run_id, head.signature or {}), head.ids)
        conflicting = _conflicts(self._kept)
        for lineno, record in self._kept:
            if lineno in conflicting:
                out.lines.append(Unvouched(path, lineno, conflicting[lineno], record.id))
            else:
                out.records.append(record)
                out.record_lines.append(lineno)
        out.lines = sorted([*self._problems, *out.lines], key=lambda p: p.line or 0)
        out.empty = not out.records and not out.lines and bool(out.ids)
        return out

    def _read_from(self, path: Path, stamp: str | None, ids: list[str] | None) -> None:
        wanted = None if ids is None else set(ids)
        with open(path, "rb") as fh:
            fh.seek(self._offset)
            data = fh.read()
        end = data.rfind(b"\n")
        if end < 0:
            return  # the first new line is still being written
        with gc_paused():  # as `_read_lines`
            for part in data[: end + 1].splitlines():
                self._lineno += 1
                if not part.strip():
                    continue
                rec, why, sid = _line(part, self.run_id, stamp, wanted)
                if why is not None:
                    self._problems.append(Unvouched(path, self._lineno, why, sid))
                elif rec is not None:
                    self._kept.append((self._lineno, rec))
        self._offset += end + 1
