"""Source types: how a benchmark's data file becomes samples.

The generic types (`jsonl`, `json`, `csv`, `folder`, `hf`, `hf_disk`) are read by the loader
through a spec's field mapping. Any other type is a named reader that a benchmark contributes
through its `Benchmark` (`contract.py`, field `source_types`), exactly as a package installed
beside audioeval would: `benchmarks/plugins.py` registers it here, and the loader calls it by
name. A spec names it in `source.type`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from audioeval.core.errors import InputError
from audioeval.core.registry import Registry
from audioeval.core.sample import Sample

GENERIC_SOURCE_TYPES = ("jsonl", "json", "csv", "folder", "hf", "hf_disk")
"""The types read through the spec's field mapping (`sources/records_to_samples.py`)."""

@dataclass(frozen=True)
class SourceRequest:
    """What a contributed reader is asked to read."""

    path: Path
    """The source file (a relative spec path already resolved)."""
    audio_root: Path | None = None
    """The folder its clips' relative paths start from (None: the reader's default)."""
    limit: int | None = None
    """Read the first `limit` samples only."""
    options: Mapping[str, Any] = field(default_factory=dict)
    """The spec's `source.options`: settings of this reader (e.g. the key an answer is under)."""


SourceReader = Callable[[SourceRequest], tuple[list[Sample], list[InputError]]]
"""-> the samples read and the errors of the items that could not be (each naming file, id
and field)."""


@dataclass(frozen=True)
class SourceFormat:
    """A data file format a benchmark contributes."""

    read: SourceReader
    description: str
    """One line for errors and listings: what the file holds. The run's signature holds the
    content hash of the whole file: every byte of it counts."""
    checks_inputs: bool = False
    """Whether `read` checks every input clip a sample names itself (a sample with a missing
    clip is one of its errors): the engine then reads none of them again before asking."""


SOURCE_FORMATS: Registry[SourceFormat] = Registry(
    "source type", spec_names=True, also_known=GENERIC_SOURCE_TYPES
)


def source_type_names() -> list[str]:
    """Every source type a spec may name: the generic ones, then those the loaded benchmarks
    contribute (`plugins.load_benchmarks()` registers them: `resolved.resolve`, which checks a
    spec's type against these, loads them first; this module sits below the benchmarks)."""
    return [*GENERIC_SOURCE_TYPES, *SOURCE_FORMATS.names()]


def contributed(name: str) -> SourceFormat | None:
    """The contributed reader of a source type (the benchmarks loaded), or None for a generic
    one; an unknown type is an InputError listing the known ones."""
    if name in GENERIC_SOURCE_TYPES:
        return None
    return SOURCE_FORMATS.get(name, field="source.type")
