"""Benchmark specs: validated YAML data naming registered code, never holding code.

A spec says where the data is (`source`), how its columns map to sample fields (`fields`),
and how the task is prompted, post-processed and scored. Every value left out comes from
the task's defaults (`benchmarks/tasks.py`). Errors name the spec file and the field, with
"did you mean …?" for misspelt keys.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from audioeval.core.errors import InputError
from audioeval.core.suggest import did_you_mean

SourceType = Literal["jsonl", "json", "csv", "folder", "hf", "hf_disk"]
StepSpec = str | dict[str, dict[str, Any]]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SourceSpec(_Strict):
    """Where samples come from. `path` is a file, folder, saved dataset or hub name; a
    relative local path is taken from the spec file's folder, or from `data_root`."""

    type: SourceType
    path: str
    name: str | None = Field(None, description="Hugging Face dataset configuration")
    split: str | None = None
    revision: str | None = Field(None, description="hub revision, e.g. refs/convert/parquet")
    audio_root: str | None = Field(None, description="folder that audio paths are relative to")
    labels_from: Literal["folder", "none"] = "none"
    streaming: bool = False


class BenchmarkSpec(_Strict):
    name: str
    task: str
    description: str = ""
    language: str = "en"
    source: SourceSpec
    fields: dict[str, str | None] = Field(
        default_factory=dict, description="sample field -> source column (null: do not read that field)"
    )
    taxonomy: list[str] = Field(default_factory=list)
    variables: dict[str, Any] = Field(
        default_factory=dict, description="constants for the prompt (e.g. labels, target_language)"
    )
    prompt: str | None = None
    postprocess: list[StepSpec] | None = None
    scorers: list[StepSpec] | None = None
    metrics: list[str] | None = None
    headline: str | None = None
    homepage: str | None = None
    license: str | None = None
    limit: int | None = Field(None, ge=1, description="score only the first N samples")

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        if not v or any(c.isspace() or c in "/,@" for c in v):
            raise ValueError("must be non-empty without spaces, '/', ',' or '@'")
        return v


def _location(err: dict[str, Any]) -> str:
    return ".".join(str(p) for p in err["loc"])


def _describe(err: dict[str, Any], model: type[BaseModel]) -> str:
    if err["type"] == "extra_forbidden":
        key = str(err["loc"][-1])
        target: Any = model
        for part in err["loc"][:-1]:
            sub = getattr(target, "model_fields", {}).get(str(part))
            target = sub.annotation if sub is not None else target
        known = getattr(target, "model_fields", {}) or model.model_fields
        return f"unknown key{did_you_mean(key, known)}; allowed: {', '.join(known)}"
    if err["type"] == "missing":
        return "required"
    return str(err["msg"])


def parse_spec(data: Any, source: str) -> BenchmarkSpec:
    """A validated spec, or InputError naming the file and the first bad field."""
    if not isinstance(data, dict):
        raise InputError("a benchmark spec must be a YAML mapping", file=source)
    try:
        return BenchmarkSpec.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        more = len(exc.errors()) - 1
        extra = f" (and {more} more problem(s))" if more else ""
        raise InputError(
            _describe(first, BenchmarkSpec) + extra, file=source, field=_location(first)
        ) from None


def load_spec_file(path: Path) -> BenchmarkSpec:
    import yaml

    if not path.is_file():
        raise InputError("benchmark spec file not found", file=str(path))
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise InputError(f"malformed YAML ({exc})", file=str(path)) from None
    return parse_spec(data, str(path))
