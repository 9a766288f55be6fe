"""Hugging Face datasets: `load_dataset` (hub name or local script/folder), `load_from_disk`,
and local parquet files (a file, or every `*.parquet` under a folder, read as a stream, so a
16 GB copy is not converted again into the datasets cache).

Audio columns are read undecoded (`Audio(decode=False)`: file bytes and path), so no
torch/torchcodec is needed; each clip's bytes are written once into a content-addressed
folder and the sample refers to that file. Arrays (`{"array", "sampling_rate"}`) are
written as WAV. Offline, a hub name that is not in the local cache fails with a clear error.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from audioeval.core.errors import InputError, OptionalDependencyError
from audioeval.core.messages import AudioRef

HF_HINT = "pip install 'audioeval[hf]'"


def _datasets() -> Any:
    try:
        import datasets
    except ImportError:
        raise OptionalDependencyError(f"Hugging Face datasets are not installed: {HF_HINT}") from None
    return datasets


def open_dataset(
    kind: str,
    path: str,
    name: str | None,
    split: str | None,
    where: str,
    revision: str | None = None,
    *,
    local_name: str = "<benchmark>",
    how: str = "",
) -> Any:
    """The dataset split as a `datasets.Dataset` (an iterable one for parquet).

    `kind`: `hf` (a hub name or a local dataset folder), `hf_disk` (a `save_to_disk`
    folder) or `parquet` (a parquet file, or a folder of them: its one split, `split` unused).
    `local_name`: the folder under the data root a local copy would be read from (for the
    error when the hub cannot be reached); `how`: where the data comes from and the command
    that prepares a local copy (`sources/missing_data.how_to_get`), said in that error.
    """
    datasets = _datasets()
    try:
        if kind == "hf_disk":
            if not Path(path).exists():
                raise InputError("saved dataset folder not found", file=path, field="source.path")
            ds = datasets.load_from_disk(path)
        elif kind == "parquet":
            files = [str(f) for f in parquet_files(Path(path))]
            ds = datasets.load_dataset("parquet", data_files=files, split="train", streaming=True)
        else:
            _refuse_unreachable_hub(path, where, local_name, how)
            ds = datasets.load_dataset(path, name, split=split, revision=revision)
    except InputError:
        raise
    except Exception as exc:  # datasets raises many types (connection, FileNotFound, Value)
        raise InputError(
            f"could not load dataset {path!r}"
            + (f" ({name})" if name else "")
            + f": {type(exc).__name__}: {str(exc)[:300]}. Offline, point the spec's source at a local"
            " copy (type hf_disk for a save_to_disk folder, or jsonl with audio paths), or put"
            f" one at <data root>/{local_name}/ (--data-root or AUDIOEVAL_DATA)",
            file=where,
            field="source",
        ) from None
    if isinstance(ds, datasets.DatasetDict):
        if split is None:
            if len(ds) != 1:
                raise InputError(f"choose a split: {', '.join(ds)}", file=where, field="source.split")
            split = next(iter(ds))
        if split not in ds:
            raise InputError(f"no split {split!r}; has {', '.join(ds)}", file=where, field="source.split")
        ds = ds[split]
    return _undecoded(ds, datasets)


def _refuse_unreachable_hub(path: str, where: str, local_name: str, how: str = "") -> None:
    """A hub name on a machine that cannot reach the hub: one line now, not ~30 s of retries."""
    from audioeval.benchmarks.sources.hub_reach import declared_offline, hub_unreachable

    if Path(path).exists() or declared_offline():
        return  # a local folder or script; or offline declared: the datasets cache is read
    why = hub_unreachable()
    if why is not None:
        raise InputError(
            f"offline: the Hugging Face hub cannot be reached ({why}), so {path!r} cannot be "
            f"downloaded. Put a local copy at <data root>/{local_name}/ (--data-root or "
            "AUDIOEVAL_DATA), point the spec's source at one, or set HF_HUB_OFFLINE=1 to read "
            "the datasets cache" + (f". {how}" if how else ""),
            file=where,
            field="source",
        )


def parquet_files(path: Path) -> list[Path]:
    """The parquet file, or every `*.parquet` under the folder (sorted); InputError if none."""
    if path.is_file():
        return [path]
    files = sorted(path.rglob("*.parquet")) if path.is_dir() else []
    if not files:
        what = "no *.parquet file under the folder" if path.is_dir() else "parquet file not found"
        raise InputError(what, file=str(path), field="source.path")
    return files


def _undecoded(ds: Any, datasets: Any) -> Any:
    for col, feature in (ds.features or {}).items():
        if isinstance(feature, datasets.Audio) and feature.decode:
            ds = ds.cast_column(col, datasets.Audio(decode=False))
    return ds


def iter_rows(ds: Any) -> Iterator[tuple[int, dict[str, Any]]]:
    """Rows with ClassLabel ids turned into their names (a label column holds "jazz", not 5)."""
    datasets = _datasets()
    names = {
        col: feature
        for col, feature in (getattr(ds, "features", None) or {}).items()
        if isinstance(feature, datasets.ClassLabel)
    }
    for i, row in enumerate(ds):
        row = dict(row)
        for col, feature in names.items():
            value = row.get(col)
            if isinstance(value, int) and value >= 0:
                row[col] = feature.int2str(value)
        yield i, row


def audio_materialiser(cache_dir: Path, base: Path | None):
    """A resolver turning a dataset's audio cell into an AudioRef of a file on disk: bytes
    and arrays are written once under `cache_dir`; a path (a string, or a cell with only a
    path) is taken from `base` when relative (a path-only cell also as given)."""

    def resolve(value: Any, sid: str, col: str) -> AudioRef:
        if isinstance(value, str):
            p = Path(value)
            return AudioRef(str(p if p.is_absolute() or base is None else base / p))
        if not isinstance(value, dict):
            raise InputError(f"unexpected audio cell {type(value).__name__}", sample_id=sid, field=col)
        data = value.get("bytes")
        if data:
            suffix = Path(value.get("path") or "x.wav").suffix or ".wav"
            return AudioRef(str(_write_once(cache_dir, data, suffix)))
        if value.get("array") is not None:
            array = _finite_array(value["array"], sid, col)
            return AudioRef(str(_write_array(cache_dir, array, int(value["sampling_rate"]))))
        path = value.get("path")
        if path:
            for candidate in (base / path if base is not None else None, Path(path)):
                if candidate is not None and candidate.is_file():
                    return AudioRef(str(candidate))
        raise InputError("audio cell has neither bytes, array nor an existing path", sample_id=sid, field=col)

    return resolve


def stored_sha256_prefix(path: str | Path) -> str | None:
    """The SHA-256 prefix a clip written by `_write_once` is named by (`ab/ab12….wav`), else None."""
    p = Path(path)
    stem = p.name.split(".", 1)[0]
    if len(stem) == 24 and p.parent.name == stem[:2] and all(c in "0123456789abcdef" for c in stem):
        return stem
    return None


def _write_once(cache_dir: Path, data: bytes, suffix: str) -> Path:
    digest = hashlib.sha256(data).hexdigest()[:24]
    target = cache_dir / digest[:2] / f"{digest}{suffix}"
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_suffix(target.suffix + ".tmp")
        tmp.write_bytes(data)
        tmp.replace(target)
    return target


def _finite_array(array: Any, sid: str, col: str) -> Any:
    """The decoded cell as float32; NaN/inf is an AudioError naming the sample and column."""
    import numpy as np

    from audioeval.audio.decode import require_finite

    samples = np.asarray(array, dtype=np.float32)
    require_finite(samples, source=None, sample_id=sid, field=col)
    return samples


def _write_array(cache_dir: Path, array: Any, rate: int) -> Path:
    import io

    import numpy as np
    import soundfile as sf

    buf = io.BytesIO()
    sf.write(buf, np.asarray(array, dtype=np.float32), rate, format="WAV", subtype="PCM_16")
    return _write_once(cache_dir, buf.getvalue(), ".wav")
