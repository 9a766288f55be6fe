"""What a missing benchmark source says: every place it was looked for, where the data comes
from, and the command that prepares the local copy.

One message for every kind of source (a manifest or saved dataset under the data root, a hub
dataset that cannot be reached): a shipped spec's relative paths are looked for under the data
root (`--data-root` or `AUDIOEVAL_DATA`) first, so that place is named first, and a run without
a data root is told how to give one.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from audioeval.benchmarks.spec import BenchmarkSpec
from audioeval.core.errors import InputError

ROOT_FLAGS = "--data-root or AUDIOEVAL_DATA"


def origin_of(spec: BenchmarkSpec) -> str | None:
    """Where the data comes from: the spec's `origin`, else its hub dataset."""
    src = spec.source
    if src.origin:
        return src.origin
    if src.type == "hf":
        parts = [f"config {src.name}" if src.name else "", f"split {src.split}" if src.split else ""]
        detail = ", ".join(p for p in parts if p)
        return f"the Hugging Face dataset {src.path}" + (f" ({detail})" if detail else "")
    return None


def prepare_command(spec: BenchmarkSpec, root: Path | None) -> str | None:
    """The command that makes the local copy under `root` (or $AUDIOEVAL_DATA): the spec's
    `prepare`, else, for a hub source, `save_to_disk` of the split it reads (run it where the hub
    can be reached, then bring the folder here)."""
    src = spec.source
    where = str(root) if root is not None else "$AUDIOEVAL_DATA"
    if src.prepare:
        return src.prepare.replace("$AUDIOEVAL_DATA", where)
    if src.type != "hf":
        return None
    args = [repr(src.path)] + ([repr(src.name)] if src.name else [])
    args += [f"split={src.split!r}"] if src.split else []
    args += [f"revision={src.revision!r}"] if src.revision else []
    target = f"{where}/{spec.local_copy_name}"
    return f"python -c \"import datasets; datasets.load_dataset({', '.join(args)}).save_to_disk('{target}')\""


def how_to_get(spec: BenchmarkSpec, root: Path | None) -> str:
    """The sentences on where the data comes from and how to prepare it ('' when unknown)."""
    out = []
    origin = origin_of(spec)
    if origin:
        out.append(f"It comes from {origin}.")
    command = prepare_command(spec, root)
    if command:
        out.append(f"Prepare it with: {command}")
    return " ".join(out)


def missing_source(
    spec: BenchmarkSpec, spec_file: str, looked: Sequence[Path], root: Path | None, field: str = "source.path"
) -> InputError:
    """The error of a source found nowhere it was looked for."""
    places = ", ".join(dict.fromkeys(str(p) for p in looked))
    where = f"the data root is {root}" if root is not None else f"no data root was given ({ROOT_FLAGS})"
    message = f"the data of {spec.name!r} was not found: looked for {places} ({where})."
    extra = how_to_get(spec, root)
    return InputError(f"{message} {extra}".strip(), file=spec_file, field=field)
