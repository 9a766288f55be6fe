"""Loading the AnyAudio-Judge Bench from wherever it is, as run Samples.

`--bench` names one of:

- a JSONL file, one row a line, `audio` a path relative to the file's folder;
- a `save_to_disk` folder (a Dataset or a DatasetDict; `split` picks from a dict);
- a parquet file, or a folder of them (the hub's layout `en/test-*.parquet`: with several
  configuration folders, `config` picks one);
- a hub dataset: `AnyAudio-Judge-Bench/en`, `cucl2/AnyAudio-Judge-Bench:en`, or a name and
  `config`, split `test`. A local copy under the data root (`--data-root` or
  `AUDIOEVAL_DATA`) at `<root>/AnyAudio-Judge-Bench/<config>/` is read instead when present;
  otherwise `datasets` needs the hub or its cache.

Datasets are read through the one Hugging Face source (`benchmarks/sources/hf.py`: audio
undecoded, bytes written once, content-addressed); rows are validated by `schema.py`. A bad
row is skipped and its InputError kept in `SampleSet.skipped`; the first of two rows with
the same uuid is kept. A file that cannot be read (a JSONL line that is not JSON, a
dataset that does not open) is one InputError for the whole bench.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from audioeval.benchmarks.anyaudio_bench.schema import AudioResolver, RowPlace, row_sample, row_uuid
from audioeval.benchmarks.sources import hf
from audioeval.benchmarks.sources.loader import SampleSet, data_root, default_cache_dir
from audioeval.benchmarks.sources.manifest import read_rows
from audioeval.benchmarks.sources.records_to_samples import path_resolver
from audioeval.core.errors import AudioError, InputError
from audioeval.core.messages import AudioRef
from audioeval.core.sample import Sample

HUB_REPO = "cucl2/AnyAudio-Judge-Bench"
BENCH_NAME = "AnyAudio-Judge-Bench"
CONFIGS = ("en", "zh")
HUB_SPLIT = "test"
_DISK_MARKERS = ("dataset_info.json", "dataset_dict.json", "state.json")


def hub_name(text: str, config: str | None = None) -> tuple[str, str | None]:
    """(repository, configuration) of a hub name: `AnyAudio-Judge-Bench[/CONFIG]` is the
    official repository; `OWNER/NAME[:CONFIG]` or `OWNER/NAME/CONFIG` any other."""
    name, _, given = text.strip().partition(":")
    parts = [p for p in name.split("/") if p]
    if parts and parts[0].lower() == BENCH_NAME.lower() and len(parts) <= 2:
        parts = [*HUB_REPO.split("/"), *parts[1:]]
    if len(parts) == 3:
        given = given or parts.pop()
    if len(parts) != 2:
        raise InputError(
            f"not a local file or folder, nor a hub dataset name: {text!r} (expected "
            f"{BENCH_NAME}/en, {HUB_REPO}:en, a .jsonl or .parquet file, or a dataset folder)",
            field="bench",
        )
    if given and config and given != config:
        raise InputError(f"configuration {given!r} in the name but {config!r} given", field="bench")
    return "/".join(parts), given or config


def load_bench(
    bench: str | Path,
    *,
    config: str | None = None,
    split: str | None = None,
    data_root_dir: Path | None = None,
    cache_dir: Path | None = None,
    limit: int | None = None,
) -> SampleSet:
    """Every valid row of the bench as a Sample (in source order), bad rows as errors.

    `config` (en | zh) picks the configuration of a hub name or of a folder holding one per
    configuration; `split` a split of a hub dataset (default `test`) or of a saved
    DatasetDict; `cache_dir` where embedded audio is written (default: the audio cache,
    `AUDIOEVAL_CACHE`); `limit` keeps the first N valid rows. InputError when the source
    cannot be read or holds no row at all.
    """
    path = Path(bench).expanduser()
    cache = cache_dir or default_cache_dir()
    if not path.exists():
        if path.suffix.lower() in (".jsonl", ".parquet", ".json") or str(bench).startswith((".", "/", "~")):
            raise InputError("bench file or folder not found", file=str(path), field="bench")
        repo, config = hub_name(str(bench), config)
        local = _local_copy(data_root(data_root_dir), config)
        if local is None:
            if repo == HUB_REPO and config is None:
                raise InputError(f"choose a configuration: {BENCH_NAME}/en or /zh", field="bench")
            ds = hf.open_dataset("hf", repo, config, split or HUB_SPLIT, "--bench")
            where = f"{repo} ({config or 'default'}, {split or HUB_SPLIT})"
            return _collect(where, _dataset_rows(ds), hf.audio_materialiser(cache, None), limit)
        path = local
    if path.is_file():
        return _load_file(path, cache, limit)
    return _load_folder(path, config, split, cache, limit)


def _local_copy(root: Path | None, config: str | None) -> Path | None:
    """`<root>/AnyAudio-Judge-Bench/<config>/` (without a configuration: the bench folder)."""
    if root is None:
        return None
    folder = root / BENCH_NAME / config if config else root / BENCH_NAME
    return folder if folder.is_dir() else None


def _load_file(path: Path, cache: Path, limit: int | None) -> SampleSet:
    suffix = path.suffix.lower()
    if suffix == ".jsonl":
        rows = ((RowPlace(str(path), line=line), row) for line, row in read_rows(path, "jsonl"))
        return _collect(str(path), rows, _existing_file(path_resolver(path.parent)), limit)
    if suffix == ".parquet":
        ds = hf.open_dataset("parquet", str(path), None, None, str(path))
        return _collect(
            str(path), _dataset_rows(ds, str(path)), hf.audio_materialiser(cache, path.parent), limit
        )
    raise InputError("expected a .jsonl or .parquet file, or a dataset folder", file=str(path), field="bench")


def _load_folder(
    path: Path, config: str | None, split: str | None, cache: Path, limit: int | None
) -> SampleSet:
    if (path / "manifest.jsonl").is_file():
        return _load_file(path / "manifest.jsonl", cache, limit)
    if any((path / marker).is_file() for marker in _DISK_MARKERS):
        ds = hf.open_dataset("hf_disk", str(path), None, split, str(path))
        return _collect(str(path), _dataset_rows(ds, str(path)), hf.audio_materialiser(cache, path), limit)
    if config and (path / config).is_dir():
        return _load_folder(path / config, None, split, cache, limit)
    tops = {f.relative_to(path).parts[0] for f in path.rglob("*.parquet") if f.parent != path}
    if len(tops) > 1 and not any(path.glob("*.parquet")):
        raise InputError(
            f"the folder holds several configurations ({', '.join(sorted(tops))}): choose one",
            file=str(path),
            field="config",
        )
    ds = hf.open_dataset("parquet", str(path), None, None, str(path))
    return _collect(str(path), _dataset_rows(ds, str(path)), hf.audio_materialiser(cache, path), limit)


def _dataset_rows(ds: Any, where: str | None = None) -> Iterable[tuple[RowPlace, Any]]:
    source = where or ""
    for index, row in hf.iter_rows(ds):
        yield RowPlace(source, row=index), row


def _existing_file(resolve: AudioResolver) -> AudioResolver:
    """A path resolver that also checks the file is there (JSONL rows give paths)."""

    def check(value: Any, sid: str, col: str) -> AudioRef:
        ref = resolve(value, sid, col)
        if not Path(ref.path).is_file():
            raise AudioError(f"audio file not found: {ref.path}", sample_id=sid, field=col)
        return ref

    return check


def _collect(
    where: str, rows: Iterable[tuple[RowPlace, Any]], resolve_audio: AudioResolver, limit: int | None
) -> SampleSet:
    samples: list[Sample] = []
    skipped: list[InputError] = []
    first: dict[str, str] = {}
    for place, row in rows:
        if limit is not None and len(samples) >= limit:
            break
        place = place if place.source else RowPlace(where, place.line, place.row)
        try:
            uuid = row_uuid(row, place)
            if uuid in first:
                raise place.error(f"duplicate uuid (first at {first[uuid]})", uuid=uuid, field="uuid")
            sample = row_sample(row, place, resolve_audio)
        except InputError as exc:
            skipped.append(exc)
            continue
        first[uuid] = f"line {place.line}" if place.line is not None else f"row {place.row}"
        samples.append(sample)
    if not samples and not skipped:
        raise InputError("the bench has no rows", file=where, field="bench")
    return SampleSet(samples, skipped, where)
