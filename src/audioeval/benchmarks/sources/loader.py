"""Loading a benchmark's samples from whichever source its spec names.

A relative local path is looked up next to the spec file, then under the data root
(`--data-root` or `AUDIOEVAL_DATA`). A hub dataset with a local copy at
`<data root>/<benchmark name>/` (a `manifest.jsonl`, or a `save_to_disk` folder) is read
from there, so registered benchmarks run offline once their data is on disk; a spec's
`source.local_name` names another folder there, so specs reading the same data share one copy.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path

from audioeval.benchmarks.sources.folder import read_folder
from audioeval.benchmarks.sources.manifest import read_rows
from audioeval.benchmarks.sources.records_to_samples import RowMapping, path_resolver
from audioeval.benchmarks.sources.source_formats import SourceRequest, contributed
from audioeval.benchmarks.spec import BenchmarkSpec, SourceSpec
from audioeval.core.errors import InputError
from audioeval.core.sample import Sample
from audioeval.store.file_digest import file_sha256


@dataclass
class SampleSet:
    """The samples of one benchmark, the rows that could not be read, and where from."""

    samples: list[Sample]
    skipped: list[InputError] = field(default_factory=list)
    location: str = ""
    source_sha256: str | None = None  # content hash of a one-file source read by its own reader


def data_root(explicit: Path | None = None) -> Path | None:
    if explicit is not None:
        return explicit
    env = os.environ.get("AUDIOEVAL_DATA")
    return Path(env).expanduser() if env else None


def default_cache_dir() -> Path:
    base = os.environ.get("AUDIOEVAL_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "audioeval")
    return Path(base) / "audio"


def _local_copy(spec: BenchmarkSpec, root: Path | None, spec_file: str) -> SourceSpec | None:
    """The source read from `<root>/<local copy name>/` when a copy is there. A folder that
    `source.local_name` names but that holds no copy is an error, not a reason to go online."""
    if root is None:
        return None
    folder = root / spec.local_copy_name
    if (folder / "manifest.jsonl").is_file():
        return spec.source.model_copy(update={"type": "jsonl", "path": str(folder / "manifest.jsonl")})
    if (folder / "dataset_info.json").is_file() or (folder / "dataset_dict.json").is_file():
        return spec.source.model_copy(update={"type": "hf_disk", "path": str(folder)})
    if spec.source.local_name is not None and folder.exists():
        raise InputError(
            f"{folder} holds no local copy: put a manifest.jsonl or a save_to_disk dataset "
            "(dataset_info.json or dataset_dict.json) there, or name another folder",
            file=spec_file,
            field="source.local_name",
        )
    return None


def _spec_dir(spec_file: str) -> Path | None:
    """The folder a spec's relative paths start from: the spec file's own (a shipped spec's
    `where` is its path in its benchmark's `specs/` folder)."""
    return Path(spec_file).parent if spec_file else None


def _resolve_path(raw: str, spec_dir: Path | None, root: Path | None) -> Path:
    p = Path(raw).expanduser()
    if p.is_absolute():
        return p
    candidates = [d / p for d in (spec_dir, root) if d is not None]
    return next((c for c in candidates if c.exists()), candidates[0] if candidates else p)


def _require_source(
    path: Path, spec: BenchmarkSpec, spec_file: str, spec_dir: Path | None, root: Path | None
) -> None:
    """A source path found nowhere is an error naming every place looked (the data root's
    first), where the data comes from and how to prepare it (`sources/missing_data.py`)."""
    if path.exists():
        return
    from audioeval.benchmarks.sources.missing_data import missing_source

    raw = Path(spec.source.path).expanduser()
    looked = [path] if raw.is_absolute() else [d / raw for d in (root, spec_dir) if d is not None]
    raise missing_source(spec, spec_file, looked, root)


def load_samples(
    spec: BenchmarkSpec,
    spec_file: str,
    *,
    root: Path | None = None,
    cache_dir: Path | None = None,
    limit: int | None = None,
) -> SampleSet:
    """Every readable sample; unreadable rows are collected as InputErrors, not fatal."""
    spec_dir = _spec_dir(spec_file)
    root = data_root(root)
    src = _local_copy(spec, root, spec_file) or spec.source
    limit = limit or spec.limit
    reader = contributed(src.type)
    if reader is not None:  # a benchmark's own file format, read by its own reader
        data = _resolve_path(src.path, spec_dir, root)
        clips = _resolve_path(src.audio_root, spec_dir or data.parent, root) if src.audio_root else None
        samples, skipped = reader.read(SourceRequest(data, clips, limit, dict(src.options)))
        if not samples and not skipped:
            raise InputError("the benchmark has no samples", file=str(data))
        return SampleSet(_with_constants(samples, spec), skipped, str(data), file_sha256(data))
    if src.options:
        raise InputError(
            f"source type {src.type} takes no options (they are settings of a benchmark's own reader)",
            file=spec_file,
            field="source.options",
        )
    if src.type in ("hf", "hf_disk"):
        from audioeval.benchmarks.sources import hf
        from audioeval.benchmarks.sources.missing_data import how_to_get

        path = src.path
        if src.type == "hf_disk":
            path_obj = _resolve_path(src.path, spec_dir, root)
            _require_source(path_obj, spec, spec_file, spec_dir, root)
            path = str(path_obj)
        ds = hf.open_dataset(
            src.type,
            path,
            src.name,
            src.split,
            spec_file,
            src.revision,
            local_name=spec.local_copy_name,
            how=how_to_get(spec, root),
        )
        if limit is not None and hasattr(ds, "select"):
            ds = ds.select(range(min(limit, len(ds))))
        base = Path(src.audio_root).expanduser() if src.audio_root else None
        resolver = hf.audio_materialiser(cache_dir or default_cache_dir(), base)
        rows = hf.iter_rows(ds)
        location = path
    else:
        path_obj = _resolve_path(src.path, spec_dir, root)
        _require_source(path_obj, spec, spec_file, spec_dir, root)
        location = str(path_obj)
        if src.type == "folder":
            rows = read_folder(path_obj, labels_from_folder=src.labels_from == "folder")
            audio_base = path_obj
        else:
            rows = read_rows(path_obj, src.type)
            audio_base = path_obj.parent
        if src.audio_root:
            audio_base = _resolve_path(src.audio_root, spec_dir or path_obj.parent, root)
        resolver = path_resolver(audio_base)
    mapping = RowMapping(
        location, spec.fields, spec.taxonomy, resolver, _constants(spec), _required(spec), _gold_among_choices(spec)
    )
    return _collect(rows, mapping, limit)


def _required(spec: BenchmarkSpec) -> tuple[str, ...]:
    """The task's required fields, less `rubric` when the source makes rubrics (`decompose`)."""
    from audioeval.benchmarks.tasks import TASKS

    required = TASKS.get(spec.task).required_fields if spec.task in TASKS.names() else ()
    if spec.source.decompose is not None:
        required = tuple(f for f in required if f != "rubric")
    return required


def _gold_among_choices(spec: BenchmarkSpec) -> bool:
    from audioeval.benchmarks.tasks import TASKS

    task = TASKS.find(spec.task)
    return task is not None and task.answer_among_choices


def _constants(spec: BenchmarkSpec) -> dict[str, object]:
    return {"language": spec.language, **spec.variables}


def _with_constants(samples: list[Sample], spec: BenchmarkSpec) -> list[Sample]:
    """A contributed reader's samples with the spec's constants (its `language`, variables) in
    the fields they do not set, as the generic types' samples have them."""
    given = {k: v for k, v in _constants(spec).items() if v is not None}
    if not given:
        return samples
    return [
        s if all(k in s.fields for k in given) else replace(s, fields={**given, **s.fields}) for s in samples
    ]


def _collect(rows, mapping: RowMapping, limit: int | None) -> SampleSet:
    samples: list[Sample] = []
    skipped: list[InputError] = []
    seen: set[str] = set()
    for index, row in rows:
        if limit is not None and len(samples) >= limit:
            break
        try:
            sample = mapping.to_sample(row, index)
        except InputError as exc:
            if exc.file is None:
                exc = InputError(exc.message, file=mapping.source, sample_id=exc.sample_id, field=exc.field)
            skipped.append(exc)
            continue
        if sample.id in seen:
            skipped.append(InputError("duplicate id", file=mapping.source, sample_id=sample.id, field="id"))
            continue
        seen.add(sample.id)
        samples.append(sample)
    if not samples and not skipped:
        raise InputError("the benchmark has no samples", file=mapping.source)
    return SampleSet(samples, skipped, mapping.source)
